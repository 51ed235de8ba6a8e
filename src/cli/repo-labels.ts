import { UsageError } from "./io.js";

/** A label key as Kubernetes takes it: an optional DNS-subdomain prefix and `/`, then a name of at most 63. */
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** A label value: empty, or a name of at most 63. */
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

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
    const slash = key.lastIndexOf("/");
    const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
    const name = slash >= 0 ? key.slice(slash + 1) : key;
    if (!NAME.test(name) || (prefix !== undefined && (prefix.length > 253 || !PREFIX.test(prefix))))
      throw new UsageError(
        `porchlight repo register: --labels: "${key}" is not a label key: a name of at most 63 letters, digits, '-', '_' and '.' starting and ending with a letter or digit, optionally after a DNS prefix and '/'`,
      );
    if (!VALUE.test(value))
      throw new UsageError(
        `porchlight repo register: --labels: the value "${value}" of ${key} is not a label value: at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit`,
      );
    out[key] = value;
  }
  return out;
}
