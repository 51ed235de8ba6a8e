import { labelValueProblems, qualifiedNameProblems } from "../../api/object-meta.js";
import type { MetadataChanges } from "../../porch/metadata.js";
import { LATEST_LABEL } from "../../porch/objects.js";
import { UsageError } from "../io.js";

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

/** A value in a message: quoted, cut past 64 characters (a megabyte argument is not echoed back). */
const shortQuote = (value: string) =>
  value.length <= 64
    ? JSON.stringify(value)
    : `${JSON.stringify(value.slice(0, 64))}... (${value.length} characters)`;
