import {
  ANNOTATIONS_MAX_BYTES,
  annotationsBytes,
  labelValueProblems,
  qualifiedNameProblems,
} from "../../api/object-meta.js";
import { PorchError } from "../../porch/errors.js";
import { LATEST_LABEL } from "../../porch/objects.js";
import { UsageError } from "../io.js";

/** What `kubectl label` / `kubectl annotate` arguments ask: keys to set (KEY=VALUE) and to remove (KEY-). */
export interface MetadataChanges {
  set: Map<string, string>;
  remove: string[];
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
    // Kubernetes reads an annotation's key in lower case: its prefix may have capitals, a label's not
    const problems = qualifiedNameProblems(kind === "annotation" ? key.toLowerCase() : key);
    if (problems.length > 0)
      throw new UsageError(`invalid ${kind} key ${shortQuote(key)}: ${problems.join("; ")}`);
    if (kind === "label" && key === LATEST_LABEL)
      throw new UsageError(
        `${LATEST_LABEL} is Porch's own label, on the latest published revision of each package: porchlight sets it, a client cannot`,
      );
    if (value === undefined) remove.push(key);
    else {
      const bad = kind === "label" ? labelValueProblems(value) : [];
      if (bad.length > 0)
        throw new UsageError(`invalid label value ${shortQuote(value)} for ${key}: ${bad.join("; ")}`);
      set.set(key, value);
    }
  }
  return { set, remove };
}

/**
 * `changes` applied to `current` (a revision's labels or annotations) in place, as kubectl applies them:
 * a key that already has another value is refused unless `overwrite`, naming it and its value, and
 * annotations past Kubernetes' 256 KiB (keys and values) are refused, as the API server refuses them.
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
    throw new PorchError(
      "bad-request",
      kind === "annotation"
        ? `--overwrite is false but found the following declared annotation(s): ${which}`
        : `${which}, and --overwrite is false`,
    );
  }
  for (const [k, v] of changes.set) current[k] = v;
  for (const k of changes.remove) delete current[k];
  const bytes = kind === "annotation" ? annotationsBytes(current) : 0;
  if (bytes > ANNOTATIONS_MAX_BYTES) {
    const message = `the revision's annotations would come to ${bytes} bytes (keys and values), over Kubernetes' limit of ${ANNOTATIONS_MAX_BYTES} (256 KiB): keep large data in the package's files, not in annotations; nothing was written`;
    throw new PorchError("invalid", message, undefined, undefined, {
      causes: [{ field: "metadata.annotations", reason: "FieldValueTooLong", message }],
    });
  }
}

/** A value in a message: quoted, cut past 64 characters (a megabyte argument is not echoed back). */
const shortQuote = (value: string) =>
  value.length <= 64
    ? JSON.stringify(value)
    : `${JSON.stringify(value.slice(0, 64))}... (${value.length} characters)`;
