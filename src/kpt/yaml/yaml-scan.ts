/**
 * What the two one-pass readers of package YAML share: the fast reader (yaml-fast.ts), which builds
 * `yaml` Documents from the common subset, and the kpt-form scanner (kpt-form.ts), which writes a file
 * as kpt's formatter would, no node made. What both read they read the same way; these are its pieces.
 */

export const NL = 10;
export const SPACE = 32;
export const HASH = 35;
export const COLON = 58;
export const DASH = 45;
export const DQUOTE = 34;
export const SQUOTE = 39;

/** Characters that cannot start a plain scalar (indicators), or that the readers leave to `yaml`. */
export const NOT_PLAIN_START = new Set([..."-?:,[]{}#&*!|>'\"%@`"]);

/** Characters that end a plain scalar in a one-line flow sequence, or that the readers leave to `yaml`. */
const FLOW_PLAIN_STOP = new Set([..."\n []{}#:'\"&*!"]);

/** True when a plain mapping key followed by `: ` or `:` and a line break starts at `pos`. */
export function startsPlainKey(text: string, pos: number): boolean {
  if (NOT_PLAIN_START.has(text.charAt(pos))) return false;
  for (let i = pos; ; i++) {
    const c = text.charCodeAt(i);
    if (c === NL) return false;
    if (c === COLON) {
      const n = text.charCodeAt(i + 1);
      if (n === SPACE || n === NL) return true;
    } else if (c === HASH && text.charCodeAt(i - 1) === SPACE) return false;
  }
}

/**
 * The end (after the closing quote) of a quoted scalar on one line starting at `start` (its quote);
 * -1 when the line or the text ends first. A single-quoted scalar's `''` is a quote, not its end.
 */
export function quotedEnd(text: string, start: number): number {
  const q = text.charCodeAt(start);
  for (let i = start + 1; ; i++) {
    const c = text.charCodeAt(i);
    if (c === NL || Number.isNaN(c)) return -1;
    if (c !== q) continue;
    if (q === SQUOTE && text.charCodeAt(i + 1) === SQUOTE) {
      i++;
      continue;
    }
    return i + 1;
  }
}

/**
 * The end (its `,` or `]`) of a plain item of a one-line flow sequence starting at `start`; -1 when the
 * item is not one the readers read (an indicator or a space first, or a character of FLOW_PLAIN_STOP).
 * The text ends with a line break, which stops the scan.
 */
export function flowPlainEnd(text: string, start: number): number {
  const first = text.charAt(start);
  if (NOT_PLAIN_START.has(first) || first === " ") return -1;
  for (let j = start; ; j++) {
    const ch = text.charAt(j);
    if (ch === "," || ch === "]") return j;
    if (FLOW_PLAIN_STOP.has(ch)) return -1;
  }
}
