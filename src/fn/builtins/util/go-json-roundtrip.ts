import {
  type Document,
  isAlias,
  isCollection,
  isMap,
  isPair,
  isScalar,
  isSeq,
  type Node,
  Scalar,
} from "yaml";
import { resolvesAsString } from "../../../kpt/yaml/format-scalar.js";
import { pairKey } from "./kustomize-fieldspec.js";
import { scalarText } from "./yaml-scalar.js";

/**
 * What a trip through Go maps and back does to a resource in the old catalog functions built on
 * kustomize (set-namespace up to v0.2.0, set-labels and set-annotations v0.1.x): the resource is decoded
 * by a Go YAML library, marshalled as JSON, read back into `map[string]interface{}` and written again as
 * YAML by a Go encoder. Every scalar is decoded by the Go library's rules and encoded again, so quoting
 * is the encoder's (`'PROJECT_ID'` comes out as `PROJECT_ID`, `"8080"` stays quoted, a YAML 1.1 boolean
 * or base-60 number written as a string is double-quoted), multi-line text becomes a literal block,
 * numbers are re-printed from their value, tags and anchors are dropped, aliases expanded and flow
 * collections become block ones. kpt copies comments back and restores the order of existing fields, so
 * both are kept here; new fields are already where kpt puts them.
 *
 * - `"kunstruct"`: kustomize api v0.7.x's unstructured resources (kunstruct, `filtersutil.ApplyToJSON`
 *   on them): decoded by yaml.v2, so YAML 1.1's booleans (`yes`, `on`, …) are booleans, and integers
 *   stay integers (apimachinery's JSON reads integral numbers as int64; a whole float `1.0` comes back
 *   as `1`).
 * - `"kyaml"`: kyaml's RNode JSON trip (kustomize api v0.8.x, `filtersutil.ApplyToJSON`, an RNode's
 *   MarshalJSON): decoded by yaml.v3, read back from JSON as float64, so every number is printed as
 *   Go's `%g` of a float64 (`1000000` → `1e+06`).
 */
export type GoJsonTrip = "kunstruct" | "kyaml";

export function jsonRoundTrip(doc: Document, trip: GoJsonTrip): void {
  const contents = doc.contents as Node | null;
  if (contents === null) return;
  doc.contents = normalize(doc, contents, trip) as typeof doc.contents;
}

/** The same trip for one node of `doc` (a field the function sets from a Go value it decoded). */
export function jsonRoundTripNode(node: Node, doc: Document, trip: GoJsonTrip): Node {
  return normalize(doc, node, trip);
}

function normalize(doc: Document, node: Node, trip: GoJsonTrip): Node {
  if (isAlias(node)) {
    const target = node.resolve(doc);
    if (!target) return new Scalar(null);
    const copy = target.clone() as Node;
    copy.anchor = undefined;
    return normalize(doc, copy, trip);
  }
  if (isScalar(node)) {
    normalizeScalar(node, trip, false);
    return node;
  }
  if (isCollection(node)) {
    node.tag = undefined;
    node.anchor = undefined;
    node.flow = node.items.length === 0;
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        if (!isScalar(pair.key) && ["string", "number", "boolean"].includes(typeof pair.key)) {
          pair.key = new Scalar(pair.key);
        }
        if (isScalar(pair.key)) normalizeScalar(pair.key, trip, true);
        if (pair.value === null || pair.value === undefined) pair.value = new Scalar(null);
        pair.value = normalize(doc, pair.value as Node, trip);
      }
    } else if (isSeq(node)) {
      node.items = node.items.map((item) =>
        item === null || item === undefined ? new Scalar(null) : normalize(doc, item as Node, trip),
      );
    }
  }
  return node;
}

/** The scalar as the Go encoder writes the value the Go decoder read from it. */
function normalizeScalar(node: Scalar, trip: GoJsonTrip, isKey: boolean): void {
  const value = goValue(node, trip);
  node.tag = undefined;
  node.anchor = undefined;
  node.format = undefined;
  node.minFractionDigits = undefined;
  if (typeof value === "string" || isKey) {
    const text = typeof value === "string" ? value : value.text;
    node.value = text;
    node.source = text;
    node.type = encoderStyle(text);
    return;
  }
  node.value = value.value;
  node.source = value.text;
  node.type = Scalar.PLAIN;
}

interface TypedValue {
  value: number | boolean | null;
  /** The text the encoder writes for it. */
  text: string;
}

