import { isUtf8 } from "node:buffer";
import { KptError } from "../errors.js";

/**
 * A package file's text, as kpt reads it: UTF-8 or nothing. kpt (yaml.v3) refuses any other byte
 * with "invalid leading UTF-8 octet"; decoding with replacement characters instead would let a
 * Latin-1 `ü` become U+FFFD and be committed as such, rewriting bytes nobody asked to change.
 * Throws a KptError naming the file, line, column and byte offset of the first bad byte.
 */
export function decodeUtf8(bytes: Buffer, file: string): string {
  if (isUtf8(bytes)) return bytes.toString("utf8");
  const offset = firstInvalidByte(bytes);
  const before = bytes.subarray(0, offset);
  const lineStart = before.lastIndexOf(10) + 1;
  const line = before.filter((b) => b === 10).length + 1;
  const column = Buffer.from(bytes.subarray(lineStart, offset)).toString("utf8").length + 1;
  const hex = `0x${bytes[offset]?.toString(16).padStart(2, "0") ?? "??"}`;
  throw new KptError(
    { file, line, column },
    `not valid UTF-8: byte ${hex} at byte offset ${offset}; kpt reads YAML as UTF-8 only: save the file as UTF-8 (for Latin-1: iconv -f latin1 -t utf-8) and run again`,
  );
}

/** The offset of the first byte that does not start or continue a valid UTF-8 sequence. */
export function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    const need =
      b < 0x80
        ? 0
        : b >= 0xc2 && b <= 0xdf
          ? 1
          : b >= 0xe0 && b <= 0xef
            ? 2
            : b >= 0xf0 && b <= 0xf4
              ? 3
              : -1;
    if (need < 0) return i;
    if (need > 0 && !isUtf8(bytes.subarray(i, i + need + 1))) return i;
    i += need + 1;
  }
  return bytes.length;
}
