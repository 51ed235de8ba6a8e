import { type CST, Parser } from "yaml";

/**
 * A structural comment reader: the comments of a YAML text as yaml.v3 (kpt's reader) gives them to its
 * nodes, worked out from the `yaml` library's CST by the steps yaml.v3 takes, not by rules over raw lines.
 *
 * yaml.v3 cuts comments in its scanner, between two tokens: the comment after a token on its line is
 * that token's line comment; the comment lines below it are cut into runs, a run that starts on the
 * line after the token and ends at a blank line, or one at a column left of the open block, being a
 * foot of what came before and the rest heads of what comes next. A block that closes is closed at the
 * first comment run at its own column, so the runs before it are the block's foot. Its parser then
 * collects the runs onto events (a head above a `- ` that opens a block is the block's, its "stem"),
 * and its decoder moves a foot that a key took to the entry before it and a mapping's foot to its last
 * key. This module follows those steps over tokens made from the CST, and returns the result as data:
 * each CST node's head, line and foot comment (raw lines, `#` kept, joined by `\n`), and each
 * document's head and foot.
 */

/** yaml.v3's three comments of one node, raw. */
export interface NodeComments {
  head?: string;
  line?: string;
  foot?: string;
  /**
   * How many blank lines of the file each empty line of the head stands for, in order (yaml.v3 cuts a
   * stretch of blank lines to one): kpt's render writes none after a head, a plain format the file's count.
   */
  headBlanks?: number[];
  /**
   * The head follows a foot cut in the same stretch of comment lines (the foot of what came before,
   * ended by a blank line or by a column left of the open block).
   */
  headAfterFoot?: boolean;
  /**
   * A block mapping whose end took a foot (the comment lines after it up to the first at its column):
   * yaml.v3's decoder gives it to the last key, whose foot its encoder writes after the entry at the
   * key's column whatever follows — where kyaml's merge walk does not keep it.
   */
  endFoot?: boolean;
  /**
   * A block mapping of one key whose foot is the key's own (taken at the key, not handed to it by the
   * decoder from its value or the mapping's end): written at the key's column too.
   */
  keyFoot?: boolean;
  /**
   * A key whose foot the decoder handed back from the next key (a run the next key took, after a
   * block value): kpt writes it above the next key, apart from that key's own head.
   */
  footFromNext?: boolean;
}

/** The comments of one document: its own head and foot, and each node's (keyed by its CST token). */
export interface DocumentComments {
  head?: string;
  foot?: string;
  /** Some block mapping below the document's root took a foot at its end (endFoot). */
  endFeet?: boolean;
  /** Only the nodes with a comment (or a mark) have a record. */
  nodes: Map<CST.Token, NodeComments>;
}

type Kind = "node" | "value" | "entry" | "bmap" | "bseq" | "bend" | "docend";

/**
 * One of the scanner's tokens. Every field is set (undefined or false where it does not apply), in the
 * order tok() sets them: the reader makes one for each token of a file, and objects of one shape are
 * what V8 reads fastest (spreading tokens of a dozen shapes was a third of the reader's time).
 */
interface Tok {
  kind: Kind;
  start: number;
  end: number;
  /** For `node`: the CST token the node is; for `bmap`/`bseq`/`bend`: the collection. */
  cst: CST.Token | undefined;
  /** The fetch that made the token (the scanner's order), and that the parser first sees it after. */
  seq: number;
  /** A scalar, alias or flow collection that might be a key: the scanner reads one token past it. */
  ahead: boolean;
  /** For `node`: a mapping's key (kind `node`) and, if first, the mapping. */
  keyOf: CST.BlockMap | undefined;
  first: boolean;
  /** A comment follows the token on its line. */
  lineComment: boolean;
}

function tok(
  kind: Kind,
  start: number,
  end: number,
  seq: number,
  cst?: CST.Token,
  ahead = false,
  keyOf?: CST.BlockMap,
  first = false,
): Tok {
  return { kind, start, end, cst, seq, ahead, keyOf, first, lineComment: false };
}

interface Run {
  kind: "head" | "line" | "foot";
  text: string;
  /** The token position the parser compares (a token at or after it takes the run). */
  mark: number;
  start: number;
  startCol: number;
  end: number;
  /** Where the scan that cut the run began. */
  scan: number;
  seq: number;
  /** The file's count of blank lines for each empty line of `text`, in order. */
  blanks: number[];
  /** Another run of the same scan comes before this one. */
  afterRun: boolean;
}