/** A string, or a non-string value with the text the round trip prints for it. */
function goValue(node: Scalar, trip: GoJsonTrip): string | TypedValue {
  const quoted = node.type !== undefined && node.type !== Scalar.PLAIN;
  const explicitStr = node.tag === "tag:yaml.org,2002:str" || node.tag === "!!str";
  if (typeof node.value === "string") {
    // Plain text as it was read is resolved by the Go decoder's rules; a string set since is a string.
    const parsedPlain = !quoted && !explicitStr && node.source === node.value;
    return parsedPlain ? resolvePlain(node.value, trip) : node.value;
  }
  // A parsed `.inf` or `.nan` keeps its YAML spelling (JavaScript would write `Infinity`).
  const value = node.value;
  const text = typeof value === "number" && !Number.isFinite(value) ? goFormatFloat(value) : scalarText(node);
  if (quoted || explicitStr) return text;
  return resolvePlain(text, trip);
}

const YAML11_TRUE = new Set(["y", "Y", "yes", "Yes", "YES", "on", "On", "ON"]);
const YAML11_FALSE = new Set(["n", "N", "no", "No", "NO", "off", "Off", "OFF"]);
const NULLS = new Set(["", "~", "null", "Null", "NULL"]);
const FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

function resolvePlain(text: string, trip: GoJsonTrip): string | TypedValue {
  if (NULLS.has(text)) return { value: null, text: "null" };
  if (["true", "True", "TRUE"].includes(text)) return { value: true, text: "true" };
  if (["false", "False", "FALSE"].includes(text)) return { value: false, text: "false" };
  if (trip === "kunstruct") {
    if (YAML11_TRUE.has(text)) return { value: true, text: "true" };
    if (YAML11_FALSE.has(text)) return { value: false, text: "false" };
  }
  const c = text[0];
  if (c === undefined || !((c >= "0" && c <= "9") || c === "-" || c === "+" || c === ".")) return text;
  const special = specialFloat(text);
  if (special !== undefined) return special;
  const plain = text.replaceAll("_", "");
  const int = parseGoInt(plain);
  if (int !== undefined) return numberValue(int, trip);
  if (FLOAT.test(plain)) {
    const f = Number(plain);
    if (!Number.isNaN(f)) return floatValue(f, trip);
  }
  return text;
}

function specialFloat(text: string): TypedValue | undefined {
  if ([".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"].includes(text))
    return { value: Number.POSITIVE_INFINITY, text: ".inf" };
  if (["-.inf", "-.Inf", "-.INF"].includes(text)) return { value: Number.NEGATIVE_INFINITY, text: "-.inf" };
  if ([".nan", ".NaN", ".NAN"].includes(text)) return { value: Number.NaN, text: ".nan" };
  return undefined;
}

/** Go's strconv.ParseInt/ParseUint(s, 0, 64): sign, 0x / 0o / 0b / leading-0 octal prefixes. */
function parseGoInt(text: string): bigint | undefined {
  const m = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(text);
  if (!m) return undefined;
  //  group 2 is not optional: it matched
  const digits = m[2]!;
  let n: bigint;
  if (/^0[oO]/.test(digits)) n = BigInt(`0o${digits.slice(2)}`);
  else if (/^0[0-7]+$/.test(digits)) n = BigInt(`0o${digits.slice(1)}`);
  else n = BigInt(digits);
  if (m[1] === "-") n = -n;
  const max = 2n ** 64n - 1n;
  if (n > max || n < -(2n ** 63n)) return undefined;
  return n;
}

const INT64_MAX = 2n ** 63n - 1n;

function numberValue(n: bigint, trip: GoJsonTrip): TypedValue {
  // An integer beyond int64 travels as a uint64, which the JSON reader takes for a float64.
  if (trip === "kyaml" || n > INT64_MAX) return floatValue(Number(n), trip);
  return { value: Number(n), text: n.toString() };
}

function floatValue(f: number, trip: GoJsonTrip): TypedValue {
  // kunstruct trip: encoding/json prints an integral float below 1e21 as an integer, which
  // apimachinery reads back as an int64.
  if (trip === "kunstruct" && Number.isInteger(f) && Math.abs(f) < 2 ** 63) {
    return { value: f, text: BigInt(f).toString() };
  }
  return { value: f, text: goFormatFloat(f) };
}

