import { canPlain, type SeqIndent, seqIndentIn } from "./format.js";
import { resolvesAsString } from "./format-scalar.js";
import {
  DASH,
  DQUOTE,
  flowPlainEnd,
  HASH,
  NL,
  NOT_PLAIN_START,
  quotedEnd,
  SPACE,
  SQUOTE,
  startsPlainKey,
} from "./yaml-scan.js";

/**
 * What a render without functions reads of one document of a file in kpt's form: its `apiVersion` and
 * `kind`, and of its `metadata` its `name` and its annotations' keys.
 */
export interface KptFormDoc {
  /** The top-level `apiVersion` when it is a string (quoted, or plain and read as one); else undefined. */
  apiVersion?: string;
  kind?: string;
  /** `metadata.name`, as apiVersion. */
  name?: string;
  /** `metadata`: absent, a block mapping, or anything else (a flow mapping, a scalar). */
  metadata: "absent" | "map" | "other";
  /** The keys of `metadata.annotations` when it is a block mapping; "absent", or "other" (as metadata). */
  annotations: "absent" | "other" | string[];
}

/**
 * Whether `text` is a file already in kpt's form — the bytes that formatting its documents as read
 * (src/kpt/format.ts over src/kpt/yamlfile.ts's reading) gives back — told without reading it into
 * documents: one pass over the text, no node made. Gives each document's KptFormDoc, or undefined
 * for any text it cannot vouch for. It vouches only for a strict part of YAML (mostly what the fast
 * reader, yaml-fast.ts, reads), as kpt writes it: mappings with plain string keys, two spaces a level;
 * sequences at the document's one indentation (format.ts's detectSeqIndent), `- ` then the item;
 * one space after `:`; plain scalars that format.ts keeps plain, quoted scalars that need no escape,
 * `|` and `|-` literals two spaces in with no line ending in a space, `[...]` of scalars with `, ` between
 * them, `{}`; a comment after a scalar or a key on its line, one space before its `#`, and comment lines
 * above a document's first key (a licence header); no other blank line than one after those and the
 * lines of a literal; `---` between documents and not before the first. Anything else, and the
 * caller reads and formats the file as before. test/kpt/kpt-form.test.ts holds formatting equal to
 * the text for every file this vouches for.
 */
export function readKptForm(text: string): KptFormDoc[] | undefined {
  if (text === "" || text.charCodeAt(text.length - 1) !== NL || UNVOUCHED.test(text)) return undefined;
  try {
    return new Scanner(text).documents();
  } catch (e) {
    if (e === NOT_KPT_FORM) return undefined;
    throw e;
  }
}

/**
 * Characters in a file this does not vouch for: those the fast reader leaves to `yaml` (tabs, carriage
 * returns, a byte order mark, backslashes), and those format.ts writes escaped or refuses a style for
 * (control characters, the C1 range, unpaired or paired surrogates, the line and paragraph separators,
 * U+FFFE and U+FFFF).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
const UNVOUCHED = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\\\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]/;

/** Thrown inside the scanner when the text is not one it vouches for. */
const NOT_KPT_FORM = Symbol("not in kpt's form");
function no(): never {
  throw NOT_KPT_FORM;
}

/** A key this vouches for, at `lastIndex`: a plain string of the characters Kubernetes keys are made of, then `: ` or `:` and a line break. */
const KEY = /[A-Za-z0-9_][A-Za-z0-9_./-]*(?=:[ \n])/y;

/**
 * The rest of a plain scalar after its first character, at `lastIndex`, as format.ts writes it back:
 * no `: ` or `:` at the end of the line (the fast reader gives those up), no two spaces, no space before
 * the line break; it ends at the line break or at ` #` (a comment).
 */
