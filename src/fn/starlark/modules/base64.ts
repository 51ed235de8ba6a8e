import { unpack, wantString } from "../args.js";
import { moduleStruct } from "../compile.js";
import { fail } from "../errors.js";
import { Builtin, type Struct } from "../values/callable.js";

const ENCODINGS: Record<string, BufferEncoding> = { standard: "base64", url: "base64url" };

function encoding(fname: string, v: unknown): { enc: BufferEncoding; raw: boolean } {
  const name = v === undefined ? "standard" : wantString(fname, "encoding", v as string);
  const raw = name.endsWith("_raw");
  const enc = ENCODINGS[raw ? name.slice(0, -4) : name];
  if (!enc) fail(`${fname}: unsupported encoding format: ${name}`);
  return { enc, raw };
}

/** The `base64` module of `load("encoding/base64.star", "base64")` (qri-io/starlib). */
export function base64Module(): Struct {
  return moduleStruct("base64", {
    encode: new Builtin("base64.encode", (_c, args, kwargs) => {
      const [data, e] = unpack("encode", args, kwargs, ["data", "encoding?"]);
      const { enc, raw } = encoding("encode", e);
      let out = Buffer.from(wantString("encode", "data", data), "latin1").toString(enc);
      if (raw) out = out.replace(/=+$/, "");
      else if (enc === "base64url") out += "=".repeat((4 - (out.length % 4)) % 4);
      return out;
    }),
    decode: new Builtin("base64.decode", (_c, args, kwargs) => {
      const [data, e] = unpack("decode", args, kwargs, ["data", "encoding?"]);
      const { enc } = encoding("decode", e);
      return Buffer.from(wantString("decode", "data", data), enc).toString("latin1");
    }),
  });
}