/** Go's strconv.FormatFloat(f, 'g', -1, 64), with YAML's spellings of infinity and NaN. */
export function goFormatFloat(f: number): string {
  if (Number.isNaN(f)) return ".nan";
  if (f === Number.POSITIVE_INFINITY) return ".inf";
  if (f === Number.NEGATIVE_INFINITY) return "-.inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const [mantissa, expText] = f.toExponential().split("e") as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? "-" : "+";
    const abs = Math.abs(exp);
    return `${mantissa}e${sign}${abs < 10 ? `0${abs}` : abs}`;
  }
  return String(f);
}

const OLD_BOOLS = new Set([...YAML11_TRUE, ...YAML11_FALSE]);
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/**
 * The style both Go encoders give a string: a literal block when it spans lines, plain when its plain
 * text reads back as the same string (and is not a YAML 1.1 boolean or sexagesimal number), else
 * double-quoted. Where YAML does not allow the chosen style the kpt writer falls back as libyaml does.
 */
export function encoderStyle(text: string): Scalar.Type {
  if (text.includes("\n")) return Scalar.BLOCK_LITERAL;
  if (resolvesAsString(text) && !OLD_BOOLS.has(text) && !BASE60_FLOAT.test(text)) return Scalar.PLAIN;
  return Scalar.QUOTE_DOUBLE;
}

/** Whether kyaml's IsYaml1_1NonString holds: a YAML 1.1 reader takes the text for a non-string. */
export function isYaml11NonString(text: string): boolean {
  if (text === "" || text.includes("\n")) return false;
  return typeof resolvePlain(text, "kunstruct") !== "string";
}

/**
 * The order kpt leaves a function's output in after a JSON round trip: kyaml's SyncOrder puts the
 * fields the input had back in the input's order and leaves the others after them, in the order the Go
 * encoder wrote them (its map key order, goKeyLess). `before` is the resource as the function got it.
 */
export function syncOrder(before: Node | null | undefined, after: Node | null | undefined): void {
  if (isMap(after)) {
    const known = isMap(before) ? before : undefined;
    const keyOf = (p: unknown) => pairKey(p) ?? "";
    const order = new Map<string, number>();
    for (const [i, p] of (known?.items ?? []).entries()) order.set(keyOf(p), i);
    after.items.sort((a, b) => {
      const ia = order.get(keyOf(a));
      const ib = order.get(keyOf(b));
      if (ia !== undefined && ib !== undefined) return ia - ib;
      if (ia !== undefined) return -1;
      if (ib !== undefined) return 1;
      return goKeyCompare(keyOf(a), keyOf(b));
    });
    for (const pair of after.items) {
      if (!isPair(pair)) continue;
      const from = known?.items.find((p) => keyOf(p) === keyOf(pair));
      syncOrder(isPair(from) ? (from.value as Node) : undefined, pair.value as Node);
    }
    return;
  }
  if (isSeq(after)) {
    after.items.forEach((item, i) => {
      syncOrder(isSeq(before) ? (before.items[i] as Node) : undefined, item as Node);
    });
  }
}

/** The Go YAML encoders' map key order (go-yaml's keyList.Less): numbers within keys compare by value. */
function goKeyCompare(a: string, b: string): number {
  if (a === b) return 0;
  return goKeyLess(a, b) ? -1 : 1;
}

function goKeyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  const isDigit = (c: string) => c >= "0" && c <= "9";
  const isLetter = (c: string) => /\p{L}/u.test(c);
  let digits = false;
  // a character of ar or br ("" past the end: no digit, no letter)
  const of = (r: readonly string[], k: number): string => r[k] ?? "";
  const codePoint = (c: string): number => c.codePointAt(0) ?? 0;
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const x = of(ar, i);
    const y = of(br, i);
    if (x === y) {
      digits = isDigit(x);
      continue;
    }
    const al = isLetter(x);
    const bl = isLetter(y);
    if (al && bl) return codePoint(x) < codePoint(y);
    if (al || bl) return digits ? al : bl;
    let an = 0n;
    let bn = 0n;
    if (x === "0" || y === "0") {
      for (let j = i - 1; j >= 0 && isDigit(of(ar, j)); j--) {
        if (ar[j] !== "0") {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(of(ar, ai)); ai++) an = an * 10n + BigInt(of(ar, ai));
    for (; bi < br.length && isDigit(of(br, bi)); bi++) bn = bn * 10n + BigInt(of(br, bi));
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return codePoint(x) < codePoint(y);
  }
  return ar.length < br.length;
}
