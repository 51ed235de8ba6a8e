import { Document, type LineCounter, type Pair, Scalar, type Schema, YAMLMap, YAMLSeq } from "yaml";
import { commentLineText } from "./comments/raw.js";
import { readMap, readPair, readScalar, readSeq, sameSchema } from "./yaml-nodes.js";
import {
  COLON,
  DASH,
  flowPlainEnd,
  HASH,
  NL,
  NOT_PLAIN_START,
  quotedEnd,
  SPACE,
  startsPlainKey,
} from "./yaml-scan.js";

/**
 * A reader for the YAML that package files are mostly made of, building the very `yaml` Documents
 * that `parseAllDocuments` builds (same node classes, values, styles, source ranges, comments,
 * directives and options, the line counter's line starts), in one pass over the text instead of the `yaml` package's lexer, CST
 * parser and composer. It reads a subset: block mappings with plain keys, block sequences, plain,
 * single- and double-quoted (no escapes) scalars on one line, `|` / `|-` literal block scalars,
 * one-line flow sequences of scalars and empty flow collections, a line comment after a scalar,
 * `---` between documents, empty lines between entries, the comment lines above a document's first
 * key (a licence header). Anything else — another comment line, a line of spaces, an anchor or tag, a tab, a folded scalar, an error — and it gives up on the whole file and returns undefined: the caller
 * then reads the file with `yaml` as before, so every file is read exactly as `yaml` reads it.
 * test/kpt/yaml/yaml-fast.test.ts holds the two readers' results equal over generated and real files.
 */
export function parseCommonYaml(
  text: string,
  options: { lineCounter?: LineCounter } & Record<string, unknown>,
): Document[] | undefined {
  if (text === "" || text.charCodeAt(text.length - 1) !== NL) return undefined;
  if (UNREAD.test(text)) return undefined;
  let docs: Document[];
  try {
    docs = new Reader(text, options).documents();
  } catch (e) {
    if (e === GIVE_UP) return undefined;
    throw e;
  }
  const lineCounter = options.lineCounter;
  if (lineCounter) {
    lineCounter.addNewLine(0);
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lineCounter.addNewLine(i + 1);
  }
  return docs;
}

const COMMON = new WeakSet<Document>();

/**
 * True for a document parseCommonYaml read (not a copy of one) with no comment line: a comment only
 * at the end of a scalar's line, where `yaml` and yaml.v3 agree. (A document with a head comment is
 * placed from what the fast reader read of it: comments/apply.ts, applyCommonHead.)
 */
export function isCommonYaml(doc: Document): boolean {
  return COMMON.has(doc);
}

/** The comment lines above a document's first key, as the fast reader read them. */
export interface CommonHead {
  /** The lines as written (`#` kept), joined by `\n`. */
  raw: string;
  /** Blank lines part them from the first key (a document without `---`). */
  spaced: boolean;
}

const HEADED = new WeakMap<Document, CommonHead>();

/**
 * The head of a document parseCommonYaml read (not a copy of one) with comment lines above its first
 * key and no other comment line, as it read them; undefined for any other document. The structural
 * reader's placing takes it from here (the fast reader keeps no syntax tree to read it from).
 */
export function commonYamlHead(doc: Document): CommonHead | undefined {
  return HEADED.get(doc);
}

/** Characters the reader leaves to `yaml`: tabs, carriage returns, a byte order mark, escapes, anchors' aliases. */
const UNREAD = /[\t\r\uFEFF\\]/;

/** Thrown inside the reader when the text is outside its subset. */
const GIVE_UP = Symbol("outside the common subset");
function giveUp(): never {
  throw GIVE_UP;
}

/** The `Directives` class (not exported by `yaml`): each file's documents share one, as the composer's. */
const Directives = (new Document().directives as object).constructor as new (yaml: {
  version: string;
}) => object;

