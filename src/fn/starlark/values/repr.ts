import { isPrint, REPLACEMENT, runes } from "../utf8.js";
import { Builtin, Struct } from "./callable.js";
import { Bytes, None, StarFloat, type Value } from "./core.js";
import { HashTable } from "./dict.js";
import { StarList, StarRange, StarTuple } from "./list.js";
import { StringIterable } from "./strings.js";

const ESC: Record<string, string> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  '"': '\\"',
  "\\": "\\\\",
};

/** Quotes a byte string as Go starlark's repr does: runes kept when printable, invalid bytes as \xNN. */
export function quote(s: string): string {
  if (/^[\x20-\x7e]*$/.test(s) && !/["\\]/.test(s)) return `"${s}"`;
  let out = '"';
  for (const { r, i, size } of runes(s)) {
    const ch = String.fromCharCode(r);
    const e = r < 0x80 ? ESC[ch] : undefined;
    if (e) out += e;
    else if (r === REPLACEMENT && size === 1) out += `\\x${s.charCodeAt(i).toString(16).padStart(2, "0")}`;
    else if (isPrint(r)) out += s.slice(i, i + size);
    else if (r < 0x80) out += `\\x${r.toString(16).padStart(2, "0")}`;
    else if (r < 0x10000) out += `\\u${r.toString(16).padStart(4, "0")}`;
    else out += `\\U${r.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

function quoteBytes(b: string): string {
  let out = 'b"';
  for (const ch of b) {
    const e = ESC[ch];
    const c = ch.charCodeAt(0);
    if (e) out += e;
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else out += `\\x${c.toString(16).padStart(2, "0")}`;
  }
  return `${out}"`;
}

/** Formats a float as Go starlark's str() does (shortest %g, always with '.' or an exponent). */
export function formatFloat(f: number): string {
  if (Number.isNaN(f)) return "nan";
  if (f === Number.POSITIVE_INFINITY) return "+inf";
  if (f === Number.NEGATIVE_INFINITY) return "-inf";
  if (f === 0) return Object.is(f, -0) ? "-0.0" : "0.0";
  const [mant, expStr] = f.toExponential().split("e") as [string, string];
  const exp = Number(expStr);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? "-" : "+";
    return `${mant}e${sign}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  const s = f.toString();
  return s.includes(".") ? s : `${s}.0`;
}

export function str(v: Value): string {
  return typeof v === "string" ? v : repr(v);
}

export function repr(v: Value, path: object[] = []): string {
  switch (typeof v) {
    case "boolean":
      return v ? "True" : "False";
    case "number":
    case "bigint":
      return String(v);
    case "string":
      return quote(v);
  }
  if (v === None) return "None";
  if (v instanceof StarFloat) return formatFloat(v.v);
  if (v instanceof Bytes) return quoteBytes(v.b);
  if (v instanceof StarList) {
    if (path.includes(v)) return "[...]";
    path.push(v);
    const s = `[${v.elems.map((e) => repr(e, path)).join(", ")}]`;
    path.pop();
    return s;
  }
  if (v instanceof StarTuple) {
    const parts = v.elems.map((e) => repr(e, path));
    return parts.length === 1 ? `(${parts[0]},)` : `(${parts.join(", ")})`;
  }
  if (v instanceof HashTable) {
    if (path.includes(v)) return v.typeName === "set" ? "set([...])" : "{...}";
    path.push(v);
    let s: string;
    if (v.typeName === "set")
      s = `set([${v
        .keys()
        .map((k) => repr(k, path))
        .join(", ")}])`;
    else {
      const parts: string[] = [];
      for (const e of v.map.values()) parts.push(`${repr(e.k, path)}: ${repr(e.v, path)}`);
      s = `{${parts.join(", ")}}`;
    }
    path.pop();
    return s;
  }
  if (v instanceof StringIterable) return `${quote(v.s)}.${v.method}()`;
  if (v instanceof StarRange) {
    if (v.step !== 1) return `range(${v.start}, ${v.stop}, ${v.step})`;
    return v.start !== 0 ? `range(${v.start}, ${v.stop})` : `range(${v.stop})`;
  }
  if (v instanceof Builtin) {
    if (v.recv !== undefined) {
      return `<built-in method ${v.name} of ${typeof v.recv === "object" ? v.recv.typeName : typeof v.recv === "string" ? "string" : "int"} value>`;
    }
    return `<built-in function ${v.name}>`;
  }
  if (v instanceof Struct) {
    if (v.typeName === "module") return `<module "${v.name}">`;
    const names = [...v.fields.keys()].sort();
    return `struct(${names.map((n) => `${n} = ${repr(v.fields.get(n) ?? None, path)}`).join(", ")})`;
  }
  const named = v as { name?: string };
  return `<${v.typeName} ${named.name ?? ""}>`;
}
