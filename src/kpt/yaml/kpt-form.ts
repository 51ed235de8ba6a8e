import { canPlain, type SeqIndent, SIMPLE_KEY_MAX, seqIndentIn } from "./format.js";
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

/** A file kpt-form.ts formats without reading it into documents. */
export interface KptForm {
  /** What a render without functions reads of each document. */
  docs: KptFormDoc[];
  /** The file as kpt writes it: the text itself (the same string) when it is already in kpt's form. */
  text: string;
}

/**
 * A file's text as formatting its documents as read (src/kpt/format.ts over src/kpt/yamlfile.ts's
 * reading) gives it — kpt's form — told without reading it into documents: one pass over the text, no
 * node made, each line copied or given its new indentation. Gives that text and each document's
 * KptFormDoc, or undefined for any text it cannot vouch for. It vouches only for a strict part of YAML
 * (mostly what the fast reader, yaml-fast.ts, reads):
 * - mappings with plain string keys, each level indented any number of spaces further, written two a
 *   level; sequences under a key at the key's column or further, written at the document's one
 *   indentation (format.ts's detectSeqIndent), `- ` then the item;
 * - plain scalars that format.ts keeps plain, quoted scalars that need no escape, `|` and `|-` literals
 *   with no line ending in a space, `[...]` of scalars with `, ` between them, `{}`;
 * - a comment after a value or a key on its line (written one space after it), comment lines above a
 *   document's first key (a licence header), and comment lines at the column of the entry or item
 *   right under them, which format.ts writes at that entry's;
 * - empty lines, which format.ts drops, but for one after comment lines where kpt keeps it too (take
 *   says where) and a run of them in a document's head comment; `---` between documents or before the
 *   first; spaces at a line's end; a last line without its line break.
 * Anything else, and the caller reads and formats the file as before. test/kpt/yaml/kpt-form.test.ts holds
 * the text given equal to formatting the documents read for every file this vouches for.
 */
