/**
 * Raw comment text (each line as written, `#` kept, an empty line for a blank one) and the form `yaml`'s
 * comment slots hold it in (a line's text after `#`, `# ` as HASH_SPACE), both ways; and the two ways a
 * reader's raw head or foot is written back.
 */

/**
 * A comment line `# ` (one space, nothing after it) in a slot: the `yaml` parser gives `#` and `# `
 * alike as " ", which format.ts writes as a lone `#`; yaml.v3 keeps the space, and kpt writes `# `
 * back. Not a character a YAML comment can hold (NUL is not printable), so no comment's own text is
 * mistaken for it.
 */
const HASH_SPACE = "\u0000";

/**
 * A comment line's text as a slot holds it: after the `#`, a lone `#` as a space, `# ` as HASH_SPACE;
 * the `\r` of a CRLF line ending is no part of it. (The fast reader's line comments, yaml-fast.ts.)
 */
export function commentLineText(line: string): string {
  const end = line.endsWith("\r") ? line.length - 1 : line.length;
  const text = line.slice(1, end);
  return text === "" ? " " : text === " " ? HASH_SPACE : text;
}

/** The slot's text as raw comment lines. */
export function toRaw(text: string | null | undefined): string | undefined {
  if (text === null || text === undefined) return undefined;
  return text
    .split("\n")
    .map((l) => (l === "" ? "" : l === " " ? "#" : l === HASH_SPACE ? "# " : `#${l}`))
    .join("\n");
}

/** Raw comment lines as the slot holds them (toRaw undone); a line without its `#` is taken as text. */
export function fromRaw(raw: string | null | undefined): string | undefined {
  if (raw === null || raw === undefined) return undefined;
  // (most comments are one line)
  if (!raw.includes("\n")) return slotLine(raw);
  return raw.split("\n").map(slotLine).join("\n");
}

function slotLine(l: string): string {
  if (l === "" || !l.startsWith("#")) return l;
  return l === "#" ? " " : l === "# " ? HASH_SPACE : l.slice(1);
}

/** A head with each of its empty lines written as the file's count of blank lines it stands for. */
export function withBlanks(
  raw: string | undefined,
  blanks: readonly number[] | undefined,
): string | undefined {
  if (raw === undefined) return undefined;
  // (an empty line that stands for one blank line is written as it is)
  if (!blanks?.some((n) => n > 1)) return raw;
  let i = 0;
  return raw
    .split("\n")
    .map((l) => (l === "" ? "\n".repeat(Math.max(0, (blanks?.[i++] ?? 1) - 1)) : l))
    .join("\n");
}

/** A comment without the blank lines after its last line. */
export function bare(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let end = raw.length;
  while (end > 0 && raw.charCodeAt(end - 1) === 10) end--;
  return end === raw.length ? raw : raw.slice(0, end);
}
