import {
  type Document,
  isCollection,
  isMap,
  isNode,
  isScalar,
  isSeq,
  type Node,
  type Pair,
  type Scalar,
} from "yaml";
import { lineStart } from "../text-lines.js";
import { commonYamlHead, isCommonYaml } from "../yaml-fast.js";
import {
  applyComments,
  applyCommonHead,
  applyItemComments,
  readTextComments,
  STRUCTURAL,
  type WholeFile,
} from "./apply.js";
import {
  column,
  commentLineText,
  emptyValue,
  HASH_SPACE,
  lastMarkerBelowComment,
  type NextFoot,
  placeCommentRuns,
  placeDashRun,
  placeScalarRun,
  placeValueRun,
} from "./comment-runs.js";
import { markHashSpaces } from "./hash-space.js";

/**
 * Moves comments the `yaml` parser attaches differently from yaml.v3 (which kpt reads files with) to
 * where yaml.v3 would have them, using the source text the document was parsed from:
 * - a comment on a `---` separator line is dropped (kpt cuts documents apart there), but where the line
 *   is left first in a piece of that cut (the file's first line, say): there it is the first key's head
 *   (`fileStart`: the text starts where the file does, not at a piece of it cut out already;
 *   `pieceStart`, for a text cut out of a file at a `---` line: whether kyaml's cut leaves that line
 *   first in its piece, startsPiece over the whole file — the text alone cannot tell);
 * - `key: # comment` over a block collection is a line comment of the key, not a head comment;
 * - a comment on the lines after a scalar is the next entry's head comment, or the block's foot comment;
 * - the comments after a nested block go where yaml.v3's scanner puts them (comment-runs.ts);
 * - a blank line before a document's last comment is kept.
 * Call once after parsing, before any edit; the document is changed in place. `listItem`: the document
 * is an item of a ResourceList read from `text`; `end`: where the comment lines after it end, at the
 * line of what follows it (offset, and column; -1 at the text's end). `piece`: `text` is the piece of a
 * file from offset `at` (the merge's, whose reading of `---` lines fileStart and pieceStart give the
 * rules; the structural reader reads the whole file and knows).
 */
export function normalizeComments(
  doc: Document,
  text: string,
  {
    listItem = false,
    end: itemEnd,
    fileStart = true,
    pieceStart,
    piece,
  }: {
    listItem?: boolean;
    end?: { offset: number; col: number };
    fileStart?: boolean;
    pieceStart?: boolean;
    piece?: { of: WholeFile; at: number };
  } = {},
): void {
  // An item of a ResourceList has no document head (resourcelist.ts places the comments over its `- `).
  // Without comment lines, and with every comment on its scalar's line, nothing would move: the
  // document has no head comment, its first key none above it.
  if (isCommonYaml(doc)) {
    if (!listItem) noDocumentHead(doc);
    return;
  }
  // the structural reader, given the context: a document of its own, an item of a ResourceList (the
  // reader reads the whole list), a piece of a file (the reader reads the whole file; a piece cut after
  // a `---` line without it keeps the rules: its text alone cannot tell how kpt's cut reads that line);
  // a document the fast reader read with a head above its first key (a licence header) placed from
  // what it read (it keeps no syntax tree for the reader)
  const told =
    listItem || piece !== undefined || !text.startsWith("---") || (fileStart && pieceStart === undefined);
  if (STRUCTURAL && told) {
    const head = listItem ? undefined : commonYamlHead(doc);
    if (head) {
      applyCommonHead(doc, head);
      return;
    }
    if (!text.includes("#")) {
      if (!listItem) noDocumentHead(doc);
      return;
    }
    if (listItem) applyItemComments(doc, readTextComments(text));
    else if (piece) applyComments(doc, piece.of.piece(piece.at, piece.at + text.length));
    else applyComments(doc, readTextComments(text, doc));
    return;
  }
  if (text.includes("\r")) withoutCarriageReturns(doc);
  markHashSpaces(doc, text);
  if (!listItem && !splitDocumentHead(doc, text, fileStart, pieceStart)) dropSeparatorComment(doc, text);
  const lastFoot = listItem ? undefined : lastScalarFoot(doc, text);
  const later: NextFoot[] = [];
  visit(doc.contents, text, later);
  const foot = doc.contents
    ? placeCommentRuns(
        doc.contents as Node,
        text,
        itemEnd?.offset ?? documentEnd(doc, text),
        later,
        itemEnd?.col,
      )
    : undefined;
  if (foot !== undefined) {
    (doc.contents as Node).comment = foot.root === "" ? undefined : foot.root;
    doc.comment = foot.doc === "" ? null : foot.doc;
    if (listItem) itemFootToRoot(doc);
    return;
  }
  if (lastFoot !== undefined) {
    doc.comment = lastFoot;
    return;
  }
  const end = (doc.contents as Node | null)?.range?.[1];
  // (a last `---` below a comment: only the document it ends, not every document of the text)
  const beforeMarker = lastMarkerBelowComment(text) === documentEnd(doc, text);
  if (doc.comment && end !== undefined && (blankLineAt(text, end) || beforeMarker)) {
    doc.comment = `\n${doc.comment}`;
  }
}