export function readKptForm(text: string): KptForm | undefined {
  // `<<` anywhere: it may be a merge key, which format.ts writes tagged (a string holding it is rare)
  if (text === "" || UNVOUCHED.test(text) || text.includes("<<")) return undefined;
  const ended = text.charCodeAt(text.length - 1) === NL;
  const scanner = new Scanner(ended ? text : `${text}\n`, !ended);
  try {
    const docs = scanner.documents();
    return { docs, text: scanner.output() };
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
 * the line break; it ends at the line break, at spaces before it, or at ` #` (a comment).
 */
const PLAIN_REST = /(?:[^\n :]|:(?![ \n])| (?![ \n#]))*/y;

/** The first characters of `null`, `true` and `false` in their spellings. */
const MAYBE_WORD = new Set([..."nNtTfF"].map((c) => c.charCodeAt(0)));

const FLOW = { flow: true, key: false, indent: 0 };

const SPACES = " ".repeat(128);

/** An indentation of `n` spaces. */
function pad(n: number): string {
  return n <= SPACES.length ? SPACES.slice(0, n) : " ".repeat(n);
}

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
  /** Where the document starts (its `---` line, or the text's start): detectSeqIndent reads from there. */
  private from = 0;
  /**
   * Where the document's piece of kpt's cut starts, its line 0 to yaml.v3 (the line after a `---` line
   * kpt cuts out, the text's start): -1 where that line is a `---` line (a first one, left in its piece).
   */
  private pieceLine = 0;
  /**
   * The start of the line after a plain scalar with no comment after it: yaml.v3's scan of the comment
   * lines below such a value begins on their first line (on its piece's first line too).
   */
  private plainEnd = -1;
  /**
   * The document's sequence indentation as detectSeqIndent finds it: the first sequence, in line order,
   * whose `- ` is at its key line's indentation or two further decides. Undefined while none has
   * decided; null when a literal came first (its lines may decide: detectSeqIndent is asked then).
   */
  private decided: SeqIndent | undefined | null;
  /** The start and end of the keys of the mappings being read, outermost first. */
  private readonly keys: number[] = [];
  /** The text as written: `parts`, then the text from `copied` on. */
  private readonly parts: string[] = [];
  private copied = 0;
  /**
   * The next content line as peek found it, from `peeked` (a line start) on: the start of that line
   * (`line`, after the empty and comment lines before it), its indentation (`ind`, -1 at the text's
   * end), the column of the comment lines before it (-1 for none), and whether an empty line is among
   * them.
   */
  private peeked = -1;
  private line = 0;
  private ind = 0;
  private commentColumn = -1;
  private blank = false;
  /** The line last taken had comment lines above it. */
  private commented = false;
  /** A block (a mapping or sequence under a key or `- `) ended since the last line taken. */
  private ended = false;

  constructor(
    private readonly text: string,
    /** The text's last line break was added: a literal cannot end the text. */
    private readonly added: boolean,
  ) {}

  /** The text with the changes made so far. */
  output(): string {
    if (this.parts.length === 0 && this.copied === 0) return this.text;
    this.parts.push(this.text.slice(this.copied));
    return this.parts.join("");
  }

  /** Writes `by` for the text from `from` to `to` (in order, after what was written before). */
  private put(from: number, to: number, by: string): void {
    if (from > this.copied) this.parts.push(this.text.slice(this.copied, from));
    if (by !== "") this.parts.push(by);
    this.copied = to;
  }

  documents(): KptFormDoc[] {
    const text = this.text;
    const docs: KptFormDoc[] = [];
    // A first `---` is not written (formatDocuments writes it only between documents).
    const leading = text.startsWith("---\n");
    if (leading) {
      this.put(0, 4, "");
      this.pos = 4;
      this.pieceLine = -1;
    }
    for (;;) {
      this.doc = { metadata: "absent", annotations: "absent" };
      this.decided = undefined;
      this.headComment(leading && docs.length === 0);
      const ind = this.peek();
      if (ind < 0) no();
      this.take(0);
      this.map(ind, 0, Role.Top, ind);
      // Empty lines to the end of the document go; a comment line there is its foot, not vouched for.
      this.peek();
      if (this.commentColumn >= 0) no();
      if (this.line !== this.pos) this.put(this.pos, this.line, "");
      this.pos = this.line;
      docs.push(this.doc);
      if (this.pos === text.length) return docs;
      if (!text.startsWith("---\n", this.pos)) no();
      this.from = this.pos;
      this.pos += 4;
      this.pieceLine = this.pos;
      if (this.pos >= text.length) no();
    }
  }

  /**
   * The comment and empty lines above a document's first key, as format.ts writes a document's head
   * comment: the empty lines before the first comment line go, each later run of them becomes one
   * empty line; each comment line `#` and its text (no text of spaces only: format.ts writes that as a
   * bare `#`) at the start of its line. After a first `---` (`leading`), kpt keeps no empty line
   * (format.ts would keep one): none after a comment line is vouched for. Leaves `pos` at the key's line.
   */
  private headComment(leading: boolean): void {
    const text = this.text;
    let i = this.pos;
    let comment = false;
    for (;;) {
      const line = i;
      while (text.charCodeAt(i) === SPACE) i++;
      const c = text.charCodeAt(i);
      if (c === NL) {
        if (i !== line) no();
        let j = i + 1;
        while (text.charCodeAt(j) === NL) j++;
        if (!comment) this.put(line, j, "");
        else if (leading) no();
        else if (j !== i + 1) this.put(i + 1, j, "");
        i = j;
        continue;
      }
      if (c !== HASH) {
        this.pos = line;
        return;
      }
      if (i !== line) this.put(line, i, "");
      const nl = text.indexOf("\n", i);
      let k = i + 1;
      while (text.charCodeAt(k) === SPACE) k++;
      if (k === nl && k !== i + 1) no();
      comment = true;
      i = nl + 1;
    }
  }

  /**
   * The next content line from `pos` (a line start), past empty lines and comment lines (each `#` and
   * some text, none ending in a space, all at one column); gives its indentation, -1 at the text's end.
   * Nothing is written: the one who takes the line writes what comes before it (take).
   */
  private peek(): number {
    if (this.peeked === this.pos) return this.ind;
    const text = this.text;
    let i = this.pos;
    let column = -1;
    let blank = false;
    for (;;) {
      let j = i;
      while (text.charCodeAt(j) === SPACE) j++;
      const c = text.charCodeAt(j);
      if (c === NL) {
        if (j !== i) no();
        blank = true;
        i = j + 1;
        continue;
      }
      if (c === HASH) {
        if (column >= 0 && column !== j - i) no();
        column = j - i;
        const nl = text.indexOf("\n", j);
        if (nl === j + 1 || text.charCodeAt(nl - 1) === SPACE) no();
        i = nl + 1;
        continue;
      }
      this.ind = Number.isNaN(c) ? -1 : j - i;
      break;
    }
    this.peeked = this.pos;
    this.line = i;
    this.commentColumn = column;
    this.blank = blank;
    return this.ind;
  }

  /**
   * Takes the line peek found, written at column `out`, with the lines before it: empty lines before
   * the first comment line go; comment lines, at the taken line's column, are written at `out`, and
   * so is one empty line after one of them — where no empty line is above them, a key follows, and no
   * block ends above them (a run of empty lines format.ts keeps and kpt makes one; otherwise yaml.v3
   * may give the comments to another node, or format.ts drop the empty line). Right under a key
   * (`under`), kpt drops the empty line after comment lines (format.ts keeps it), and after a comment
   * on the key's line (`under` "comment") format.ts keeps empty lines: none is vouched for there.
   * Leaves `pos` after the line's indentation.
   */
  private take(out: number, under?: "key" | "comment"): void {
    const text = this.text;
    let i = this.pos;
    const ind = this.ind;
    this.commented = this.commentColumn >= 0;
    const ended = this.ended;
    this.ended = false;
    if (this.line !== i) {
      let j = i;
      while (text.charCodeAt(j) === NL) j++;
      if (j !== i && under === "comment") no();
      const spaced = j !== i || ended || under !== undefined || this.dashAt(this.line + ind);
      if (j !== i) this.put(i, j, "");
      i = j;
      if (i !== this.line && this.commentColumn !== ind) no();
      // One empty line may follow the comment lines right after an entry (yaml.v3's foot of it); the
      // comment lines after that are the next entry's head, and kpt drops an empty line after a head.
      // yaml.v3 may cut no foot after an entry on its piece's first line (after a line comment, or a
      // quoted value): none is vouched for there.
      const first =
        this.pieceLine >= 0 &&
        this.plainEnd !== this.pos &&
        text.lastIndexOf("\n", this.pos - 2) + 1 === this.pieceLine;
      let emptied = false;
      while (i !== this.line) {
        if (ind !== out) this.put(i, i + ind, pad(out));
        i = text.indexOf("\n", i + ind) + 1;
        if (text.charCodeAt(i) === NL) {
          if (spaced || emptied || first || text.charCodeAt(i + 1) === NL) no();
          emptied = true;
          i++;
        }
      }
    }
    if (ind !== out) this.put(i, i + ind, pad(out));
    this.pos = i + ind;
    this.peeked = -1;
  }

  /** True when `- ` starts at `at`. */
  private dashAt(at: number): boolean {
    return this.text.charCodeAt(at) === DASH && this.text.charCodeAt(at + 1) === SPACE;
  }

  /**
   * A block mapping whose first key is at `pos`, its keys at column `indent`, written at `out`; `line`
   * is the indentation of its first key's line (the `- `'s column for an item's mapping). `pos` ends
   * after it.
   */
  private map(indent: number, out: number, role: Role, line: number): void {
    const text = this.text;
    const keys = this.keys;
    const base = keys.length;
    for (let lineIndent = line; ; lineIndent = indent) {
      const start = this.pos;
      this.key();
      const end = this.pos;
      // keys holds pairs of offsets: k + 1 < keys.length
      for (let k = base; k < keys.length; k += 2) if (this.sameKey(keys[k]!, keys[k + 1]!, start, end)) no();
      keys.push(start, end);
      if (role === Role.Annotations) (this.doc.annotations as string[]).push(text.slice(start, end));
      const named = role === Role.Top || role === Role.Metadata;
      // after the ':', spaces: a block follows (a comment before it, one space after the ':'), or a value
      const colon = end + 1;
      let after = colon;
      while (text.charCodeAt(after) === SPACE) after++;
      const c = text.charCodeAt(after);
      if (c === NL || c === HASH) {
        const under = c === HASH ? "comment" : "key";
        if (c === NL) {
          if (after !== colon) this.put(colon, after, "");
        } else {
          // format.ts writes the comment as it was read: an empty one would gain a space.
          if (text.charCodeAt(after + 1) === NL) no();
          if (after !== colon + 1) this.put(colon, after, " ");
          after = text.indexOf("\n", after);
          if (text.charCodeAt(after - 1) === SPACE) no();
        }
        this.pos = after + 1;
        const ind = this.peek();
        if (ind < 0) no();
        if (this.dashAt(this.line + ind)) {
          if (ind < indent) no();
          // detectSeqIndent decides from the key's line and the `- ` line, comment lines between them
          // passed over, an empty one not.
          if (this.decided === undefined && !this.blank) {
            if (ind === lineIndent) this.decided = "compact";
            else if (ind === lineIndent + 2) this.decided = "wide";
          }
          const at = this.sequenceStyle() === "wide" ? out + 2 : out;
          this.take(at, under);
          this.seq(ind, at);
          if (named) this.noteOther(role, start);
        } else {
          if (ind <= indent) no();
          this.take(out + 2, under);
          let inner = Role.Other;
          if (role === Role.Top && text.startsWith("metadata:", start)) {
            this.doc.metadata = "map";
            inner = Role.Metadata;
          } else if (role === Role.Metadata && text.startsWith("annotations:", start)) {
            this.doc.annotations = [];
            inner = Role.Annotations;
          }
          this.map(ind, out + 2, inner, ind);
        }
      } else {
        // `: ` then the value
        if (after !== colon + 1) this.put(colon, after, " ");
        this.pos = after;
        if (!named) this.inline(indent + 1, out, false);
        else if (role === Role.Top && text.startsWith("apiVersion:", start))
          this.doc.apiVersion = this.inline(indent + 1, out, true);
        else if (role === Role.Top && text.startsWith("kind:", start))
          this.doc.kind = this.inline(indent + 1, out, true);
        else if (role === Role.Metadata && text.startsWith("name:", start))
          this.doc.name = this.inline(indent + 1, out, true);
        else {
          this.inline(indent + 1, out, false);
          this.noteOther(role, start);
        }
      }
      const ind = this.peek();
      if (ind !== indent) {
        if (ind > indent) no();
        break;
      }
      if (ind === 0 && text.startsWith("---", this.line)) break;
      if (this.dashAt(this.line + ind)) break;
      this.take(out);
    }
    this.ended = true;
    keys.length = base;
  }

  /**
   * The document's sequence indentation, once a sequence is to be written: as decided, or (no sequence
   * having decided yet, or a literal before them) as detectSeqIndent finds it in the document's text.
   */
  private sequenceStyle(): SeqIndent {
    if (this.decided) return this.decided;
    const text = this.text;
    // The document ends at the next `---` line: in what is vouched for, no other line starts so.
    const next = text.indexOf("\n---", this.pos);
    this.decided = seqIndentIn(text, this.from, next < 0 ? text.length : next + 1);
    return this.decided;
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

  /** A block sequence whose first `- ` is at `pos`, in column `indent`, written at `out`; `pos` ends after it. */
  private seq(indent: number, out: number): void {
    const text = this.text;
    for (;;) {
      // at `-`, then spaces (one written) and the item
      const dash = this.pos;
      let at = dash + 1;
      while (text.charCodeAt(at) === SPACE) at++;
      const c = text.charCodeAt(at);
      if (at === dash + 1 || c === NL || c === HASH || this.dashAt(at)) no();
      // The `yaml` parser gives comment lines above a flow sequence item to the flow sequence, and
      // format.ts writes them inside it (kpt above it): not vouched for.
      if (c === 91 /* [ */ && this.commented) no();
      if (at !== dash + 2) this.put(dash + 1, at, " ");
      this.pos = at;
      if (startsPlainKey(this.text, at)) this.map(indent + at - dash, out + 2, Role.Other, indent);
      else this.inline(indent + 1, out, false);
      const ind = this.peek();
      if (ind !== indent || !this.dashAt(this.line + ind)) {
        if (ind > indent) no();
        this.ended = true;
        return;
      }
      this.take(out);
    }
  }

  /** A key at `pos`, followed by `: ` or `:` and a line break; leaves `pos` at the `:`. */
  private key(): void {
    const text = this.text;
    const start = this.pos;
    KEY.lastIndex = start;
    if (!KEY.test(text)) no();
    const end = KEY.lastIndex;
    // a longer key format.ts writes `? key` (yaml.v3's simple key limit)
    if (end - start > SIMPLE_KEY_MAX) no();
    // Read as other than a string: a key that starts with a digit (`1`, `1.5`, a date) or is a null or
    // a boolean (`null`, `true`, `False`: four or five letters).
    const c = text.charCodeAt(start);
    if (c <= 57 || (end - start <= 5 && end - start >= 4 && MAYBE_WORD.has(c))) {
      if (!resolvesAsString(text.slice(start, end))) no();
    }
    this.pos = end;
  }

  /**
   * A value on its key's (or its `- `'s) line at `pos`, of an entry written at column `out`: a scalar,
   * with a comment after it or none, a flow sequence, `{}`, or a literal whose lines are at column
   * `min` or further. `pos` ends at the next line. With `told`, gives a scalar's value when it is a
   * string, as getString reads it.
   */
  private inline(min: number, out: number, told: boolean): string | undefined {
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
      if (text.charCodeAt(start + 1) !== 125 /* } */) no();
      this.pos = start + 2;
      this.lineEnd();
      return undefined;
    }
    if (c === 124 /* | */) {
      this.literal(min, out);
      return undefined;
    }
    // A plain scalar that format.ts keeps plain (its canPlain): what the fast reader reads as one, less
    // the leading space, the two spaces, `---` and `...` that format.ts would change.
    if (c === SPACE || c === NL) no();
    if (NOT_PLAIN_START.has(text.charAt(start))) {
      const n = text.charCodeAt(start + 1);
      if (c !== DASH || n === SPACE || n === NL) no();
    }
    if ((c === DASH || c === 46) /* . */ && (text.startsWith("---", start) || text.startsWith("...", start)))
      no();
    PLAIN_REST.lastIndex = start + 1;
    PLAIN_REST.test(text);
    this.pos = PLAIN_REST.lastIndex;
    if (!this.lineEnd()) this.plainEnd = this.pos;
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

  /**
   * After a value: the line break (spaces before it go), or spaces, a comment (written one space after
   * the value; not empty, not ending in a space), the line break. Leaves `pos` at the next line; gives
   * whether a comment came.
   */
  private lineEnd(): boolean {
    const text = this.text;
    const at = this.pos;
    let i = at;
    while (text.charCodeAt(i) === SPACE) i++;
    const c = text.charCodeAt(i);
    if (c === NL) {
      if (i !== at) this.put(at, i, "");
    } else {
      // format.ts writes a comment as it was read, after one space: an empty one would gain a space.
      if (c !== HASH || i === at || text.charCodeAt(i + 1) === NL) no();
      if (i !== at + 1) this.put(at, i, " ");
      i = text.indexOf("\n", i);
      if (text.charCodeAt(i - 1) === SPACE) no();
    }
    this.pos = i + 1;
    return c !== NL;
  }

  /** `[a, "b"]` or `[]` at `pos`, then the line's end. */
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
    this.pos = i + 1;
    this.lineEnd();
  }

  /**
   * A `|` or `|-` literal at `pos`, its lines at the first one's column (`min` or further), written two
   * columns in from `out`: the first line not empty, none ending in a space, empty lines only between
   * its lines (those after it go with the lines before what follows). Leaves `pos` after it.
   */
  private literal(min: number, out: number): void {
    const text = this.text;
    if (this.decided === undefined) this.decided = null;
    let i = this.pos + 1;
    if (text[i] === "-") i++;
    if (text.charCodeAt(i) !== NL) no();
    i++;
    let n = 0;
    while (text.charCodeAt(i + n) === SPACE) n++;
    const first = text.charCodeAt(i + n);
    if (n < min || first === NL || Number.isNaN(first)) no();
    const written = out + 2;
    for (;;) {
      if (n !== written) this.put(i, i + n, pad(written));
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
      // A literal at the end of a text without its last line break has none either (`|` read as `|-`).
      if (this.added && j === text.length) no();
      this.pos = i;
      return;
    }
  }
}
