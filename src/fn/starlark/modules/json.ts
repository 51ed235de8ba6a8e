import { positional, unpack, wantString } from "../args.js";
import { moduleStruct } from "../compile.js";
import { fail } from "../errors.js";
import { Builtin, type BuiltinImpl, type Struct } from "../values/callable.js";
import { isInt, None, StarFloat, typeName, type Value } from "../values/core.js";
import { StarDict } from "../values/dict.js";
import { StarList, StarTuple } from "../values/list.js";
import { formatFloat } from "../values/repr.js";

function encodeValue(v: Value, path: object[]): string {
  if (v === None) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (isInt(v)) return String(v);
  if (typeof v === "string") return JSON.stringify(v);
  if (v instanceof StarFloat) {
    if (!Number.isFinite(v.v)) fail(`json.encode: cannot encode non-finite float ${formatFloat(v.v)}`);
    return Number.isInteger(v.v) && Math.abs(v.v) < 1e21 ? String(v.v) : String(v.v).replace("e+", "e+");
  }
  if (v instanceof StarList || v instanceof StarTuple) {
    if (path.includes(v)) fail("json.encode: cycle in JSON structure");
    path.push(v);
    const s = `[${v.elems.map((e) => encodeValue(e, path)).join(",")}]`;
    path.pop();
    return s;
  }
  if (v instanceof StarDict) {
    if (path.includes(v)) fail("json.encode: cycle in JSON structure");
    path.push(v);
    const entries = [...v.map.values()];
    for (const e of entries)
      if (typeof e.k !== "string") fail(`json.encode: dict has ${typeName(e.k)} key, want string`);
    entries.sort((a, b) => ((a.k as string) < (b.k as string) ? -1 : 1));
    const s = `{${entries.map((e) => `${JSON.stringify(e.k)}:${encodeValue(e.v, path)}`).join(",")}}`;
    path.pop();
    return s;
  }
  return fail(`json.encode: cannot encode ${typeName(v)} as JSON`);
}

/** Converts parsed JSON (or YAML data) to Starlark values: integral numbers become ints. */
export function fromPlain(x: unknown): Value {
  if (x === null || x === undefined) return None;
  if (typeof x === "boolean" || typeof x === "string" || typeof x === "bigint") return x;
  if (typeof x === "number") return Number.isSafeInteger(x) ? x : new StarFloat(x);
  if (Array.isArray(x)) return new StarList(x.map(fromPlain));
  const d = new StarDict();
  for (const [k, v] of Object.entries(x as Record<string, unknown>)) d.set(k, fromPlain(v));
  return d;
}

function decode(s: string): Value {
  let parsed: unknown;
  try {
    // Keep integers exact: re-parse integer literals beyond the safe range as bigint.
    parsed = JSON.parse(s, (_k, v, ctx?: { source?: string }) => {
      if (typeof v === "number" && ctx?.source && /^-?\d+$/.test(ctx.source) && !Number.isSafeInteger(v)) {
        return BigInt(ctx.source);
      }
      if (typeof v === "number" && ctx?.source && /[.eE]/.test(ctx.source)) return { __float: v };
      return v;
    });
  } catch (e) {
    return fail(`json.decode: ${(e as Error).message}`);
  }
  const conv = (x: unknown): Value => {
    if (x && typeof x === "object" && "__float" in x && Object.keys(x).length === 1)
      return new StarFloat((x as { __float: number }).__float);
    if (Array.isArray(x)) return new StarList(x.map(conv));
    if (x && typeof x === "object") {
      const d = new StarDict();
      for (const [k, v] of Object.entries(x)) d.set(k, conv(v));
      return d;
    }
    return fromPlain(x);
  };
  return conv(parsed);
}

function indentJSON(s: string, prefix: string, indent: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(s);
  } catch (e) {
    return fail(`json.indent: ${(e as Error).message}`);
  }
  const out = JSON.stringify(parsed, null, indent || undefined) ?? "";
  return out.split("\n").join(`\n${prefix}`);
}

const impls: Record<string, BuiltinImpl> = {
  encode: (_ctx, args, kwargs) => {
    const [x] = positional("json.encode", args, kwargs, 1);
    return encodeValue(x!, []);
  },
  decode: (_ctx, args, kwargs) => {
    const [x] = positional("json.decode", args, kwargs, 1);
    return decode(wantString("json.decode", "x", x!));
  },
  indent: (_ctx, args, kwargs) => {
    const [s, prefix, indent] = unpack("json.indent", args, kwargs, ["str", "prefix?", "indent?"]);
    return indentJSON(
      wantString("json.indent", "str", s!),
      prefix === undefined ? "" : wantString("json.indent", "prefix", prefix),
      indent === undefined ? "\t" : wantString("json.indent", "indent", indent),
    );
  },
  encode_indent: (_ctx, args, kwargs) => {
    const [x, prefix, indent] = unpack("json.encode_indent", args, kwargs, ["x", "prefix?", "indent?"]);
    return indentJSON(
      encodeValue(x!, []),
      prefix === undefined ? "" : wantString("json.encode_indent", "prefix", prefix),
      indent === undefined ? "\t" : wantString("json.encode_indent", "indent", indent),
    );
  },
};

/** The `json` module of `load("encoding/json.star", "json")` (go.starlark.net/lib/json). */
export function jsonModule(): Struct {
  const members: Record<string, Value> = {};
  for (const [n, impl] of Object.entries(impls)) members[n] = new Builtin(`json.${n}`, impl);
  return moduleStruct("json", members);
}