/** Offsets of line starts, to turn offsets into lines and columns. */
class Lines {
  private readonly starts: number[] = [0];
  /** The line last answered: the reader asks mostly in order, each time at or a line or two after it. */
  private at = 0;
  constructor(readonly text: string) {
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) this.starts.push(i + 1);
  }
  line(offset: number): number {
    const starts = this.starts;
    let at = this.at;
    // (at is an index of starts)
    if (starts[at]! <= offset) {
      for (let k = 0; k < 4; k++) {
        const next = starts[at + 1];
        if (next === undefined || next > offset) {
          this.at = at;
          return at;
        }
        at++;
      }
    }
    this.at = this.search(offset);
    return this.at;
  }
  private search(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      // (mid lies between lo and hi, both indexes of starts)
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
  col(offset: number): number {
    // (line() answers an index of starts)
    return offset - this.starts[this.line(offset)]!;
  }
}

/**
 * Reads the comments of every document of `text` as yaml.v3 places them. `cst`: the text's CST documents
 * (`yaml`'s Parser) when the caller composes nodes from them (keyed by the same tokens), else parsed here.
 */
export function readComments(text: string, cst?: readonly CST.Token[]): DocumentComments[] {
  const lines = new Lines(text);
  const out: DocumentComments[] = [];
  for (const doc of cst ?? new Parser().parse(text)) {
    if (doc.type !== "document") continue;
    const { begin, explicit } = docBegin(doc, text, out.length === 0 ? 0 : doc.offset);
    const end = docEnd(doc, text);
    // a document without a `#` in its piece of the file has no comment (most, in most files)
    const hash = text.indexOf("#", begin);
    if (hash < 0 || hash >= end) {
      out.push({ nodes: new Map() });
      continue;
    }
    const toks = tokensOf(doc, text, end);
    const dc = place(toks, text, lines, begin, end, explicit);
    headerComments(toks, text, dc);
    footAboveLastMarker(text, end, dc);
    for (const [t, c] of dc.nodes) if (c.endFoot && t !== doc.value) dc.endFeet = true;
    out.push(dc);
  }
  return out;
}

/**
 * A block scalar's header comment (`k: | # c`, a bare `#` and `# ` too): the comment after its header
 * on its line, yaml.v3's line comment of the scalar. The CST holds it among the scalar's props, inside
 * the token (which the scan steps over whole).
 */
function headerComments(toks: readonly Tok[], text: string, dc: DocumentComments): void {
  for (const t of toks) {
    if (t.cst?.type !== "block-scalar") continue;
    const comment = t.cst.props.find((p) => p.type === "comment");
    if (!comment || !("source" in comment)) continue;
    const c = dc.nodes.get(t.cst) ?? {};
    if (c.line === undefined) dc.nodes.set(t.cst, { ...c, line: commentAt(text, comment.offset) });
  }
}

/**
 * A last `---` line with no line break after it, right below comment lines at column 0: kpt's cut
 * (at "\n---…\n") leaves it in the last piece, and yaml.v3 reads those comment lines as the
 * document's foot, ended by the document's start that follows (kpt writes it after a blank line), not
 * as a foot of the blocks that end there. `end`: where the document ends.
 */
function footAboveLastMarker(text: string, end: number, dc: DocumentComments): void {
  if (end >= text.length || text.indexOf("\n", end) >= 0 || !text.startsWith("---", end)) return;
  const above: string[] = [];
  let at = end;
  while (at > 0) {
    const start = text.lastIndexOf("\n", at - 2) + 1;
    const line = text.slice(start, at - 1).replace(/\r$/, "");
    if (!line.startsWith("#")) break;
    above.unshift(line);
    at = start;
  }
  if (above.length === 0) return;
  const foot = above.join("\n");
  for (const [t, c] of dc.nodes) {
    if (c.foot === undefined || (c.foot !== foot && !c.foot.endsWith(`\n${foot}`))) continue;
    const rest = c.foot.slice(0, c.foot.length - foot.length).replace(/\n$/, "");
    if (rest === "") {
      delete c.foot;
      delete c.footFromNext;
    } else c.foot = rest;
    dc.nodes.set(t, c);
    dc.foot = dc.foot === undefined ? foot : `${foot}\n${dc.foot}`;
    // a mapping whose end took the foot no longer has one
    for (const [m, mc] of dc.nodes) {
      if (!mc.endFoot || m.type !== "block-map") continue;
      const last = m.items.at(-1)?.key;
      if (!last || dc.nodes.get(last)?.foot === undefined) delete mc.endFoot;
    }
    return;
  }
}