/** The scalar tag of a schema, and the tags a plain scalar is tested against, as the composer finds them. */
interface Tag {
  default?: boolean | "key";
  test?: RegExp;
  resolve(value: string, onError: (message: string) => void, options: unknown): unknown;
  format?: string;
}
const SCALAR_TAG = Symbol.for("yaml.scalar");

/**
 * First characters of a plain scalar that a core-schema tag other than the string's may match (null
 * `~` `null`, booleans, numbers, `.inf` `.nan`, the empty null): any other plain scalar is a string.
 */
const MAYBE_NOT_STRING = /^[-+.~0-9nNtTfF]/;

/** A mapping with more keys than this finds a duplicate key through a Set rather than key by key. */
const MANY_KEYS = 16;

/**
 * Whether a pair among `entries` from `base` to `top` has a key whose value is `value`, as a Set of
 * the keys' values would have it (NaN equal to NaN).
 */
function hasKey(entries: readonly unknown[], base: number, top: number, value: unknown): boolean {
  for (let i = base; i < top; i++) {
    const k = (entries[i] as Pair<Scalar>).key.value;
    if (k === value || (Number.isNaN(k) && Number.isNaN(value))) return true;
  }
  return false;
}

/** The values of the keys of the pairs among `entries` from `base` to `top`. */
function keySet(entries: readonly unknown[], base: number, top: number): Set<unknown> {
  const keys = new Set<unknown>();
  for (let i = base; i < top; i++) keys.add((entries[i] as Pair<Scalar>).key.value);
  return keys;
}

class Reader {
  private pos = 0;
  /** Empty lines were skipped since the last entry started. */
  private blank = false;
  private readonly directives: object;
  private readonly docOptions: Record<string, unknown>;
  private schema!: Schema;
  /** The document's schema holds what the shared one of yaml-nodes.ts does: its collections are made there. */
  private sharedSchema = false;
  private tags!: Tag[];
  private strTag!: Tag;
  /** The document's options, as the composer hands them to a tag's resolve. */
  private tagOptions: unknown;
  private readonly onError = () => giveUp();
  /**
   * The entries of the collections being read, innermost last, up to `top` (the array only grows: made
   * shorter, V8 would trim it and grow it again): a collection's items are copied off its end when it
   * is done, into an array of their number (pushed one by one, each array would keep room for 17).
   */
  private readonly entries: unknown[] = [];
  private top = 0;
  /** Where the node read last ends (its range's last offset): read here, not through `range`. */
  private lastEnd = 0;

  constructor(
    private readonly text: string,
    options: Record<string, unknown>,
  ) {
    this.directives = new Directives({ version: "1.2" });
    this.docOptions = { _directives: this.directives, ...options };
  }

  documents(): Document[] {
    const text = this.text;
    const docs: Document[] = [];
    for (;;) {
      let start = this.pos;
      let explicit = false;
      if (text.startsWith("---", start)) {
        if (text.charCodeAt(start + 3) !== NL) giveUp();
        explicit = true;
        this.pos += 4;
      } else if (start !== 0) giveUp();
      if (this.pos >= text.length) giveUp();
      if (text.charCodeAt(this.pos) !== HASH && this.lineIndent(this.pos) !== 0) giveUp();
      start = explicit ? start : this.pos;
      const doc = new Document(undefined, this.docOptions);
      if (doc.schema.compat) giveUp();
      this.schema = doc.schema;
      this.sharedSchema = sameSchema(doc.schema);
      this.tags = doc.schema.tags as unknown as Tag[];
      // yaml's schema always holds its string tag there (the internals test/kpt/yaml/yaml-internals.test.ts pins)
      this.strTag = (doc.schema as unknown as Record<symbol, Tag>)[SCALAR_TAG]!;
      this.tagOptions = doc.options;
      if (explicit) (doc.directives as { docStart: boolean | null }).docStart = true;
      const head = this.headComment(explicit);
      const contentStart = this.pos;
      const map = this.blockMap(0);
      const end = this.lastEnd;
      doc.contents = map;
      // An implicit document starts where its content does, after the comments above it.
      doc.range = [explicit ? start : contentStart, end, end];
      if (head) {
        // Where the composer puts them: after `---`, the mapping's; else the document's when an empty
        // line parts them from the first key, the key's when none does.
        if (explicit) map.commentBefore = head.text;
        else if (head.spaced) doc.commentBefore = head.text;
        else (map.items[0] as Pair<Scalar>).key.commentBefore = head.text;
        HEADED.set(doc, { raw: head.raw, spaced: head.spaced });
      } else COMMON.add(doc);
      docs.push(doc);
      if (this.pos >= text.length) return docs;
    }
  }