/**
 * The comments of a file whose lines end in CRLF, as yaml.v3 reads them: the `yaml` parser leaves each
 * line's `\r` in a comment of several lines (and a blank line among them reads as a lone `\r`).
 */
function withoutCarriageReturns(doc: Document): void {
  const clean = (holder: { commentBefore?: string | null; comment?: string | null }): void => {
    if (holder.commentBefore?.includes("\r")) holder.commentBefore = holder.commentBefore.replace(CR, "");
    if (holder.comment?.includes("\r")) holder.comment = holder.comment.replace(CR, "");
  };
  const walk = (node: unknown): void => {
    if (!isNode(node)) return;
    clean(node);
    if (isMap(node)) {
      for (const pair of node.items as Pair[]) {
        walk(pair.key);
        walk(pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) walk(item);
    }
  };
  clean(doc);
  walk(doc.contents);
}

const CR = /\r(?=\n|$)/g;

/** True when a blank line follows `offset` (taken as the end of a content line) before anything else. */
function blankLineAt(text: string, offset: number): boolean {
  const rest = text.slice(offset);
  return text[offset - 1] === "\n" ? /^[ \t]*\n/.test(rest) : /^[ \t]*\n[ \t]*\n/.test(rest);
}

/**
 * The comment lines above a mapping document's first key, as yaml.v3 reads them: those a blank line
 * separates from the key are the document's head comment (written back followed by a blank line), the
 * ones right above the key are the key's. Runs of blank lines inside become one; comments before the
 * document's `---` (a document of comments only) are dropped, and the one on the `---` line unless that
 * line starts a piece of kpt's cut (startsPiece) and `fileStart` says the text starts where the file does.
 * Returns false when the document is not a mapping with a known position (left as the parser put it).
 */
function splitDocumentHead(
  doc: Document,
  text: string,
  fileStart: boolean,
  pieceStart: boolean | undefined,
): boolean {
  const map = doc.contents;
  if (!isMap(map) || !map.range || map.items.length === 0) return false;
  const first = map.items[0] as Pair;
  const key = isNode(first.key) ? (first.key as Node) : undefined;
  const start = map.range[0];
  // Only a document of its own: a mapping in a ResourceList's items (`- key:`) keeps the parser's comments.
  if (!key || text.slice(lineStart(text, start), start).trim() !== "") return false;
  const { lines, from } = headLines(text, start);
  // kpt (kyaml's reader) cuts a file into pieces at its `---` lines (the line, comment and all, is cut
  // out) and reads each with yaml.v3, which reads comment lines after a piece's explicit start, a `---`
  // line left first in a piece, as the first key's head (no document head, no blank line after them), a
  // comment on that line the first of them (see startsPiece). Another `---` line's comment is dropped.
  const sepStart = from === 0 ? -1 : text.lastIndexOf("\n", from - 2) + 1;
  const leftFirst =
    sepStart >= 0 && (sepStart === 0 && pieceStart !== undefined ? pieceStart : startsPiece(text, sepStart));
  const separator = leftFirst
    ? /^---(?:[ \t]+(#[^\r\n]*))?[ \t]*\r?\n$/.exec(text.slice(sepStart, from))
    : null;
  const onSeparator = separator?.[1];
  // A piece of a file (the merge reads one at a time) whose `---` line kyaml's cut left first in it
  // reads as the file's first piece does: the line's comment kept.
  const readsFirst = fileStart || (sepStart === 0 && pieceStart === true);
  const explicitStart = separator !== null && (readsFirst || onSeparator === undefined);
  if (onSeparator !== undefined && readsFirst) lines.unshift(commentLineText(onSeparator));
  let k = explicitStart ? 0 : lines.length;
  while (k > 0 && lines[k - 1] !== "") k--;
  const keyHead = lines.slice(k);
  const docHead: string[] = [];
  for (const l of lines.slice(0, k)) {
    if (l === "" && (docHead.length === 0 || docHead[docHead.length - 1] === "")) continue;
    docHead.push(l);
  }
  while (docHead[docHead.length - 1] === "") docHead.pop();
  doc.commentBefore = docHead.length > 0 ? docHead.join("\n") : null;
  map.commentBefore = null;
  key.commentBefore = keyHead.length > 0 ? keyHead.join("\n") : null;
  return true;
}

/**
 * Whether the `---` line at `lineStart` is left first in a piece of kyaml's cut: it cuts at each
 * "\n---…\n", so of a run of `---` lines right after one another, the one on the file's first line is
 * left (no line break before it) and every other one after it; after other lines the first is cut out,
 * the second left, and so on.
 */
export function startsPiece(text: string, lineStart: number): boolean {
  let before = 0;
  let at = lineStart;
  while (at > 0) {
    // the line before: from the file's start when `at` is the second line (lastIndexOf would read a
    // negative start as 0 and find the first line's own break again, for ever)
    const prev = at < 2 ? 0 : text.lastIndexOf("\n", at - 2) + 1;
    if (prev >= at || !text.startsWith("---", prev)) break;
    before++;
    at = prev;
  }
  return at === 0 ? before % 2 === 0 : before % 2 === 1;
}

/** What splitDocumentHead leaves where no comment or blank line is above the first key. */
function noDocumentHead(doc: Document): void {
  const map = doc.contents;
  if (!isMap(map) || !map.range || map.items.length === 0) return;
  const key = (map.items[0] as Pair).key;
  if (!isNode(key)) return;
  doc.commentBefore = null;
  map.commentBefore = null;
  (key as Node).commentBefore = null;
}

/**
 * The comment and blank lines right above `offset` (a line start), top to bottom, up to the first line
 * that is neither; a comment line is given as its text after `#`, a blank line as "".
 */
function headLines(text: string, offset: number): { lines: string[]; from: number } {
  const out: string[] = [];
  let from = lineStart(text, offset);
  let end = from - 1;
  while (end >= 0) {
    // The first line starts at 0 (lastIndexOf with a negative start would find a newline at 0 again).
    const start = lineStart(text, end);
    // yaml.v3 keeps a comment's trailing blanks; only the indentation goes.
    const line = text.slice(start, end).replace(/\r$/, "").trimStart();
    if (line.trim() === "") out.push("");
    else if (line.startsWith("#")) out.push(commentLineText(line));
    else break;
    from = start;
    end = start - 1;
  }
  return { lines: out.reverse(), from };
}

function dropSeparatorComment(doc: Document, text: string): void {
  const start = doc.range?.[0];
  if (start === undefined || !text.startsWith("---", start)) return;
  const lineEnd = text.indexOf("\n", start);
  const line = text.slice(start + 3, lineEnd < 0 ? undefined : lineEnd);
  if (!line.includes("#")) return;
  const holder = firstCommentHolder(doc);
  if (!holder?.commentBefore) return;
  const rest = holder.commentBefore.split("\n").slice(1).join("\n");
  holder.commentBefore = rest === "" ? undefined : rest;
}

function firstCommentHolder(doc: Document): { commentBefore?: string | null } | undefined {
  if (doc.commentBefore) return doc;
  let node = doc.contents as Node | null;
  while (node) {
    if (node.commentBefore) return node;
    if (isMap(node)) {
      const first = node.items[0] as Pair | undefined;
      const key = first?.key as Node | undefined;
      if (key?.commentBefore) return key;
      node = null;
    } else if (isSeq(node)) {
      node = (node.items[0] as Node | undefined) ?? null;
    } else {
      node = null;
    }
  }
  return undefined;
}

function visit(node: unknown, text: string, later: NextFoot[], root: unknown = node): void {
  if (isMap(node)) {
    const pairs = node.items as Pair[];
    pairs.forEach((pair, i) => {
      const key = pair.key as Node | null;
      const value = pair.value as Node | null;
      if (key?.range && isCollection(value) && !value.flow && value.commentBefore && value.range) {
        splitKeyLineComment(key, value, text);
        if (node.range && value.items.length > 0) placeValueRun(key, value, column(node, text), text, later);
      }
      // a flow collection is one node on its lines, as a scalar is
      if (isScalar(value) || (isCollection(value) && value.flow)) {
        const next = pairs[i + 1]?.key as Node | undefined;
        moveTrailingComment(value, next, node, text);
        // the document's last value: no run after a block places the lines under its line comment
        if (!next && node === root && !emptyValue(value)) linesUnderToFoot(value, node);
        lineCommentOnly(value, text);
        if (isScalar(value)) blockHeaderComment(value, text);
        if (next && node.range && !node.flow) placeScalarRun(value, next, node, i, text, later);
      }
      visit(value, text, later, root);
    });
    return;
  }
  if (isSeq(node)) {
    const items = node.items as Node[];
    // first: the runs after the items before them end at these items' `-`
    items.forEach((item, i) => {
      if (isMap(item)) placeDashRun(item, i, text, later);
      dashLineComment(item, text);
    });
    items.forEach((item, i) => {
      if (isScalar(item) || (isCollection(item) && item.flow)) {
        const next = items[i + 1];
        moveTrailingComment(item, next, node, text);
        lineCommentOnly(item, text);
        if (isScalar(item)) blockHeaderComment(item, text);
        if (next && node.range && !node.flow) placeScalarRun(item, next, node, i, text, later);
        if (isScalar(item)) emptyItemComment(item, next);
      }
      visit(item, text, later, root);
    });
  }
}

/**
 * `- # c` over a block collection: the comment lines from the `-` line on are, to yaml.v3, the head
 * comment of the collection's first entry (written after the `- `, the entry below); the `yaml` parser
 * makes them the item's own, written above the `-`. Lines above the `-` stay the item's.
 */
function dashLineComment(item: Node, text: string): void {
  if (!(isMap(item) || isSeq(item)) || item.flow || item.items.length === 0) return;
  if (!item.commentBefore || !item.range) return;
  // the lines from the item's start upwards, over comment lines and blank lines, to the `-` line
  let end = lineStart(text, item.range[0]) - 1;
  // an item whose own `-` is on its first line (`- - a: 1`): the comment above is an outer item's
  if (/-\s*$/.test(text.slice(end + 1, item.range[0]))) return;
  let after = 0;
  while (end > 0) {
    const start = lineStart(text, end);
    const line = text.slice(start, end).replace(/\r$/, "");
    const trimmed = line.trimStart();
    if (trimmed === "" || trimmed.startsWith("#")) {
      after++;
      end = start - 1;
      continue;
    }
    // a list's `-` alone on its line (`-` then `  # c` then `  - x`): the comments below it are the same
    if (isSeq(item) && /^-(?: +-)* *$/.test(trimmed)) break;
    if (!/^(?:- +)+#/.test(trimmed)) return;
    after++;
    break;
  }
  if (end <= 0) return;
  const lines = item.commentBefore.split("\n");
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const dashComments = lines.slice(Math.max(0, lines.length - after));
  const above = lines.slice(0, lines.length - dashComments.length);
  const first = item.items[0] as Pair | Node;
  const target = (isMap(item) ? (first as Pair).key : first) as Node | null;
  if (!target || typeof target !== "object") return;
  const moved = dashComments.join("\n").replace(/^\n+/, "");
  target.commentBefore = target.commentBefore ? `${moved}\n${target.commentBefore}` : moved;
  item.commentBefore = above.length > 0 ? above.join("\n") : undefined;
}

/** `key: # c` over a block collection: yaml.v3 keeps `# c` on the key's line. */
function splitKeyLineComment(key: Node, value: Node, text: string): void {
  if (!key.range || !value.range || !value.commentBefore) return;
  const between = text.slice(key.range[1], value.range[0]);
  const nl = between.indexOf("\n");
  const firstLine = nl < 0 ? between : between.slice(0, nl);
  if (!firstLine.includes("#")) return;
  const [first, ...rest] = value.commentBefore.split("\n");
  key.comment = first === " " && /#[ ]\r?$/.test(firstLine) ? HASH_SPACE : first;
  // blank lines right under the key's line are no part of the head below them (kpt writes none)
  while (rest[0] === "") rest.shift();
  value.commentBefore = rest.length > 0 ? rest.join("\n") : undefined;
}

/**
 * The comment lines after the root mapping's last value, a scalar or a flow collection, when a blank
 * line comes before them (`k: b` or `k: b # t`, a blank line, `  # end`): the `yaml` parser gives those right of
 * column 0 to the value and the rest to the document; yaml.v3 ends the document with all of them, at
 * any column, as it does with those at column 0: its foot, written after a blank line, a blank line
 * among them kept (kpt hands a document's foot to no function, and writes it back after one). Returns
 * that foot (its lines read off the text, the parser's taken away), or undefined where the document
 * ends otherwise.
 */
function lastScalarFoot(doc: Document, text: string): string | undefined {
  const root = doc.contents;
  const end = documentEnd(doc, text);
  if (!isMap(root) || root.flow || end === undefined) return undefined;
  const value = (root.items.at(-1) as Pair | undefined)?.value;
  const oneNode = isScalar(value) || (isCollection(value) && value.flow);
  if (!oneNode || emptyValue(value) || !value.comment || !value.range) return undefined;
  const tail = text.slice(value.range[1], end);
  // below the value's line (its line comment stays its own)
  const nl = tail.indexOf("\n");
  const hash = nl < 0 ? -1 : tail.indexOf("#", nl);
  if (hash < 0 || !/\n[ \t]*\r?\n/.test(tail.slice(nl, hash))) return undefined;
  const lines: string[] = [];
  for (const line of tail.slice(lineStart(tail, hash)).split("\n")) {
    const trimmed = line.replace(/\r$/, "").trimStart(); // a comment's trailing blanks kept
    if (trimmed.startsWith("#")) lines.push(commentLineText(trimmed));
    else if (trimmed.trim() !== "") return undefined;
    else if (lines.at(-1) !== "") lines.push("");
  }
  while (lines.at(-1) === "") lines.pop();
  value.comment = tail.slice(0, nl).includes("#") ? value.comment.split("\n")[0] : undefined;
  return `\n${lines.join("\n")}`;
}

/** A scalar's `comment` that starts on a later line belongs to what follows (or ends the block). */
function moveTrailingComment(node: Node, next: Node | undefined, parent: Node, text: string): void {
  if (!node.comment || !node.range) return;
  const tail = text.slice(node.range[1], node.range[2]);
  const hash = tail.indexOf("#");
  if (hash < 0 || !tail.slice(0, hash).includes("\n")) return;
  const comment = node.comment;
  node.comment = undefined;
  if (next && typeof next === "object") {
    next.commentBefore = next.commentBefore ? `${comment}\n${next.commentBefore}` : comment;
  } else {
    parent.comment = parent.comment ? `${comment}\n${parent.comment}` : comment;
  }
}

/**
 * A ResourceList item has no document: the comment lines a blank line parts from its content, which
 * would be a document's foot, end its mapping (yaml.v3 gives them to the item's node, whose foot the
 * input's then is, once).
 */
function itemFootToRoot(doc: Document): void {
  const root = doc.contents as Node | null;
  if (!doc.comment || !root) return;
  const foot = doc.comment.replace(/^\n+/, "");
  root.comment = root.comment ? `${root.comment}\n${foot}` : foot;
  doc.comment = null;
}

/**
 * The comment lines under the line comment of the root mapping's last value (`k: v # c` then `  # d`):
 * the `yaml` parser gives them to the value with its line comment; yaml.v3 ends the root mapping with
 * them, its foot, as it does where the value has no line comment (moveTrailingComment).
 */
function linesUnderToFoot(value: Node, root: Node): void {
  const comment = value.comment;
  const nl = comment?.indexOf("\n") ?? -1;
  if (!comment || nl < 0) return;
  const under = comment.slice(nl + 1).replace(/\r(?=\n|$)/g, "");
  // blank lines only (a bare `#` is " ", a line of its own)
  if (under.split("\n").every((l) => l === "")) return;
  // (the value keeps the first line: lineCommentOnly, right after, cuts it there)
  root.comment = root.comment ? `${under}\n${root.comment}` : under;
}

/**
 * An empty value's line comment (`key: # c`): the `yaml` parser adds the comment lines under it, which
 * the runs after it place again from the text (comment-runs.ts); only the first line is the value's.
 */
function lineCommentOnly(node: Node, text?: string): void {
  const comment = node.comment;
  if (!comment) return;
  // `# ` (one space) and `#` are both " " to the `yaml` parser: the source says which
  if (comment === " " && text !== undefined && node.range) {
    const tail = text.slice(node.range[1], node.range[2]);
    const nl = tail.indexOf("\n");
    if (/#[ ]\r?$/.test(nl < 0 ? tail : tail.slice(0, nl))) node.comment = HASH_SPACE;
    return;
  }
  const nl = comment.indexOf("\n");
  if (nl < 0) return;
  // (of a CRLF file: `yaml` leaves the `\r` in)
  node.comment = comment.slice(0, comment[nl - 1] === "\r" ? nl - 1 : nl);
}

/**
 * A block scalar's header comment that is a bare `#` or `# ` (`key: | #`, `- |- # `): yaml.v3 keeps
 * it as the scalar's line comment, as any other; the `yaml` parser drops a bare `#` there and reads
 * `# ` as a bare one.
 */
function blockHeaderComment(node: Scalar, text: string): void {
  if ((node.type !== "BLOCK_LITERAL" && node.type !== "BLOCK_FOLDED") || !node.range) return;
  const start = node.range[0];
  const nl = text.indexOf("\n", start);
  const header = text.slice(start, nl < 0 ? undefined : nl).replace(/\r$/, "");
  const bare = /^[|>][-+1-9]*[ \t]+#( ?)$/.exec(header);
  if (bare) node.comment = bare[1] === " " ? HASH_SPACE : " ";
}

/**
 * `- # c`: an empty item has no token for a comment to follow, so yaml.v3 reads the comment as the
 * head of the next item (written above its `-`). (Left where it is when lines come between, or when
 * the item is its list's last: rare, and a head of what follows the list then.)
 */
function emptyItemComment(item: Scalar, next: Node | undefined): void {
  if (!emptyValue(item) || !item.comment || !next || next.commentBefore) return;
  next.commentBefore = item.comment;
  item.comment = undefined;
}

/** Where a document parsed from `text` ends (undefined for a node taken out of a larger text). */
function documentEnd(doc: Document, text: string): number | undefined {
  const range = doc.range;
  const contents = doc.contents as Node | null;
  if (!range || !contents?.range || range[2] < contents.range[0] || range[2] > text.length) return undefined;
  return range[2];
}
