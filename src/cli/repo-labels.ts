import { labelValueProblems, qualifiedNameProblems } from "../api/object-meta.js";
import { UsageError } from "./io.js";

/**
 * `--labels k=v,k2=v2` of `repo register`: the registration's `metadata.labels`, which PackageVariantSet
 * label selectors select repositories by. Each key and value is checked as Kubernetes checks labels, so
 * a registration `kubectl apply` takes back is never written with one it would refuse.
 */
export function parseLabels(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of text.split(",")) {
    if (pair.trim() === "") continue;
    const eq = pair.indexOf("=");
    if (eq < 0)
      throw new UsageError(
        `porchlight repo register: --labels: "${pair}" is not KEY=VALUE (for example env=prod,tier=edge)`,
      );
    const key = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const keyProblems = qualifiedNameProblems(key);
    if (keyProblems.length > 0)
      throw new UsageError(
        `porchlight repo register: --labels: "${key}" is not a label key: ${keyProblems.join("; ")}`,
      );
    const valueProblems = labelValueProblems(value);
    if (valueProblems.length > 0)
      throw new UsageError(
        `porchlight repo register: --labels: the value "${value}" of ${key} is not a label value: ${valueProblems.join("; ")}`,
      );
    out[key] = value;
  }
  return out;
}