/**
 * Where a document's comments begin, and whether yaml.v3 reads it as an explicit document. kpt cuts a
 * file into pieces at its `---` lines (the line, comment and all, is cut out) and reads each piece; of
 * a run of `---` lines one after another, every other one is left first in its piece (the file's first
 * line always), and yaml.v3 reads that one as an explicit start: the comment on it, and the comment
 * lines after it, head the first node, with no document head.
 */
function docBegin(doc: CST.Document, text: string, start: number): { begin: number; explicit: boolean } {
  const marker = doc.start.find((s) => s.type === "doc-start");
  if (!marker) return { begin: start, explicit: false };
  if (leftFirst(text, marker.offset)) return { begin: marker.offset + 3, explicit: true };
  const nl = text.indexOf("\n", marker.offset);
  return { begin: nl < 0 ? text.length : nl + 1, explicit: false };
}

/** Whether kpt's cut leaves the `---` line at `at` first in its piece (see docBegin). */
function leftFirst(text: string, at: number): boolean {
  let before = 0;
  let line = at;
  while (line > 0) {
    const prev = text.lastIndexOf("\n", line - 2) + 1;
    if (prev >= line || !text.startsWith("---", prev)) break;
    before++;
    line = prev;
  }
  return line === 0 ? before % 2 === 0 : before % 2 === 1;
}

/** Where a document ends: the start of the next `---` (or `...`) line after its content, or the text's end. */
function docEnd(doc: CST.Document, text: string): number {
  const re = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/gm;
  re.lastIndex = (doc.value?.offset ?? doc.offset) + 1;
  const m = re.exec(text);
  return m ? m.index : text.length;
}

/**
 * The scanner's tokens of one document's content, in the order yaml.v3 fetches them; `end`: where the
 * document ends. A block collection that is a key's value or a list's item is left out where no `#`
 * lies from the last token before it that takes comments (its key, or the last node before its `- `)
 * to the next token after it: no comment is cut there or waits to be taken, so its tokens would take
 * none, and the blocks it opens close before the next token with none either (most of a commented
 * file's blocks; quiet() in apply.ts leaves them as the parser read them).
 */
