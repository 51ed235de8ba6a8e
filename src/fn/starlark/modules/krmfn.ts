import { positional, wantString } from "../args.js";
import { moduleStruct } from "../compile.js";
import { Builtin, type Struct } from "../values/callable.js";
import type { Value } from "../values/core.js";
import { StarDict } from "../values/dict.js";

function field(d: Value, ...path: string[]): string {
  let cur: Value | undefined = d;
  for (const p of path) cur = cur instanceof StarDict ? cur.get(p) : undefined;
  return typeof cur === "string" ? cur : "";
}

/** The catalog function's own `krmfn` module: `match_gvkn(resource, apiVersion, kind, name)`. */
export function krmfnModule(): Struct {
  return moduleStruct("krmfn", {
    match_gvkn: new Builtin("match_gvkn", (_c, args, kwargs) => {
      const [r, a, k, n] = positional("match_gvkn", args, kwargs, 4);
      return (
        field(r!, "apiVersion") === wantString("match_gvkn", "apiVersion", a!) &&
        field(r!, "kind") === wantString("match_gvkn", "kind", k!) &&
        field(r!, "metadata", "name") === wantString("match_gvkn", "name", n!)
      );
    }),
  });
}