  /**
   * The comment lines above a document's first key, each at the start of its line, and whether empty lines part them from the key (only in a
   * document without `---`). Leaves `pos` at the key's line. Gives up on any other run of comment and
   * empty lines: comments after an empty line, before a `---`.
   */
  private headComment(explicit: boolean): { text: string; raw: string; spaced: boolean } | undefined {
    const text = this.text;
    if (text.charCodeAt(this.pos) !== HASH) return undefined;
    const lines: string[] = [];
    const from = this.pos;
    while (text.charCodeAt(this.pos) === HASH) {
      const nl = text.indexOf("\n", this.pos);
      // The composer keeps a comment's text as written after `#`, a lone `#` as one space.
      lines.push(text.slice(this.pos + 1, nl) || " ");
      this.pos = nl + 1;
    }
    // (the lines as written: from the first `#` to the last line's break, left out)
    const raw = text.slice(from, this.pos - 1);
    let spaced = false;
    while (text.charCodeAt(this.pos) === NL) {
      spaced = true;
      this.pos++;
    }
    if (spaced && explicit) giveUp();
    if (this.pos >= text.length || text.startsWith("---", this.pos) || this.lineIndent(this.pos) !== 0)
      giveUp();
    return { text: lines.join("\n"), raw, spaced };
  }

  /**
   * The indentation of the line starting at `at`; gives up on a blank line or a comment line (the
   * composer keeps those as comments and spacing), and on a line at the end of the text.
   */
  private lineIndent(at: number): number {
    const text = this.text;
    let i = at;
    while (text.charCodeAt(i) === SPACE) i++;
    const c = text.charCodeAt(i);
    if (c === NL || c === HASH || Number.isNaN(c)) giveUp();
    return i - at;
  }

  /**
   * At the start of the line after an entry: skips empty lines (the next entry, in whichever
   * collection, is then `spaceBefore`, as the composer marks it) and gives the indentation of the line
   * after them, leaving `pos` at its start. Gives up on a line of spaces, and on empty lines before
   * the end of the text or of the document.
   */
  private nextEntry(): number {
    const text = this.text;
    while (text.charCodeAt(this.pos) === NL) {
      this.blank = true;
      this.pos++;
    }
    if (this.blank) {
      if (this.pos >= text.length || text.startsWith("---", this.pos) || text.startsWith("...", this.pos))
        giveUp();
    }
    return this.lineIndent(this.pos);
  }

  /** Whether empty lines came before the entry that starts here (and forgets them). */
  private takeBlank(): boolean {
    const blank = this.blank;
    this.blank = false;
    return blank;
  }

