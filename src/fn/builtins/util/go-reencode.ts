import { type Document, isAlias, isMap, isScalar, isSeq, type Node, type Pair, Scalar } from "yaml";

/**
 * What a trip through Go maps and back does to a resource in the catalog functions built on kustomize's
 * resource map (set-namespace up to v0.2.0): the resource is decoded into `map[string]interface{}`,
 * marshalled as JSON and written again as YAML by a Go encoder. kpt then copies the input's comments
 * back and restores its key order, so what stays visible is the rest: every scalar is written in the
 * style the Go encoder picks for its value (quotes only where the value needs them, literal blocks for
 * multi-line text, `null` for an empty value), flow collections become block ones, aliases are expanded
 * and tags dropped; numbers and booleans are written as Go writes the decoded value.
 *
 * - `"int-preserving"`: kustomize's unstructured objects (api v0.7.1, yaml.v2): integers stay integers,
 *   a whole float (`1.0`) reads back as an integer, YAML 1.1 booleans (`yes`, `off`) become booleans.
 * - `"float64"`: kyaml's RNode JSON trip (api v0.8.11, yaml.v3): every number comes back as a float64
 *   and is written as Go's `%g` writes it (`1000000` → `1e+06`).
 */
export type GoTrip = "int-preserving" | "float64";

export function reencodeAsGo(doc: Document, trip: GoTrip): void {
  doc.contents = reencode(doc.contents as Node | null, doc, trip) as typeof doc.contents;
}

/** The same trip for one node of `doc` (a field the function sets from a Go value it decoded). */
export function reencodeNodeAsGo(node: Node, doc: Document, trip: GoTrip): Node {
  const out = reencode(node, doc, trip) ?? new Scalar(null);
  if (isScalar(out)) restyle(out, trip);
  return out;
}

const YAML11_BOOLS: Record<string, boolean> = Object.fromEntries([
  ...["y", "Y", "yes", "Yes", "YES", "on", "On", "ON"].map((s) => [s, true] as const),
  ...["n", "N", "no", "No", "NO", "off", "Off", "OFF"].map((s) => [s, false] as const),
]);

const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

function reencode(node: Node | null, doc: Document, trip: GoTrip): Node | null {
  if (node === null || node === undefined) return node;
  if (isAlias(node)) {
    const target = node.resolve(doc);
    return target ? reencode(target.clone() as Node, doc, trip) : new Scalar(null);
  }
  node.anchor = undefined;
  node.tag = undefined;
  if (isMap(node)) {
    if (node.items.length > 0) node.flow = false;
    for (const pair of node.items as Pair<Node | null, Node | null>[]) {
      pair.key = reencodeKey(pair.key, doc);
      pair.value = pair.value === null ? new Scalar(null) : reencode(pair.value, doc, trip);
      if (pair.value && isScalar(pair.value)) restyle(pair.value, trip);
    }
    return node;
  }
  if (isSeq(node)) {
    if (node.items.length > 0) node.flow = false;
    node.items = node.items.map((item) => {
      const out = reencode(item as Node | null, doc, trip) ?? new Scalar(null);
      if (isScalar(out)) restyle(out, trip);
      return out;
    });
    return node;
  }
  if (isScalar(node)) restyle(node, trip);
  return node;
}

/** JSON object keys are strings: a key reads back as the text it was written with. */
function reencodeKey(key: Node | null, doc: Document): Node | null {
  const resolved = isAlias(key) ? (key.resolve(doc) ?? null) : key;
  if (!isScalar(resolved)) return resolved;
  const out = resolved === key ? resolved : (resolved.clone() as Scalar);
  if (typeof out.value !== "string") out.value = out.source ?? String(out.value);
  out.anchor = undefined;
  out.tag = undefined;
  out.type = undefined;
  out.source = undefined;
  return out;
}

function restyle(node: Scalar, trip: GoTrip): void {
  node.anchor = undefined;
  node.tag = undefined;
  let value = node.value;
  if (trip === "int-preserving" && typeof value === "string" && node.type === "PLAIN") {
    const bool = YAML11_BOOLS[value];
    if (bool !== undefined) {
      node.value = bool;
      value = bool;
    }
  }
  node.type = undefined;
  if (typeof value === "string") {
    node.source = undefined;
    // Go's encoders quote what YAML 1.1 reads as a boolean or a base-60 float (`yes`, `1:20`).
    if (Object.hasOwn(YAML11_BOOLS, value) || BASE60_FLOAT.test(value)) node.type = "QUOTE_DOUBLE";
  } else if (value === null || value === undefined) {
    node.source = "null";
  } else if (typeof value === "boolean") {
    node.source = String(value);
  } else if (typeof value === "number" || typeof value === "bigint") {
    node.source = goNumber(value, trip);
  }
}

function goNumber(value: number | bigint, trip: GoTrip): string {
  if (typeof value === "bigint") return trip === "float64" ? goFloat(Number(value)) : value.toString();
  if (trip === "int-preserving" && Number.isInteger(value)) return BigInt(value).toString();
  return goFloat(value);
}

/** Go's `strconv.FormatFloat(f, 'g', -1, 64)` as yaml.v2/v3 write a float64 (`.inf`, `.nan` aside). */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return ".nan";
  if (f === Number.POSITIVE_INFINITY) return ".inf";
  if (f === Number.NEGATIVE_INFINITY) return "-.inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  // Shortest digits that read back as f, and the decimal exponent.
  const [mantissa, expText] = f.toExponential().split("e") as [string, string];
  const exp = Number(expText);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  const sign = negative ? "-" : "";
  // With the shortest digits Go decides by precision 6: `%e` from an exponent of 6 on.
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : "";
    const e = Math.abs(exp);
    return `${sign}${digits[0]}${frac}e${exp < 0 ? "-" : "+"}${e < 10 ? `0${e}` : e}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${"0".repeat(exp + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}