function tokensOf(doc: CST.Document, text: string, end: number): Tok[] {
  const toks: Tok[] = [];
  // the first `#` at or after `hashFrom` (Infinity: none), as in place()
  let hash = -1;
  let hashFrom = 0;
  // where the last token that takes comments starts (a node's: a `- `, a `:`, an anchor or a tag takes
  // none): the comments cut after it wait for the tokens after it
  let taker = 0;
  const quiet = (to: number): boolean => {
    const from = taker;
    if (from < hashFrom || hash < from) {
      hashFrom = from;
      hash = text.indexOf("#", from);
      if (hash < 0) hash = Number.POSITIVE_INFINITY;
    }
    return hash >= to;
  };
  const block = (t: CST.Token | undefined): boolean => t?.type === "block-map" || t?.type === "block-seq";
  const props = (list: readonly CST.SourceToken[] | undefined): void => {
    if (!list) return;
    for (const s of list) {
      if (s.type === "anchor" || s.type === "tag")
        toks.push(tok("node", s.offset, s.offset + s.source.length, toks.length, undefined, true));
      else if (s.type === "seq-item-ind") toks.push(tok("entry", s.offset, s.offset + 1, toks.length));
      else if (s.type === "map-value-ind") toks.push(tok("value", s.offset, s.offset + 1, toks.length));
    }
  };
  // a node: `keyOf` the mapping it is a key of (`first`: its first)
  // `bound`: where the next token after the node starts, or after (the document's end)
  const node = (t: CST.Token | undefined, bound: number, keyOf?: CST.BlockMap, first = false): void => {
    if (!t) return;
    switch (t.type) {
      case "block-map":
        for (let i = 0; i < t.items.length; i++) {
          // (i < t.items.length)
          const item = t.items[i]!;
          const next = t.items[i + 1];
          // (the next key, or its value: at or after the next token)
          const after = (next && (next.key?.offset ?? next.value?.offset)) ?? bound;
          props(item.start);
          if (item.key) node(item.key, after, t, i === 0);
          props(item.sep);
          if (!(block(item.value) && quiet(after))) node(item.value, after);
        }
        return;
      case "block-seq":
        for (let i = 0; i < t.items.length; i++) {
          // (i < t.items.length)
          const item = t.items[i]!;
          const dash = item.start.find((s) => s.type === "seq-item-ind");
          if (i === 0 && dash) toks.push(tok("bseq", dash.offset, dash.offset, toks.length, t));
          for (const s of item.start)
            if (s.type === "seq-item-ind") toks.push(tok("entry", s.offset, s.offset + 1, toks.length));
          for (const s of item.start)
            if (s.type === "anchor" || s.type === "tag")
              toks.push(tok("node", s.offset, s.offset + s.source.length, toks.length, undefined, true));
          const next = t.items[i + 1];
          // (the next item's `- `, or its value: at or after the next token)
          const after =
            (next && (next.start.find((s) => s.type === "seq-item-ind")?.offset ?? next.value?.offset)) ??
            bound;
          if (!(block(item.value) && quiet(after))) node(item.value, after);
        }
        return;
      case "flow-collection": {
        const close = t.end.find((s) => s.type === "flow-map-end" || s.type === "flow-seq-end");
        const stop = close ? close.offset + 1 : t.offset + 1;
        taker = t.offset;
        toks.push(tok("node", t.offset, stop, toks.length, t, true, keyOf, first));
        return;
      }
      case "block-scalar": {
        const head = t.props[t.props.length - 1];
        const bodyStart = head && "source" in head ? head.offset + head.source.length : t.offset;
        taker = t.offset;
        toks.push(tok("node", t.offset, bodyStart + t.source.length, toks.length, t, true, keyOf, first));
        return;
      }
      case "alias":
      case "scalar":
      case "single-quoted-scalar":
      case "double-quoted-scalar":
        taker = t.offset;
        toks.push(tok("node", t.offset, t.offset + t.source.length, toks.length, t, true, keyOf, first));
        return;
      default:
        return;
    }
  };
  node(doc.value, end);
  return toks;
}

/** The comment text of the line from `at` (a `#`) to its end, without a carriage return. */
function commentAt(text: string, at: number): string {
  let end = at;
  while (end < text.length && text[end] !== "\n" && text[end] !== "\r") end++;
  return text.slice(at, end);
}

/** Skips spaces and tabs. */
function blanks(text: string, at: number): number {
  let i = at;
  while (text[i] === " " || text[i] === "\t") i++;
  return i;
}

/**
 * Works out the comments of one document from its tokens: scans the text between tokens as yaml.v3's
 * scanner does (line comments, runs of comment lines, the closing of blocks), then hands the runs to
 * nodes as its parser and decoder do.
 */