  /** A block mapping whose first key starts at `pos`, its keys at column `indent`. */
  private blockMap(indent: number): YAMLMap {
    const text = this.text;
    const start = this.pos;
    const base = this.top;
    let end = start;
    /** The keys' values once the mapping has more than a few (fewer are compared one by one). */
    let keys: Set<unknown> | undefined;
    for (;;) {
      const spaced = this.takeBlank();
      const key = this.key();
      if (spaced) key.spaceBefore = true;
      if (keys === undefined) {
        if (hasKey(this.entries, base, this.top, key.value)) giveUp();
        if (this.top - base === MANY_KEYS) keys = keySet(this.entries, base, this.top);
      }
      if (keys !== undefined) {
        if (keys.has(key.value)) giveUp();
        keys.add(key.value);
      }
      // at the ':'
      this.pos++;
      let value: Scalar | YAMLMap | YAMLSeq;
      if (text.charCodeAt(this.pos) === NL) {
        this.pos++;
        if (this.pos >= text.length) giveUp();
        const ind = this.lineIndent(this.pos);
        const first = this.pos + ind;
        const dash = text.charCodeAt(first) === DASH && text.charCodeAt(first + 1) === SPACE;
        if (ind > indent) {
          this.pos = first;
          value = dash ? this.blockSeq(ind) : this.blockMap(ind);
        } else if (ind === indent && dash) {
          this.pos = first;
          value = this.blockSeq(ind);
        } else giveUp();
      } else if (text.charCodeAt(this.pos) === SPACE) {
        while (text.charCodeAt(this.pos) === SPACE) this.pos++;
        value = this.inlineValue(indent);
      } else giveUp();
      this.push(readPair(key, value));
      end = this.lastEnd;
      if (this.pos >= text.length) break;
      const ind = this.nextEntry();
      if (ind < indent) break;
      if (ind > indent) giveUp();
      const c = text.charCodeAt(this.pos + ind);
      if (indent === 0 && (text.startsWith("---", this.pos) || text.startsWith("...", this.pos))) break;
      if (c === DASH && text.charCodeAt(this.pos + ind + 1) === SPACE) break;
      this.pos += ind;
    }
    return this.map(this.takeEntries(base) as Pair[], start, end, end);
  }

  private map(items: Pair[], start: number, valueEnd: number, end: number): YAMLMap {
    this.lastEnd = end;
    if (this.sharedSchema) return readMap(items, start, valueEnd, end);
    const map = new YAMLMap(this.schema);
    map.items = items;
    map.range = [start, valueEnd, end];
    return map;
  }

  private seq(items: unknown[], start: number, valueEnd: number, end: number): YAMLSeq {
    this.lastEnd = end;
    if (this.sharedSchema) return readSeq(items, start, valueEnd, end);
    const seq = new YAMLSeq(this.schema);
    seq.items = items;
    seq.range = [start, valueEnd, end];
    return seq;
  }

  private scalar(
    value: unknown,
    start: number,
    valueEnd: number,
    end: number,
    source: string,
    type: Scalar.Type,
  ) {
    this.lastEnd = end;
    return readScalar(value, start, valueEnd, end, source, type);
  }

  private push(entry: unknown): void {
    this.entries[this.top++] = entry;
  }

  /** The entries pushed from `base` on, taken off the stack. */
  private takeEntries(base: number): unknown[] {
    const items = this.entries.slice(base, this.top);
    this.top = base;
    return items;
  }

  /** A block sequence whose first `- ` is at `pos`, in column `indent`. */
  private blockSeq(indent: number): YAMLSeq {
    const text = this.text;
    const start = this.pos;
    const base = this.top;
    let end = start;
    for (;;) {
      // at `- `
      const lineStart = this.pos - indent;
      this.pos += 2;
      while (text.charCodeAt(this.pos) === SPACE) this.pos++;
      const c = text.charCodeAt(this.pos);
      if (c === NL || c === HASH || (c === DASH && text.charCodeAt(this.pos + 1) === SPACE)) giveUp();
      const spaced = this.takeBlank();
      const item = startsPlainKey(this.text, this.pos)
        ? this.blockMap(this.pos - lineStart)
        : this.inlineValue(indent);
      if (spaced) item.spaceBefore = true;
      this.push(item);
      end = this.lastEnd;
      if (this.pos >= text.length) break;
      const ind = this.nextEntry();
      if (ind < indent) break;
      if (ind > indent) giveUp();
      if (text.charCodeAt(this.pos + ind) !== DASH || text.charCodeAt(this.pos + ind + 1) !== SPACE) break;
      this.pos += ind;
    }
    return this.seq(this.takeEntries(base), start, end, end);
  }

