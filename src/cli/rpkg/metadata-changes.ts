import { UsageError } from "../io.js";
import { RpkgError } from "./errors.js";

/** The label Porch computes for the latest published revision of a package: never set by a client. */
export const LATEST_LABEL = "kpt.dev/latest-revision";

/** What `kubectl label` / `kubectl annotate` arguments ask: keys to set (KEY=VALUE) and to remove (KEY-). */
export interface MetadataChanges {
  set: Map<string, string>;
  remove: string[];
}

/** A label value: empty, or up to 63 letters, digits, `-`, `_`, `.`, starting and ending alphanumeric. */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Why `key` is no Kubernetes label or annotation key (an optional DNS subdomain prefix and `/`, then a
 * name of up to 63 letters, digits, `-`, `_`, `.`, alphanumeric at both ends), or undefined.
 */
function keyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf("/");
  const [prefix, name] = slash >= 0 ? [key.slice(0, slash), key.slice(slash + 1)] : [undefined, key];
  if (prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)))
    return `its prefix "${prefix}" must be a DNS subdomain: lower case letters, digits, "-" and "." (for example kpt.dev)`;
  if (name.length > 63 || !NAME_PART.test(name))
    return `its name "${name}" must be 1 to 63 letters, digits, "-", "_" or ".", beginning and ending with a letter or digit`;
  return undefined;
}

/**
 * `KEY=VALUE` and `KEY-` arguments, checked as Kubernetes checks labels (`kind` "label": the value too) or
 * annotations; anything else is a usage error naming the argument and the form it should take.
 */
export function parseMetadataChanges(
  args: readonly string[],
  kind: "label" | "annotation",
  usage: string,
): MetadataChanges {
  const set = new Map<string, string>();
  const remove: string[] = [];
  for (const arg of args) {
    const eq = arg.indexOf("=");
    const [key, value] =
      eq > 0
        ? [arg.slice(0, eq), arg.slice(eq + 1)]
        : arg.endsWith("-")
          ? [arg.slice(0, -1), undefined]
          : ["", ""];
    if (key === "") throw new UsageError(`"${arg}" is neither KEY=VALUE nor KEY-\n\n${usage}`);
    const problem = keyProblem(key);
    if (problem) throw new UsageError(`invalid ${kind} key "${key}": ${problem}`);
    if (kind === "label" && key === LATEST_LABEL)
      throw new UsageError(
        `${LATEST_LABEL} is Porch's own label, on the latest published revision of each package: porchlight sets it, a client cannot`,
      );
    if (value === undefined) remove.push(key);
    else {
      if (kind === "label" && (value.length > 63 || !LABEL_VALUE.test(value)))
        throw new UsageError(
          `invalid label value "${value}" for ${key}: a label value is empty or up to 63 letters, digits, "-", "_" or ".", beginning and ending with a letter or digit`,
        );
      set.set(key, value);
    }
  }
  return { set, remove };
}

/**
 * `changes` applied to `current` (a revision's labels or annotations) in place, as kubectl applies them:
 * a key that already has another value is refused unless `overwrite`, naming it and its value.
 */
export function applyMetadataChanges(
  current: Record<string, string>,
  changes: MetadataChanges,
  overwrite: boolean,
  kind: "label" | "annotation",
): void {
  const clash = [...changes.set].filter(([k, v]) => current[k] !== undefined && current[k] !== v);
  if (clash.length > 0 && !overwrite) {
    const which = clash.map(([k]) => `'${k}' already has a value (${current[k]})`).join(", ");
    throw new RpkgError(
      kind === "annotation"
        ? `--overwrite is false but found the following declared annotation(s): ${which}`
        : `${which}, and --overwrite is false`,
    );
  }
  for (const [k, v] of changes.set) current[k] = v;
  for (const k of changes.remove) delete current[k];
}
