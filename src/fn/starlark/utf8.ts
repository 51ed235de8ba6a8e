/**
 * Starlark strings are byte strings, as in Go: `len` counts UTF-8 bytes and indexing and slicing are by
 * byte. Inside the interpreter a string value is a JS string with one char (0..255) per byte; text from
 * outside (script source, YAML, JSON) is encoded on the way in and decoded on the way out.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: byte strings are matched by byte range
const ASCII = /^[\x00-\x7f]*$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: byte strings are matched by byte range
const ABOVE_BYTE = /[^\u0000-\u00ff]/;

/** Encodes JS text as a Starlark byte string (its UTF-8 bytes, one char each). */
export function toBytes(text: string): string {
  return ASCII.test(text) ? text : Buffer.from(text, "utf8").toString("latin1");
}

/**
 * Decodes a Starlark byte string to JS text (invalid UTF-8 becomes U+FFFD). A string holding chars above
 * 0xff is already text and is returned unchanged.
 */
export function fromBytes(bytes: string): string {
  if (ASCII.test(bytes) || ABOVE_BYTE.test(bytes)) return bytes;
  return Buffer.from(bytes, "latin1").toString("utf8");
}

export const REPLACEMENT = 0xfffd;

/**
 * Decodes the rune at byte offset i as Go's utf8.DecodeRuneInString does: an invalid or truncated
 * sequence yields U+FFFD with size 1.
 */
export function decodeRune(s: string, i: number): { r: number; size: number } {
  const b0 = s.charCodeAt(i);
  if (b0 < 0x80) return { r: b0, size: 1 };
  const bad = { r: REPLACEMENT, size: 1 };
  const cont = (k: number) => {
    const b = s.charCodeAt(i + k);
    return b >= 0x80 && b <= 0xbf ? b & 0x3f : -1;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    const c1 = cont(1);
    return c1 < 0 ? bad : { r: ((b0 & 0x1f) << 6) | c1, size: 2 };
  }
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const c1 = cont(1);
    const c2 = cont(2);
    if (c1 < 0 || c2 < 0) return bad;
    const r = ((b0 & 0x0f) << 12) | (c1 << 6) | c2;
    return r < 0x800 || (r >= 0xd800 && r <= 0xdfff) ? bad : { r, size: 3 };
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const c1 = cont(1);
    const c2 = cont(2);
    const c3 = cont(3);
    if (c1 < 0 || c2 < 0 || c3 < 0) return bad;
    const r = ((b0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3;
    return r < 0x10000 || r > 0x10ffff ? bad : { r, size: 4 };
  }
  return bad;
}

/** The rune ending at byte offset `end` (exclusive), as Go's utf8.DecodeLastRuneInString. */
export function decodeLastRune(s: string, end: number): { r: number; size: number } {
  const start = Math.max(0, end - 4);
  for (let i = end - 1; i >= start; i--) {
    const b = s.charCodeAt(i);
    if (b < 0x80 || b >= 0xc0) {
      const d = decodeRune(s, i);
      return i + d.size === end ? d : { r: REPLACEMENT, size: 1 };
    }
  }
  return { r: REPLACEMENT, size: 1 };
}

/** The runes of a byte string with their byte offsets and sizes. */
export function* runes(s: string): Generator<{ r: number; i: number; size: number }> {
  for (let i = 0; i < s.length; ) {
    const d = decodeRune(s, i);
    yield { r: d.r, i, size: d.size };
    i += d.size;
  }
}

/** The UTF-8 encoding of one code point, as a byte string. */
export function encodeRune(r: number): string {
  if (r < 0x80) return String.fromCharCode(r);
  if (r >= 0xd800 && r <= 0xdfff) r = REPLACEMENT;
  if (r < 0x800) return String.fromCharCode(0xc0 | (r >> 6), 0x80 | (r & 0x3f));
  if (r < 0x10000) return String.fromCharCode(0xe0 | (r >> 12), 0x80 | ((r >> 6) & 0x3f), 0x80 | (r & 0x3f));
  return String.fromCharCode(
    0xf0 | (r >> 18),
    0x80 | ((r >> 12) & 0x3f),
    0x80 | ((r >> 6) & 0x3f),
    0x80 | (r & 0x3f),
  );
}

/** Maps each rune through `f` (Go's strings.Map); invalid bytes become U+FFFD as in Go. */
export function mapRunes(s: string, f: (r: number, index: number) => number): string {
  if (ASCII.test(s)) {
    let out = "";
    for (let i = 0; i < s.length; i++) out += String.fromCharCode(f(s.charCodeAt(i), i));
    if (ASCII.test(out)) return out;
  }
  let out = "";
  let n = 0;
  for (const { r } of runes(s)) out += encodeRune(f(r, n++));
  return out;
}

/** Number of runes (Go's utf8.RuneCountInString). */
export function runeCount(s: string): number {
  if (ASCII.test(s)) return s.length;
  let n = 0;
  for (const _ of runes(s)) n++;
  return n;
}

const chr = (r: number) => String.fromCodePoint(r);

/** Go's unicode.IsSpace. */
export function isSpace(r: number): boolean {
  if (r <= 0xff) return r === 0x20 || (r >= 0x09 && r <= 0x0d) || r === 0x85 || r === 0xa0;
  return /\s/u.test(chr(r)) && r !== 0xfeff;
}

export const isLetter = (r: number) => /\p{L}/u.test(chr(r));
export const isDigit = (r: number) => /\p{Nd}/u.test(chr(r));
export const isUpper = (r: number) => /\p{Lu}/u.test(chr(r));
export const isLower = (r: number) => /\p{Ll}/u.test(chr(r));
export const isTitle = (r: number) => /\p{Lt}/u.test(chr(r));

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export function isPrint(r: number): boolean {
  if (r < 0x80) return r >= 0x20 && r < 0x7f;
  return /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(chr(r));
}

/** A simple (one rune to one rune) case mapping, as Go's unicode.ToUpper/ToLower/ToTitle. */
function simpleCase(r: number, f: (s: string) => string): number {
  const m = f(chr(r));
  const cp = m.codePointAt(0) ?? r;
  return m.length === chr(cp).length ? cp : r;
}

export const toUpperRune = (r: number) =>
  r < 0x80 ? (r >= 0x61 && r <= 0x7a ? r - 32 : r) : simpleCase(r, (s) => s.toUpperCase());
export const toLowerRune = (r: number) =>
  r < 0x80 ? (r >= 0x41 && r <= 0x5a ? r + 32 : r) : simpleCase(r, (s) => s.toLowerCase());
/** Title case: the upper case except for the few digraphs with their own title form (ǅ). */
export function toTitleRune(r: number): number {
  const titles: Record<number, number> = {
    452: 0x1c5,
    453: 0x1c5,
    454: 0x1c5,
    455: 0x1c8,
    456: 0x1c8,
    457: 0x1c8,
    458: 0x1cb,
    459: 0x1cb,
    460: 0x1cb,
    497: 0x1f2,
    498: 0x1f2,
    499: 0x1f2,
  };
  return titles[r] ?? toUpperRune(r);
}

/** Go's isCasedRune in library.go: ASCII letters, or a rune with another case form. */
export function isCasedRune(r: number): boolean {
  if (r < 0x80) return (r >= 0x61 && r <= 0x7a) || (r >= 0x41 && r <= 0x5a);
  return toUpperRune(r) !== r || toLowerRune(r) !== r || isTitle(r);
}