function place(
  toks: Tok[],
  text: string,
  lines: Lines,
  begin: number,
  end: number,
  explicit: boolean,
): DocumentComments {
  const runs: Run[] = [];
  const queue: Tok[] = [];
  const indents: { col: number; cst: CST.Token }[] = [];
  let prev: Tok | undefined;
  let beforeValue: Tok | undefined;
  let fetch = 0;
  // the first `#` at or after `hashFrom` (Infinity: none): found once for the scans it is ahead of, not
  // searched for again from each token (a long stretch without comments read once, not once a token)
  let hash = -1;
  let hashFrom = 0;
  const pieceLine = lines.line(begin);
  const scan = (from: number, to: number, col: number): void => {
    if (from < hashFrom || hash < from) {
      hashFrom = from;
      hash = text.indexOf("#", from);
      if (hash < 0) hash = Number.POSITIVE_INFINITY;
    }
    if (hash < to)
      gap(text, lines, from, hash, {
        // the last scan reads to the end of the document's piece of the file (kpt cuts at `---` lines)
        eof: col < 0 ? to : text.length,
        pieceLine,
        prev,
        beforeValue,
        indent: indents.at(-1)?.col ?? 0,
        seq: fetch,
        runs,
      });
    // the blocks that end before the next token (yaml.v3's unroll); at the end of the text, the blocks
    // right of the column the text ends at close there, the rest at the end of the text (the stream's end
    // closes them, after every comment run but one at their column)
    if (col >= 0) unroll(col, from);
    else {
      unroll(lines.col(to), from);
      // (the end's last line break read as one character: a CRLF file's comments close as its LF form's)
      unroll(-1, text[to - 1] === "\n" && text[to - 2] === "\r" ? to - 1 : to);
    }
  };
  // each block closed at the first comment run of the scan from `scanAt` at its own column
  const unroll = (col: number, scanAt: number): void => {
    for (let open = indents.at(-1); open && open.col > col; open = indents.at(-1)) {
      indents.pop();
      let mark = scanAt - 1;
      let stop = mark;
      for (let i = runs.length - 1; i >= 0; i--) {
        // (i counts down from the last run)
        const r = runs[i]!;
        if (r.kind === "line" || r.end < stop) break;
        if (r.startCol === open.col) mark = r.start;
        stop = r.scan;
      }
      queue.push(tok("bend", mark, mark, fetch, open.cst));
    }
  };
  for (const t of toks) {
    if (t.kind === "bseq") {
      const col = lines.col(t.start);
      const top = indents.at(-1)?.col ?? -1;
      if (top < col) {
        // (the sequence start goes in after the blocks the dash closes)
        scan(prev ? prev.end : begin, t.start, col);
        // (tokensOf gives a sequence's start its sequence)
        indents.push({ col, cst: t.cst! });
        t.seq = fetch;
        queue.push(t);
        prev = tok("entry", t.start, t.start, fetch, t.cst);
        continue;
      }
      continue;
    }
    const from = prev ? prev.end : begin;
    if (!(prev && prev.start === t.start && prev.kind === "entry" && t.kind === "entry")) {
      fetch++;
      scan(from, t.start, lines.col(t.start));
    }
    if (t.keyOf && t.first) {
      const col = lines.col(t.start);
      const top = indents.at(-1)?.col ?? -1;
      if (top < col) indents.push({ col, cst: t.keyOf });
      queue.push(tok("bmap", t.start, t.start, fetch + 1, t.keyOf));
    }
    // (the token itself goes on: tokensOf made it for this document's reading alone)
    t.seq = fetch;
    queue.push(t);
    if (t.kind === "value") beforeValue = undefined;
    else beforeValue = t;
    lineComment(text, lines, t, t.kind === "value" ? prev : t, runs, fetch);
    prev = t;
  }
  fetch++;
  scan(prev ? prev.end : begin, end, -1);
  queue.push(tok("docend", end, end, fetch));
  // (a text that ends with no line break after the document: see decode)
  return hand(queue, runs, explicit, end === text.length && !text.endsWith("\n"));
}

/** The comment after `tok` on its line (not after a `- `, whose comment heads what follows it). */
function lineComment(
  text: string,
  lines: Lines,
  tok: Tok,
  owner: Tok | undefined,
  runs: Run[],
  seq: number,
): void {
  if (tok.kind === "entry" || tok.kind === "bseq") return;
  if (tok.end > 0 && text[tok.end - 1] === "\n") return;
  const at = blanks(text, tok.end);
  if (text[at] !== "#") return;
  if (at === tok.end && tok.end > 0 && text[tok.end - 1] !== " " && text[tok.end - 1] !== "\t") return;
  const line = commentAt(text, at);
  runs.push({
    kind: "line",
    text: line,
    mark: (owner ?? tok).start,
    start: at,
    startCol: lines.col(at),
    end: at + line.length,
    scan: tok.end,
    seq,
    blanks: [],
    afterRun: false,
  });
  tok.end = at + line.length;
  tok.lineComment = true;
}

interface GapState {
  /** Where the scan meets the end of its text. */
  eof: number;
  /** The first line of the document's piece of the file (kpt reads each piece on its own). */
  pieceLine: number;
  prev: Tok | undefined;
  beforeValue: Tok | undefined;
  indent: number;
  seq: number;
  runs: Run[];
}

/**
 * Cuts the comment lines between two tokens into runs, as yaml.v3's scanner does: a run that starts on
 * the line after the token before and ends at the first blank line, or one left of the open block, is
 * a foot of what came before; a run at a column left of the open block ends the run before it; what is
 * left heads the next token. `i`: the first `#` after `from`, before the next token.
 */