const PLAIN_REST = /(?:[^\n :]|:(?![ \n])| (?![ \n#]))*/y;

/** The first characters of `null`, `true` and `false` in their spellings. */
const MAYBE_WORD = new Set([..."nNtTfF"].map((c) => c.charCodeAt(0)));

const FLOW = { flow: true, key: false, indent: 0 };

/** Which mapping the scanner is in: a document's, its metadata, its annotations, or another. */
enum Role {
  Top,
  Metadata,
  Annotations,
  Other,
}

class Scanner {
  private pos = 0;
  private doc!: KptFormDoc;
  /** The document's block sequences, and the sum of their indentations less their keys'. */
  private seqCount = 0;
  private seqOffsets = 0;
  /**
   * The document's sequence indentation as detectSeqIndent finds it: the first sequence, in line order,
   * whose `- ` is at its key line's indentation or two further decides. Undefined while none has
   * decided; null when a literal came first (its lines may decide: detectSeqIndent is asked then).
   */
  private decided: SeqIndent | undefined | null;
  /** The start and end of the keys of the mappings being read, outermost first. */
  private readonly keys: number[] = [];

  constructor(private readonly text: string) {}

  documents(): KptFormDoc[] {
    const text = this.text;
    if (text.startsWith("---")) no();
    const docs: KptFormDoc[] = [];
    let from = 0;
    for (;;) {
      this.doc = { metadata: "absent", annotations: "absent" };
      this.seqOffsets = 0;
      this.seqCount = 0;
      this.decided = undefined;
      this.headComment(from !== 0);
      if (this.indentAt(this.pos) !== 0) no();
      this.map(0, Role.Top, false);
      const to = this.pos;
      if (this.seqCount > 0) {
        // Every sequence as format.ts writes it: at its key's column, or two further (one way a document).
        const found = this.decided === null ? seqIndentIn(text, from, to) : (this.decided ?? "compact");
        if (this.seqOffsets !== (found === "wide" ? 2 * this.seqCount : 0)) no();
      }
      docs.push(this.doc);
      if (to === text.length) return docs;
      if (!text.startsWith("---\n", to)) no();
      from = to;
      this.pos = to + 4;
      if (this.pos >= text.length) no();
    }
  }

  /**
   * The comment lines above a document's first key, if any, each `#` and its text (no text of spaces
   * only: format.ts writes that as a bare `#`); then that key, or (in a document without `---`) one
   * empty line and that key, as format.ts writes a document's head comment. Leaves `pos` at the key.
   */
  private headComment(explicit: boolean): void {
    const text = this.text;
    if (text.charCodeAt(this.pos) !== HASH) return;
    while (text.charCodeAt(this.pos) === HASH) {
      const nl = text.indexOf("\n", this.pos);
      let i = this.pos + 1;
      while (text.charCodeAt(i) === SPACE) i++;
      if (i === nl && i !== this.pos + 1) no();
      this.pos = nl + 1;
    }
    if (text.charCodeAt(this.pos) === NL && !explicit) this.pos++;
  }

  /**
   * The indentation of the line starting at `at`; not vouched for: an empty line, a line of spaces, a
   * comment line, the end of the text.
   */
  private indentAt(at: number): number {
    const text = this.text;
    let i = at;
    while (text.charCodeAt(i) === SPACE) i++;
    const c = text.charCodeAt(i);
    if (c === NL || c === HASH || Number.isNaN(c)) no();
    return i - at;
  }

  /** True when `- ` starts at `at`. */
  private dashAt(at: number): boolean {
    return this.text.charCodeAt(at) === DASH && this.text.charCodeAt(at + 1) === SPACE;
  }

  /**
   * A block mapping whose first key is at `pos`, its keys at column `indent` (the first after `- `
   * when `item`); `pos` ends after it.
   */
  private map(indent: number, role: Role, item: boolean): void {
    const text = this.text;
    const keys = this.keys;
    const base = keys.length;
    for (let first = true; ; first = false) {
      const start = this.pos;
      this.key();
      const end = this.pos;
      for (let k = base; k < keys.length; k += 2) if (this.sameKey(keys[k]!, keys[k + 1]!, start, end)) no();
      keys.push(start, end);
      if (role === Role.Annotations) (this.doc.annotations as string[]).push(text.slice(start, end));
      const named = role === Role.Top || role === Role.Metadata;
      // at the ':'; a comment after it only where a block follows (format.ts writes it as it was read)
      let after = end + 1;
      if (text.charCodeAt(after) === SPACE && text.charCodeAt(after + 1) === HASH) {
        if (text.charCodeAt(after + 2) === NL) no();
        after = text.indexOf("\n", after);
      }
      if (text.charCodeAt(after) === NL) {
        this.pos = after + 1;
        if (this.pos >= text.length) no();
        const ind = this.indentAt(this.pos);
        if (this.dashAt(this.pos + ind)) {
          const offset = ind - indent;
          if (offset !== 0 && offset !== 2) no();
          this.seqOffsets += offset;
          this.seqCount++;
          if (this.decided === undefined) {
            // detectSeqIndent measures from the key line's indentation: the `- `'s for an item's first key.
            const fromLine = item && first ? offset + 2 : offset;
            if (fromLine === 0) this.decided = "compact";
            else if (fromLine === 2) this.decided = "wide";
          }
          this.pos += ind;
          this.seq(ind);
          if (named) this.noteOther(role, start);
        } else {
          if (ind !== indent + 2) no();
          this.pos += ind;
          let inner = Role.Other;
          if (role === Role.Top && text.startsWith("metadata:", start)) {
            this.doc.metadata = "map";
            inner = Role.Metadata;
          } else if (role === Role.Metadata && text.startsWith("annotations:", start)) {
            this.doc.annotations = [];
            inner = Role.Annotations;
          }
          this.map(ind, inner, false);
        }
      } else {
        // `: ` then the value
        this.pos = end + 2;
        if (!named) this.inline(indent, false);
        else if (role === Role.Top && text.startsWith("apiVersion:", start))
          this.doc.apiVersion = this.inline(indent, true);
        else if (role === Role.Top && text.startsWith("kind:", start))
          this.doc.kind = this.inline(indent, true);
        else if (role === Role.Metadata && text.startsWith("name:", start))
          this.doc.name = this.inline(indent, true);
        else {
          this.inline(indent, false);
          this.noteOther(role, start);
        }
      }
      if (this.pos >= text.length) break;
      const ind = this.indentAt(this.pos);
      if (ind !== indent) {
        if (ind > indent) no();
        break;
      }
      if (indent === 0 && text.startsWith("---", this.pos)) break;
      if (this.dashAt(this.pos + ind)) break;
      this.pos += ind;
    }
    keys.length = base;
  }

  /** Whether the keys from `a` to `b` and from `c` to `d` are the same text. */
  private sameKey(a: number, b: number, c: number, d: number): boolean {
    const text = this.text;
    if (b - a !== d - c || text.charCodeAt(a) !== text.charCodeAt(c)) return false;
    return text.slice(a, b) === text.slice(c, d);
  }

  /** `metadata` or `annotations` (the key at `start`) given a value other than a block mapping. */
  private noteOther(role: Role, start: number): void {
    const text = this.text;
    if (role === Role.Top && text.startsWith("metadata:", start)) this.doc.metadata = "other";
    else if (role === Role.Metadata && text.startsWith("annotations:", start)) this.doc.annotations = "other";
  }

  /** A block sequence whose first `- ` is at `pos`, in column `indent`; `pos` ends after it. */
  private seq(indent: number): void {
    const text = this.text;
    for (;;) {
      // at `- `: the item right after it
      this.pos += 2;
      const c = text.charCodeAt(this.pos);
      if (c === SPACE || c === NL || c === HASH || this.dashAt(this.pos)) no();
      if (startsPlainKey(this.text, this.pos)) this.map(indent + 2, Role.Other, true);
      else this.inline(indent, false);
      if (this.pos >= text.length) return;
      const ind = this.indentAt(this.pos);
      if (ind !== indent) {
        if (ind > indent) no();
        return;
      }
      if (!this.dashAt(this.pos + ind)) return;
      this.pos += ind;
    }
  }

  /** A key at `pos`, followed by `: ` or `:` and a line break; leaves `pos` at the `:`. */
  private key(): void {
    const text = this.text;
    const start = this.pos;
    KEY.lastIndex = start;
    if (!KEY.test(text)) no();
    const end = KEY.lastIndex;
    if (end - start > 1000) no();
    // Read as other than a string: a key that starts with a digit (`1`, `1.5`, a date) or is a null or
    // a boolean (`null`, `true`, `False`: four or five letters).
    const c = text.charCodeAt(start);
    if (c <= 57 || (end - start <= 5 && end - start >= 4 && MAYBE_WORD.has(c))) {
      if (!resolvesAsString(text.slice(start, end))) no();
    }
    this.pos = end;
  }

  /**
   * A value on its key's (or its `- `'s) line at `pos`, in a collection at `indent`: a scalar, with a
   * comment after it or none, a flow sequence, `{}`, or a literal. `pos` ends at the next line. With
   * `told`, gives a scalar's value when it is a string, as getString reads it.
   */
  private inline(indent: number, told: boolean): string | undefined {
    const text = this.text;
    const start = this.pos;
    const c = text.charCodeAt(start);
    if (c === DQUOTE || c === SQUOTE) {
      const end = this.quoted(start);
      this.pos = end;
      this.lineEnd();
      if (!told) return undefined;
      const inner = text.slice(start + 1, end - 1);
      return c === DQUOTE ? inner : inner.replaceAll("''", "'");
    }
    if (c === 91 /* [ */) {
      this.flowSeq();
      return undefined;
    }
    if (c === 123 /* { */) {
      if (!text.startsWith("{}\n", start)) no();
      this.pos = start + 3;
      return undefined;
    }
    if (c === 124 /* | */) {
      this.literal(indent);
      return undefined;
    }
    // A plain scalar that format.ts keeps plain (its canPlain): what the fast reader reads as one, less
    // the leading space, the two spaces, `---` and `...` that format.ts would change.
    if (c === SPACE || c === NL) no();
    if (NOT_PLAIN_START.has(text[start]!)) {
      const n = text.charCodeAt(start + 1);
      if (c !== DASH || n === SPACE || n === NL) no();
    }
    if ((c === DASH || c === 46) /* . */ && (text.startsWith("---", start) || text.startsWith("...", start)))
      no();
    PLAIN_REST.lastIndex = start + 1;
    PLAIN_REST.test(text);
    this.pos = PLAIN_REST.lastIndex;
    this.lineEnd();
    if (!told) return undefined;
    const source = text.slice(start, PLAIN_REST.lastIndex);
    return resolvesAsString(source) ? source : undefined;
  }

  /** quotedEnd, or not vouched for. */
  private quoted(start: number): number {
    const end = quotedEnd(this.text, start);
    if (end < 0) no();
    return end;
  }

  /** After a scalar: the line break, or ` #`, a comment, the line break. Leaves `pos` at the next line. */
  private lineEnd(): void {
    const text = this.text;
    let i = this.pos;
    if (text.charCodeAt(i) === SPACE) {
      // format.ts writes a comment as it was read, after one space: an empty one would gain a space.
      if (text.charCodeAt(i + 1) !== HASH || text.charCodeAt(i + 2) === NL) no();
      i = text.indexOf("\n", i);
    }
    if (text.charCodeAt(i) !== NL) no();
    this.pos = i + 1;
  }

  /** `[a, "b"]` or `[]` at `pos`, then the line break. */
  private flowSeq(): void {
    const text = this.text;
    let i = this.pos + 1;
    if (text[i] !== "]") {
      for (;;) {
        const c = text.charCodeAt(i);
        if (c === DQUOTE || c === SQUOTE) {
          i = this.quoted(i);
        } else {
          const j = flowPlainEnd(text, i);
          if (j < 0) no();
          if (!canPlain(text.slice(i, j), FLOW)) no();
          i = j;
        }
        if (text[i] === "]") break;
        if (text[i] !== "," || text[i + 1] !== " " || text[i + 2] === " ") no();
        i += 2;
      }
    }
    if (text.charCodeAt(i + 1) !== NL) no();
    this.pos = i + 2;
  }

  /**
   * A `|` or `|-` literal at `pos` in a collection at `indent`: its lines two further in, the first
   * not starting with a space, none ending in one; empty lines only between its lines.
   */
  private literal(indent: number): void {
    const text = this.text;
    if (this.decided === undefined) this.decided = null;
    let i = this.pos + 1;
    if (text[i] === "-") i++;
    if (text.charCodeAt(i) !== NL) no();
    i++;
    const n = indent + 2;
    for (let k = 0; k < n; k++) if (text.charCodeAt(i + k) !== SPACE) no();
    const first = text.charCodeAt(i + n);
    if (first === SPACE || first === NL || Number.isNaN(first)) no();
    for (;;) {
      const nl = text.indexOf("\n", i);
      if (text.charCodeAt(nl - 1) === SPACE) no();
      i = nl + 1;
      // Empty lines, then a line of the literal (at least n spaces in), or the literal has ended.
      let j = i;
      while (text.charCodeAt(j) === NL) j++;
      let k = 0;
      while (k < n && text.charCodeAt(j + k) === SPACE) k++;
      if (k === n && j < text.length) {
        i = j;
        continue;
      }
      // format.ts drops empty lines after a literal (they are the next entry's space before).
      if (j !== i) no();
      this.pos = i;
      return;
    }
  }
}
