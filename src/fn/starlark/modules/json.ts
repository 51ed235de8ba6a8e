import { positional, unpack } from "../args.js";
import { moduleStruct } from "../compile.js";
import { fail, StarlarkEvalError } from "../errors.js";
import { elementsOf } from "../ops.js";
import { decodeRune, fromBytes, REPLACEMENT } from "../utf8.js";
import { Builtin, type BuiltinImpl, Struct } from "../values/callable.js";
import { isInt, None, StarFloat, StarObject, typeName, type Value } from "../values/core.js";
import { HashTable, StarDict } from "../values/dict.js";
import { StarList, StarTuple } from "../values/list.js";
import { formatFloat, repr } from "../values/repr.js";
import { decodeJSON, indentJSON } from "./jsondecode.js";

const hex4 = (n: number) => `\\u${n.toString(16).padStart(4, "0")}`;

/**
 * A byte string as JSON, as lib/json quotes it: printable ASCII through Go's strconv.Quote (only `"`,
 * `\` and DEL escaped), anything else through Go's encoding/json (HTML-safe, control characters as
 * \uXXXX except \n \r \t, invalid UTF-8 as \ufffd, non-ASCII kept).
 */
function quote(s: string): string {
  if (/^[\x20-\x7f]*$/.test(s)) return `"${s.replace(/["\\]/g, (c) => `\\${c}`).replace(/\x7f/g, "\\x7f")}"`;
  let out = '"';
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      i++;
      if (c === 0x22 || c === 0x5c) out += `\\${s[i - 1]}`;
      else if (c === 0x0a) out += "\\n";
      else if (c === 0x0d) out += "\\r";
      else if (c === 0x09) out += "\\t";
      else if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26) out += hex4(c);
      else out += s[i - 1];
      continue;
    }
    const d = decodeRune(s, i);
    if (d.r === REPLACEMENT && d.size === 1) out += "\\ufffd";
    else if (d.r === 0x2028 || d.r === 0x2029) out += hex4(d.r);
    else out += s.slice(i, i + d.size);
    i += d.size;
  }
  return `${out}"`;
}

function encodeValue(v: Value, path: object[]): string {
  if (v === None) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (isInt(v)) return String(v);
  if (typeof v === "string") return quote(v);
  if (v instanceof StarFloat) {
    if (!Number.isFinite(v.v)) fail(`cannot encode non-finite float ${formatFloat(v.v)}`);
    return formatFloat(v.v);
  }
  if (!(v instanceof StarObject)) return fail(`cannot encode ${typeName(v)} as JSON`);
  if (path.includes(v)) fail("cycle in JSON structure");
  path.push(v);
  try {
    return encodeObject(v, path);
  } finally {
    path.pop();
  }
}

function nested(prefix: string, f: () => string): string {
  try {
    return f();
  } catch (e) {
    if (e instanceof StarlarkEvalError) e.message = `${fromBytes(prefix)}: ${e.message}`;
    throw e;
  }
}

function encodeObject(v: StarObject, path: object[]): string {
  if (v instanceof StarDict) {
    const entries = [...v.map.values()];
    for (const e of entries)
      if (typeof e.k !== "string") fail(`${v.typeName} has ${typeName(e.k)} key, want string`);
    entries.sort((a, b) => ((a.k as string) < (b.k as string) ? -1 : a.k === b.k ? 0 : 1));
    const parts = entries.map(
      (e) => `${quote(e.k as string)}:${nested(`in dict key ${repr(e.k)}`, () => encodeValue(e.v, path))}`,
    );
    return `{${parts.join(",")}}`;
  }
  const elems = v instanceof StarList || v instanceof StarTuple ? v.elems : elementsOf(v);
  if (elems !== undefined && !(v instanceof HashTable && v.typeName === "dict")) {
    const parts = elems.map((e, i) => nested(`at ${v.typeName} index ${i}`, () => encodeValue(e, path)));
    return `[${parts.join(",")}]`;
  }
  if (v instanceof Struct) {
    const names = [...v.fields.keys()].sort();
    const parts = names.map(
      (n) => `${quote(n)}:${nested(`in field .${n}`, () => encodeValue(v.fields.get(n) ?? None, path))}`,
    );
    return `{${parts.join(",")}}`;
  }
  return fail(`cannot encode ${v.typeName} as JSON`);
}

function wantStr(fname: string, n: number | string, v: Value): string {
  if (typeof v !== "string") fail(`${fname}: for parameter ${n}: got ${typeName(v)}, want string`);
  return v;
}

const impls: Record<string, BuiltinImpl> = {
  encode: (_ctx, args, kwargs) => {
    const [x] = positional("json.encode", args, kwargs, 1);
    return nested("json.encode", () => encodeValue(x, []));
  },
  decode: (_ctx, args, kwargs) => {
    const [x] = positional("json.decode", args, kwargs, 1);
    return decodeJSON(wantStr("json.decode", 1, x));
  },
  indent: (_ctx, args, kwargs) => {
    // prefix and indent are keyword-only; the JSON text is positional-only
    const [prefix, indent] = unpack("json.indent", [], kwargs, ["prefix?", "indent?"]);
    const [s] = positional("json.indent", args, [], 1);
    return indentJSON(
      wantStr("json.indent", 1, s),
      prefix === undefined ? "" : wantStr("json.indent", "prefix", prefix),
      indent === undefined ? "\t" : wantStr("json.indent", "indent", indent),
    );
  },
};

/** The `json` module of `load("encoding/json.star", "json")`: go.starlark.net/lib/json (encode, decode, indent). */
export function jsonModule(): Struct {
  const members: Record<string, Value> = {};
  for (const [n, impl] of Object.entries(impls)) members[n] = new Builtin(`json.${n}`, impl);
  return moduleStruct("json", members);
}