function gap(text: string, lines: Lines, from: number, i: number, st: GapState): void {
  const scanStart = from;
  let newlines = 0;
  for (let k = from; k < i; k++) if (text[k] === "\n") newlines++;
  // a block scalar reads the line breaks at its end: yaml.v3's scanner counts them with those after it
  if (st.prev?.kind === "node" && st.prev.cst?.type === "block-scalar")
    newlines += endBreaks(st.prev.cst.source);
  const startLine = lines.line(i);
  const startCol = lines.col(i);
  // the line the scan began on: a plain scalar reads on over the line breaks after it, to the `#`
  const plain = st.prev?.kind === "node" && st.prev.cst?.type === "scalar" && !st.prev.lineComment;
  const scanLine = plain ? startLine : lines.line(from);
  // (a document's first scan begins its piece of the file, on the piece's first line: no foot there,
  // nor after a scan that began on that line, the piece's line 0 to yaml.v3)
  let footLine = -1;
  if (st.prev && scanLine > st.pieceLine) {
    footLine = startLine - newlines + 1;
    if (newlines === 0 && startCol > 1) footLine++;
  }
  const prevIsValue = st.prev?.kind === "value";
  let mark = st.prev ? (st.prev.kind === "value" && st.beforeValue ? st.prev.start : st.prev.start) : 0;
  let firstEmpty = newlines <= 1;
  let recentEmpty = false;
  let buf: string[] = [];
  let counts: number[] = [];
  let flushed = false;
  let before = false;
  let bufStart = -1;
  let bufCol = -1;
  let bufLine = -1;
  let scanMark = scanStart;
  const flush = (at: number): void => {
    st.runs.push({
      kind: "foot",
      text: buf.join("\n"),
      mark,
      start: bufStart,
      startCol: bufCol,
      end: at,
      scan: scanMark,
      seq: st.seq,
      blanks: counts,
      afterRun: before,
    });
    flushed = true;
    scanMark = at;
    mark = at;
    buf = [];
    counts = [];
  };
  // walk line by line from the first `#`: a blank line (or the text's end) may end a run, a comment
  // line adds to it, anything else ends the scan
  let pos = i;
  let lineNo = startLine;
  let first = true;
  for (;;) {
    const at = first ? pos : blanks(text, pos);
    const col = first ? startCol : at - pos;
    first = false;
    const c = text[at];
    if (at >= st.eof || c === "\n" || c === "\r") {
      if (!recentEmpty) {
        if (firstEmpty && ((bufLine === footLine && !prevIsValue) || bufCol < st.indent)) {
          if (buf.length > 0) {
            if (bufCol < st.indent) mark = bufStart;
            flush(at);
          }
        } else if (buf.length > 0 && at < st.eof) {
          buf.push("");
          counts.push(1);
        }
      } else if (buf.at(-1) === "" && at < st.eof) counts.push((counts.pop() ?? 0) + 1);
      if (at >= st.eof) {
        pos = at;
        break;
      }
      firstEmpty = false;
      recentEmpty = true;
      pos = text.indexOf("\n", at) + 1;
      if (pos === 0) break;
      lineNo++;
      continue;
    }
    if (buf.length > 0 && col < st.indent && col !== bufCol) flush(at);
    if (c !== "#") {
      pos = at;
      break;
    }
    if (buf.length === 0) {
      before = flushed;
      bufStart = at;
      bufCol = col;
      bufLine = lineNo;
    }
    buf.push(commentAt(text, at));
    recentEmpty = false;
    const nl = text.indexOf("\n", at);
    if (nl < 0 || nl >= st.eof) {
      pos = Math.min(st.eof, text.length);
      // the text's end right after the comment: a break, as yaml.v3 reads it
      first = false;
      continue;
    }
    pos = nl + 1;
    lineNo++;
  }
  if (buf.length > 0) {
    st.runs.push({
      kind: "head",
      text: buf.join("\n"),
      mark: bufStart,
      start: bufStart,
      startCol: bufCol,
      end: pos,
      scan: scanMark,
      seq: st.seq,
      blanks: counts,
      afterRun: before,
    });
  }
}

