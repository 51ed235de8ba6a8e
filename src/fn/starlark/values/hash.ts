import { fail } from "../errors.js";
import { Struct } from "./callable.js";
import { Bytes, None, StarFloat, typeName, type Value } from "./core.js";
import { StarTuple } from "./list.js";

/** A JS Map key for a hashable Starlark value: equal values (1 == 1.0) get the same key. */
export type HashKey = string | number | bigint | boolean | object;

export function hashKey(v: Value): HashKey {
  switch (typeof v) {
    case "string":
      return v.charCodeAt(0) === 1 ? `\x01s${v}` : v;
    case "number":
    case "bigint":
    case "boolean":
      return v;
  }
  if (v === None) return None;
  if (v instanceof StarFloat) {
    if (Number.isInteger(v.v)) {
      return Number.isSafeInteger(v.v) ? v.v : BigInt(v.v);
    }
    return v.v;
  }
  if (v instanceof Bytes) return `\x01b${v.b}`;
  if (v instanceof StarTuple) return `\x01t${v.elems.map((e) => keyString(hashKey(e))).join("\x02")}\x03`;
  const t = typeName(v);
  if (t === "list" || t === "dict" || t === "set") fail(`unhashable type: ${t}`);
  if (t === "elems" || t === "codepoints" || t === "range" || t === "module") fail(`unhashable: ${t}`);
  // a struct hashes by its fields (so fails on an unhashable one), then compares by identity here
  if (v instanceof Struct) for (const f of v.fields.values()) hashKey(f);
  // Functions and other reference types hash by identity.
  return v;
}

function keyString(k: HashKey): string {
  switch (typeof k) {
    case "string":
      return `s${k}`;
    case "number":
      return `n${k}`;
    case "bigint":
      return `n${k}`;
    case "boolean":
      return `b${k}`;
    default:
      // Reference values inside tuples key by type and name (rare: functions as parts of dict keys).
      return k === None
        ? "N"
        : `o${(k as { typeName?: string }).typeName}:${(k as { name?: string }).name ?? ""}`;
  }
}