  /** A plain key at `pos`; leaves `pos` at its `:`. */
  private key(): Scalar {
    const text = this.text;
    const start = this.pos;
    if (NOT_PLAIN_START.has(text.charAt(start))) giveUp();
    let i = start;
    for (; ; i++) {
      const c = text.charCodeAt(i);
      if (c === NL) giveUp();
      if (c === COLON) {
        const n = text.charCodeAt(i + 1);
        if (n === SPACE || n === NL) break;
      } else if (c === HASH && text.charCodeAt(i - 1) === SPACE) giveUp();
    }
    if (text.charCodeAt(i - 1) === SPACE || i - start > 1000) giveUp();
    this.pos = i;
    const source = text.slice(start, i);
    return this.plain(source, start, i, i, true);
  }

  /**
   * A value that starts on its key's (or its `- `'s) line at `pos`: a scalar, a flow collection or a
   * literal block scalar. `indent` is the enclosing collection's; `pos` ends at the next line.
   */
  private inlineValue(indent: number): Scalar | YAMLMap | YAMLSeq {
    const text = this.text;
    const start = this.pos;
    const c = text.charAt(start);
    if (c === '"' || c === "'") {
      const end = this.quoted(start);
      const inner = text.slice(start + 1, end - 1);
      const value = c === '"' ? inner : inner.replaceAll("''", "'");
      const resolved = this.strTag.resolve(value, this.onError, this.tagOptions);
      this.pos = end;
      const after = this.lineEnd();
      const type = c === '"' ? "QUOTE_DOUBLE" : "QUOTE_SINGLE";
      const scalar = this.scalar(resolved, start, end, this.pos, value, type);
      if (after) scalar.comment = after;
      return scalar;
    }
    if (c === "[") return this.flowSeq();
    if (c === "{") {
      if (text[start + 1] !== "}") giveUp();
      this.pos = start + 2;
      if (this.lineEnd()) giveUp();
      const map = this.map([], start, start + 2, this.pos);
      map.flow = true;
      return map;
    }
    if (c === "|") return this.literal(indent);
    if (NOT_PLAIN_START.has(c)) {
      if (c !== "-" || text.charCodeAt(start + 1) === SPACE || text.charCodeAt(start + 1) === NL) giveUp();
    }
    let i = start;
    let last = start;
    for (; ; i++) {
      const ch = text.charCodeAt(i);
      if (ch === NL) break;
      if (ch === SPACE) {
        if (text.charCodeAt(i + 1) === HASH) break;
        continue;
      }
      if (ch === COLON) {
        const n = text.charCodeAt(i + 1);
        if (n === SPACE || n === NL) giveUp();
      }
      last = i + 1;
    }
    const source = text.slice(start, last);
    this.pos = last;
    const comment = this.lineEnd();
    const scalar = this.plain(source, start, last, this.pos, false);
    if (comment) scalar.comment = comment;
    return scalar;
  }

  /** quotedEnd, or give up. */
  private quoted(start: number): number {
    const end = quotedEnd(this.text, start);
    if (end < 0) giveUp();
    return end;
  }

  /**
   * What follows a value on its line: spaces, a comment (its text, as the composer keeps it), the
   * line break. Leaves `pos` at the next line.
   */
  private lineEnd(): string {
    const text = this.text;
    const at = this.pos;
    let i = at;
    while (text.charCodeAt(i) === SPACE) i++;
    let comment = "";
    if (text.charCodeAt(i) === HASH) {
      if (i === at) giveUp();
      const nl = text.indexOf("\n", i);
      // as the composer keeps it, a lone `#` as one space; `# ` told apart (raw.ts' HASH_SPACE)
      comment = commentLineText(text.slice(i, nl));
      i = nl;
    }
    if (text.charCodeAt(i) !== NL) giveUp();
    this.pos = i + 1;
    return comment;
  }