/** The line breaks among the blanks at the end of `source`. */
function endBreaks(source: string): number {
  let n = 0;
  for (let k = source.length - 1; k >= 0 && " \t\r\n".includes(source.charAt(k)); k--)
    if (source[k] === "\n") n++;
  return n;
}

/** The parser's and decoder's part: each run onto the node yaml.v3 gives it. */
function hand(queue: Tok[], runs: Run[], explicit: boolean, openEnd: boolean): DocumentComments {
  const nodes = new Map<CST.Token, NodeComments>();
  const out: DocumentComments = { nodes };
  let head: string[] = [];
  let headCounts: number[] = [];
  let headBefore: boolean[] = [];
  let line: string[] = [];
  let foot: string[] = [];
  let at = 0;
  let started = false;
  let stem: string[] | undefined;
  let stemBefore = false;
  let priorHead = -1;
  const unfold = (tok: Tok, visible: number): void => {
    while (at < runs.length) {
      // (at < runs.length)
      const r = runs[at]!;
      if (r.seq > visible || tok.start < r.mark) return;
      if (r.kind === "head") {
        if (tok.kind === "bend") return;
        head.push(r.text);
        headCounts.push(...r.blanks);
        headBefore.push(r.afterRun);
      } else if (r.kind === "foot") foot.push(r.text);
      else line.push(r.text);
      at++;
    }
  };
  // what was unfolded since the last take, undefined where nothing was (most nodes: no record for them)
  const take = (): NodeComments | undefined => {
    if (head.length === 0 && line.length === 0 && foot.length === 0) {
      if (headCounts.length > 0) headCounts = [];
      if (headBefore.length > 0) headBefore = [];
      return undefined;
    }
    const c: NodeComments = {};
    // (a head keeps the blank line after it, as yaml.v3 cuts it: kpt writes it back above the node)
    if (head.length > 0) c.head = head.join("\n");
    const blanks = headCounts.slice(headCounts.length - empties(c.head));
    if (blanks.length > 0) c.headBlanks = blanks;
    if (head.length > 0 && headBefore[0]) c.headAfterFoot = true;
    if (line.length > 0) c.line = line.join("\n");
    if (foot.length > 0) c.foot = foot.join("\n");
    head = [];
    headCounts = [];
    headBefore = [];
    line = [];
    foot = [];
    return c;
  };
  const endFeet = new Map<CST.Token, string>();
  const order: CST.Token[] = [];
  for (let q = 0; q < queue.length; q++) {
    // (q < queue.length)
    const tok = queue[q]!;
    unfold(tok, tok.seq + (tok.ahead ? 1 : 0));
    if (!started && tok.kind !== "docend") {
      started = true;
      if (!explicit) {
        splitDocumentHead(head, out);
        headCounts = headCounts.slice(headCounts.length - empties(head.join("\n")));
        if (out.head !== undefined) headBefore = head.map(() => false);
      }
    }
    if (tok.kind === "entry") {
      priorHead = head.length;
      continue;
    }
    if ((tok.kind === "bmap" || tok.kind === "bseq") && priorHead > 0) {
      stem = head.slice(0, priorHead);
      stemBefore = headBefore[0] ?? false;
      head = head.slice(priorHead);
      headBefore = headBefore.slice(priorHead);
    }
    if (tok.kind !== "bmap" && tok.kind !== "bseq") priorHead = -1;
    if (tok.kind === "bmap" || tok.kind === "bseq") {
      if (stem && tok.cst) {
        const text = stem.join("\n");
        const blanks = headCounts.splice(0, empties(text));
        const c: NodeComments = { head: text };
        if (blanks.length > 0) c.headBlanks = blanks;
        if (stemBefore) c.headAfterFoot = true;
        nodes.set(tok.cst, c);
      }
      stem = undefined;
      priorHead = -1;
      continue;
    }
    if (tok.kind === "node" && tok.cst) {
      const c = take();
      if (c !== undefined) {
        const had = nodes.get(tok.cst);
        nodes.set(tok.cst, had ? Object.assign(had, c) : c);
      }
      continue;
    }
    if (tok.kind === "bend" && tok.cst) {
      // a block sequence's end takes no comments: what it unfolded waits for the next event
      if (tok.cst.type === "block-seq") continue;
      const c = take();
      if (c?.foot !== undefined) endFeet.set(tok.cst, c.foot);
      order.push(tok.cst);
      continue;
    }
    if (tok.kind === "docend") {
      const c = take();
      const f = c?.foot ?? c?.head;
      if (f !== undefined) out.foot = f;
    }
  }
  decode(nodes, endFeet, order, openEnd);
  return out;
}

