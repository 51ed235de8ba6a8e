import { positional, wantString } from "../args.js";
import { moduleStruct } from "../compile.js";
import { fromBytes } from "../utf8.js";
import { Builtin, type Struct } from "../values/callable.js";
import type { Value } from "../values/core.js";
import { StarDict } from "../values/dict.js";

function field(d: Value, ...path: string[]): string {
  let cur: Value | undefined = d;
  for (const p of path) cur = cur instanceof StarDict ? cur.get(p) : undefined;
  return typeof cur === "string" ? fromBytes(cur) : "";
}

/**
 * The catalog function's own `krmfn` module (from starlark/v0.4.1): `match_gvk(resource, apiVersion,
 * kind)`, `match_name(resource, name)`, `match_namespace(resource, namespace)`. match_gvk follows the
 * functions SDK the release pins: before v0.5.1 KubeObject.IsGVK (equal apiVersion and kind, an empty
 * one matching any); from v0.5.1 IsGroupVersionKind with group "" and the argument as version, which
 * only a core-group resource (`v1`) can match.
 */
export function krmfnModule(exactGroupVersion = false): Struct {
  const str = (fn: string, what: string, v: Value) => fromBytes(wantString(fn, what, v));
  return moduleStruct("krmfn", {
    match_gvk: new Builtin("match_gvk", (_c, args, kwargs) => {
      const [r, a, k] = positional("match_gvk", args, kwargs, 3);
      const apiVersion = str("match_gvk", "apiVersion", a);
      const kind = str("match_gvk", "kind", k);
      const objApiVersion = field(r, "apiVersion");
      const objKind = field(r, "kind");
      if (exactGroupVersion)
        return !objApiVersion.includes("/") && objApiVersion === apiVersion && objKind === kind;
      return (
        (objApiVersion === apiVersion && objKind === kind) ||
        (apiVersion === "" && objKind === kind) ||
        (kind === "" && objApiVersion === apiVersion)
      );
    }),
    match_name: new Builtin("match_name", (_c, args, kwargs) => {
      const [r, n] = positional("match_name", args, kwargs, 2);
      return field(r, "metadata", "name") === str("match_name", "name", n);
    }),
    match_namespace: new Builtin("match_namespace", (_c, args, kwargs) => {
      const [r, n] = positional("match_namespace", args, kwargs, 2);
      return field(r, "metadata", "namespace") === str("match_namespace", "namespace", n);
    }),
  });
}
