import { createHash } from "node:crypto";
import { positional } from "../args.js";
import { moduleStruct } from "../compile.js";
import { fail } from "../errors.js";
import { Builtin, type Struct } from "../values/callable.js";
import { typeName } from "../values/core.js";

function digest(algorithm: "md5" | "sha1" | "sha256"): Builtin {
  const name = `hash.${algorithm}`;
  return new Builtin(name, (_c, args, kwargs) => {
    const [s] = positional(name, args, kwargs, 1);
    if (typeof s !== "string") fail(`${name}: for parameter 1: got ${typeName(s)}, want string`);
    // strings are byte strings: hash their bytes, return lower-case hex (Go's %x)
    return createHash(algorithm).update(Buffer.from(s, "latin1")).digest("hex");
  });
}

/** The `hash` module of `load("hash.star", "hash")` (qri-io/starlib hash): md5, sha1, sha256 as hex. */
export function hashModule(): Struct {
  return moduleStruct("hash", { md5: digest("md5"), sha1: digest("sha1"), sha256: digest("sha256") });
}