/** The empty lines of a comment's text (each a stretch of blank lines of the file). */
function empties(text: string | undefined): number {
  return text === undefined ? 0 : text.split("\n").filter((l) => l === "").length;
}

/** yaml.v3's document start: the head comment up to its last blank line is the document's. */
function splitDocumentHead(head: string[], out: DocumentComments): void {
  const all = head.join("\n");
  for (let i = all.length - 1; i > 0; i--) {
    if (all[i] !== "\n") continue;
    if (i === all.length - 1) {
      out.head = all.slice(0, i);
      head.splice(0, head.length, ...(all.slice(i + 1) === "" ? [] : [all.slice(i + 1)]));
      return;
    }
    if (all[i - 1] === "\n") {
      out.head = all.slice(0, i - 1);
      head.splice(0, head.length, all.slice(i + 1));
      return;
    }
  }
}

/** yaml.v3's decoder: a foot a key took is the entry before's; a value's foot its key's; a mapping's its last key's. */
function decode(
  nodes: Map<CST.Token, NodeComments>,
  endFeet: Map<CST.Token, string>,
  order: readonly CST.Token[],
  openEnd: boolean,
): void {
  // (a document with no comment: nothing to move)
  if (nodes.size === 0 && endFeet.size === 0) return;
  for (const coll of order) {
    const keys = leafKeys(coll);
    if (keys.length === 0) {
      const f = endFeet.get(coll);
      if (f !== undefined) nodes.set(coll, { ...nodes.get(coll), foot: f });
      continue;
    }
    const map = coll;
    let ownFoot = false;
    // each key's value: its item's, the items read in step with the keys (each key is an item's, in order)
    const items = (map as CST.BlockMap).items;
    let j = 0;
    keys.forEach((k, i) => {
      while (j < items.length && items[j]?.key !== k) j++;
      const had = nodes.get(k);
      const kc = had ?? {};
      const prior = i > 0 ? keys[i - 1] : undefined;
      if (kc.foot !== undefined && prior) {
        const before = nodes.get(prior) ?? {};
        before.foot = kc.foot;
        before.footFromNext = true;
        nodes.set(prior, before);
        delete kc.foot;
      } else if (kc.foot !== undefined) ownFoot = true;
      const v = items[j]?.value;
      const vc = v ? nodes.get(v) : undefined;
      if (vc?.foot !== undefined && kc.foot === undefined && v) {
        kc.foot = vc.foot;
        delete vc.foot;
      }
      // (a key with no comment has no record)
      if (had || kc.foot !== undefined) nodes.set(k, kc);
    });
    const end = endFeet.get(map);
    const lastKey = keys.at(-1);
    if (end !== undefined && lastKey) {
      const last = nodes.get(lastKey) ?? {};
      // yaml.v3 puts the end's foot in place of the key's own; where a text ends with no line break
      // (`openEnd`) kpt loses it, and porchlight keeps it, written first (a deviation,
      // docs/kpt-compat.md: "A foot kpt loses where a text ends with no final line break")
      const kept = openEnd && last.foot !== undefined && !last.footFromNext;
      last.foot = kept ? `${last.foot}\n${end}` : end;
      delete last.footFromNext;
      nodes.set(lastKey, last);
      nodes.set(map, { ...nodes.get(map), endFoot: true });
    } else if (ownFoot && keys.length === 1) nodes.set(map, { ...nodes.get(map), keyFoot: true });
  }
}

/**
 * A block mapping's keys that are one token each (a scalar, an alias, a flow collection: the keys the
 * scanner's tokens name, tokensOf's `keyOf`), in order.
 */
function leafKeys(map: CST.Token): CST.Token[] {
  const keys: CST.Token[] = [];
  if (map.type !== "block-map") return keys;
  for (const item of map.items) {
    const k = item.key;
    if (k && LEAF.has(k.type)) keys.push(k);
  }
  return keys;
}

const LEAF: ReadonlySet<string> = new Set([
  "alias",
  "scalar",
  "single-quoted-scalar",
  "double-quoted-scalar",
  "block-scalar",
  "flow-collection",
]);