  /** A plain scalar as the composer resolves it by the schema's tags. */
  private plain(source: string, start: number, valueEnd: number, end: number, atKey: boolean): Scalar {
    let tag = this.strTag;
    if (source === "" || MAYBE_NOT_STRING.test(source)) {
      for (const t of this.tags) {
        if ((t.default === true || (atKey && t.default === "key")) && t.test?.test(source)) {
          tag = t;
          break;
        }
      }
    }
    const res = tag.resolve(source, this.onError, this.tagOptions);
    let scalar: Scalar;
    if (res instanceof Scalar) {
      scalar = res;
      this.lastEnd = end;
      scalar.range = [start, valueEnd, end];
      scalar.source = source;
      scalar.type = "PLAIN";
    } else scalar = this.scalar(res, start, valueEnd, end, source, "PLAIN");
    if (tag.format) scalar.format = tag.format;
    return scalar;
  }

  /** `[a, "b"]` on one line: scalars only; or `[]`. */
  private flowSeq(): YAMLSeq {
    const text = this.text;
    const start = this.pos;
    const base = this.top;
    let i = start + 1;
    if (text[i] !== "]") {
      for (;;) {
        const c = text.charAt(i);
        let item: Scalar;
        if (c === '"' || c === "'") {
          const end = this.quoted(i);
          const inner = text.slice(i + 1, end - 1);
          const value = c === '"' ? inner : inner.replaceAll("''", "'");
          const resolved = this.strTag.resolve(value, this.onError, this.tagOptions);
          item = this.scalar(resolved, i, end, end, value, c === '"' ? "QUOTE_DOUBLE" : "QUOTE_SINGLE");
          i = end;
        } else {
          const j = flowPlainEnd(text, i);
          if (j < 0) giveUp();
          item = this.plain(text.slice(i, j), i, j, j, false);
          i = j;
        }
        this.push(item);
        if (text[i] === "]") break;
        if (text[i] !== "," || text[i + 1] !== " ") giveUp();
        i += 2;
        while (text[i] === " ") i++;
      }
    }
    const end = i + 1;
    this.pos = end;
    if (this.lineEnd()) giveUp();
    const seq = this.seq(this.takeEntries(base), start, end, this.pos);
    seq.flow = true;
    return seq;
  }

  /**
   * A `|` or `|-` block scalar at `pos` whose lines are more indented than `indent`: no blank line
   * before its first line or after its last, none holding spaces.
   */
  private literal(indent: number): Scalar {
    const text = this.text;
    const start = this.pos;
    let i = start + 1;
    const strip = text[i] === "-";
    if (strip) i++;
    if (text.charCodeAt(i) !== NL) giveUp();
    i++;
    let n = 0;
    while (text.charCodeAt(i + n) === SPACE) n++;
    const first = text.charCodeAt(i + n);
    if (n <= indent || first === NL || Number.isNaN(first)) giveUp();
    const lines: string[] = [];
    let blanks = 0;
    let blankStart = i;
    while (i < text.length) {
      let k = 0;
      while (k < n && text.charCodeAt(i + k) === SPACE) k++;
      const c = text.charCodeAt(i + k);
      if (c === NL) {
        if (k > 0) giveUp();
        if (blanks === 0) blankStart = i;
        blanks++;
        i++;
        continue;
      }
      if (k < n) break;
      for (; blanks > 0; blanks--) lines.push("");
      const nl = text.indexOf("\n", i);
      lines.push(text.slice(i + n, nl));
      i = nl + 1;
    }
    // Empty lines after the last line are not the scalar's (it keeps one line break, or none): they
    // are read as the space before the next entry.
    if (blanks > 0) i = blankStart;
    const value = strip ? lines.join("\n") : `${lines.join("\n")}\n`;
    const resolved = this.strTag.resolve(value, this.onError, this.tagOptions);
    const scalar = this.scalar(resolved, start, i, i, value, "BLOCK_LITERAL");
    this.pos = i;
    return scalar;
  }
}
