import { fail } from "../errors.js";
import { suggest } from "../spell.js";
import { Builtin, Struct } from "../values/callable.js";
import type { Value } from "../values/core.js";
import { typeName } from "../values/core.js";
import { StarDict, StarSet } from "../values/dict.js";
import { StarList } from "../values/list.js";
import { DICT_METHODS, SET_METHODS } from "./dict.js";
import { LIST_METHODS } from "./list.js";
import { STRING_METHODS } from "./string.js";
import type { Method } from "./types.js";

function own<R>(table: Record<string, Method<R>>, name: string): Method<R> | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

/** The builtin method `name` of a value's type, if any. */
export function lookupMethod(recv: Value, name: string): Method | undefined {
  if (typeof recv === "string") return own(STRING_METHODS, name) as Method | undefined;
  if (recv instanceof StarDict) return own(DICT_METHODS, name) as Method | undefined;
  if (recv instanceof StarList) return own(LIST_METHODS, name) as Method | undefined;
  if (recv instanceof StarSet) return own(SET_METHODS, name) as Method | undefined;
  return undefined;
}

function methodNames(recv: Value): string[] {
  if (typeof recv === "string") return Object.keys(STRING_METHODS);
  if (recv instanceof StarDict) return Object.keys(DICT_METHODS);
  if (recv instanceof StarList) return Object.keys(LIST_METHODS);
  if (recv instanceof StarSet) return Object.keys(SET_METHODS);
  if (recv instanceof Struct) return [...recv.fields.keys()];
  return [];
}

/** The attribute names of a value (for dir()), sorted. */
export function attrNames(recv: Value): string[] {
  return methodNames(recv).sort();
}

/** Attribute lookup `x.name`: struct/module fields, then methods bound to the receiver. */
export function getAttr(recv: Value, name: string): Value {
  if (recv instanceof Struct) {
    const v = recv.fields.get(name);
    if (v !== undefined) return v;
    const names = recv.fields.keys();
    if (recv.typeName === "module") fail(suggest(`module has no .${name} field or method`, name, names, "."));
    fail(suggest(`struct has no .${name} attribute`, name, names, "."));
  }
  const m = lookupMethod(recv, name);
  if (m)
    return new Builtin(name, (thread, args, kwargs) => m(thread as never, recv, args, kwargs, name), recv);
  return fail(suggest(`${typeName(recv)} has no .${name} field or method`, name, methodNames(recv), "."));
}

export function hasAttr(recv: Value, name: string): boolean {
  if (recv instanceof Struct) return recv.fields.has(name);
  return lookupMethod(recv, name) !== undefined;
}
