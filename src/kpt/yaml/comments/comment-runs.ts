import {
  isMap,
  isPair,
  isScalar,
  isSeq,
  type Node,
  type Pair,
  type Scalar,
  type YAMLMap,
  type YAMLSeq,
} from "yaml";
import { lineStart } from "../text-lines.js";

/**
 * A comment line's text as the `yaml` parser keeps it: after the `#`, a lone `#` as a space; the `\r`
 * of a CRLF line ending is no part of it.
 */
export function commentLineText(line: string): string {
  const end = line.endsWith("\r") ? line.length - 1 : line.length;
  const text = line.slice(1, end);
  // `#` and `# ` are both " " to the `yaml` parser; yaml.v3 keeps the space of `# `
  return text === "" ? " " : text === " " ? HASH_SPACE : text;
}

/**
 * A comment line `# ` (one space, nothing after it) where it was read from the source text: the
 * `yaml` parser gives `#` and `# ` alike as " ", which format.ts writes as a lone `#`. Not a character
 * a YAML comment can hold (NUL is not printable), so no comment's own text is mistaken for it.
 */
export const HASH_SPACE = "\u0000";

/**
 * The comment lines between the end of a nested block and what follows it, placed as yaml.v3 (kpt's
 * reader) places them. The `yaml` parser gives each line to a block by its indentation; yaml.v3's
 * scanner cuts the run into pieces and gives each its own owner:
 * - a piece that the next line leaves at a smaller indentation than the innermost block's, at another
 *   column than the piece's own, ends there; so does the first piece at a blank line when no blank
 *   line came before it and it starts right after the content (or left of the innermost block);
 * - the first piece so ended is the foot of the last value (the innermost block's last entry);
 * - a later piece is the foot of the closing block whose indentation is its column, else the foot of
 *   the entry before what follows;
 * - what is left before the next entry is that entry's head comment.
 * `block` is a block mapping or sequence; its entries are checked one after another (and below).
 * With `end` (where the document's text ends), the run after the last entry is placed too; what of
 * it is the document's foot comment and the root mapping's is returned ("" for none), undefined when
 * there is no such run.
 * `later`: feet found before (placeValueRun), given to their scalars with those found here, at the end.
 * `endCol`: where the document is an item of a list (a ResourceList's), the column of what follows it
 * on the line at `end` (the next `-`, or the list's mapping's next key); -1 where the text ends there.
 */
export function placeCommentRuns(
  block: Node,
  text: string,
  end?: number,
  later: NextFoot[] = [],
  endCol = -1,
): { doc: string; root: string } | undefined {
  const rootFoot: string[] = [];
  const marks: Marks = { endFeet: false };
  const foot = placeRuns(block, text, end, later, isMap(block) ? rootFoot : undefined, endCol, marks);
  if (marks.endFeet) (block as { [HAS_END_FEET]?: boolean })[HAS_END_FEET] = true;
  // after every run is placed: placing a run clears the comments above the entry that follows it
  keptValueFeet(later);
  for (const f of withDashFeetJoined(later)) footOfFirstScalar(f);
  return foot === undefined ? undefined : { doc: foot, root: rootFoot.join("\n") };
}

/**
 * Where the text's last line starts when it is a `---` line with no line break after it, right below a
 * comment line; else -1. kyaml cuts no piece there, and yaml.v3 reads the comment lines at column 0 right
 * above that `---` as the document's foot (written after a blank line), not the root mapping's.
 */
export function lastMarkerBelowComment(text: string): number {
  const last = text.lastIndexOf("\n");
  if (last < 0 || !/^---[^\n]*$/.test(text.slice(last + 1))) return -1;
  const before = text.slice(lineStart(text, last), last);
  return before.trimStart().startsWith("#") ? last + 1 : -1;
}

/** A foot that yaml.v3 gives to the first scalar of `block`'s entry or item `index` (see place). */
export interface NextFoot {
  block: YAMLMap | YAMLSeq;
  index: number;
  /**
   * The comment; it ends with a newline where a blank line ended it, which yaml.v3 keeps when a
   * foot of the same scalar follows.
   */
  body: string;
  /** The text the document was parsed from. */
  source: string;
  /** Found after a `-` alone on its line (placeDashRun). */
  afterDash?: boolean;
}

/** The block and the index in it of the entry or item whose first scalar a NextFoot goes to. */
function firstScalarOf({ block, index }: NextFoot): [YAMLMap | YAMLSeq, number] {
  let b = block;
  let at = index;
  while (isSeq(b) && isBlock(b.items[at])) {
    b = b.items[at] as YAMLMap | YAMLSeq;
    at = 0;
  }
  return [b, at];
}

/**
 * yaml.v3 hands a foot found before a `-` that no block's end takes, and one found after the `-`, to
 * the same scalar as one comment (its parser takes both at the `-`): the second is joined to the first.
 */
function withDashFeetJoined(later: NextFoot[]): NextFoot[] {
  const out: NextFoot[] = [];
  for (const f of later) {
    if (!f.afterDash) out.push({ ...f });
  }
  for (const f of later) {
    if (!f.afterDash) continue;
    const [b, at] = firstScalarOf(f);
    const before = out.find((o) => {
      const [ob, oat] = firstScalarOf(o);
      return !o.afterDash && ob === b && oat === at;
    });
    if (before) before.body = `${before.body}\n${f.body}`;
    else out.push(f);
  }
  return out;
}

/**
 * Block mappings whose end took a foot in place (not their last value's foot): yaml.v3's decoder makes
 * that foot its last key's, in place of one the key had, so a mapping of one entry loses the foot its
 * only key had as its first scalar (footOfFirstScalar). Only read while a document's runs are placed.
 */
const footAtEnd = new WeakSet<Node>();

/**
 * The foot of a one-entry mapping's value (place's "last" piece) where the mapping's end takes a foot:
 * yaml.v3's decoder moves the value's foot to the key, and the end's then replaces it, unless the key
 * had a foot of its own before (footOfFirstScalar): then the value keeps its foot and kpt writes it.
 */
const valueFootAtEnd = new WeakMap<Node, string>();

/** Keys above which place left the foot of the entry before them (yaml.v3 gives it to the key). */
const footBefore = new WeakSet<Node>();

/** The foot place left above a key, as its own property (see footBeforeText), so a copy keeps it. */
const FOOT_BEFORE = Symbol("porchlight.footBefore");

/**
 * The foot of the entry before that place wrote at the start of `key`'s head comment (with the line
 * break that ends it): yaml.v3 holds it on that entry's key, apart from this key's own head comment.
 */
export function footBeforeText(key: Node): string | undefined {
  return (key as { [FOOT_BEFORE]?: string })[FOOT_BEFORE];
}

/** The value of entry `at` of a mapping. */
const prev = (block: YAMLMap, at: number): unknown => (block.items[at] as Pair | undefined)?.value;

/**
 * True when yaml.v3 gives `key` (of `block`, after the entry whose value is `value`) a foot, which its
 * decoder moves to the entry before, in place of any foot that entry's key had: a foot piece
 * (comment-runs' "column") before the key that no closing block takes.
 */
function replacedByNextFoot(value: unknown, key: Node, block: YAMLMap, text: string): boolean {
  if (footBefore.has(key)) return true;
  if (!isScalar(value) || !value.range || !key.range || !block.range) return false;
  const from = lineAfter(text, value.range[1]);
  const keyLine = lineStart(text, key.range[0]);
  if (from > keyLine) return false;
  const lines = text.slice(from, keyLine).split("\n");
  lines.pop();
  if (lines.some((l) => l.trim() !== "" && !l.trim().startsWith("#"))) return false;
  return cut(lines, column(block, text), key.range[0] - keyLine).some((p) => p.owner === "column");
}

/** Marks a block mapping as keyFoot tells; a property of the node, so a copy of it keeps it. */
const KEY_FOOT = Symbol("porchlight.keyFoot");

/**
 * Whether kpt writes the block mapping's foot comment (`comment`) at the mapping's own indentation, not
 * at that of the innermost block ending with it: the foot yaml.v3 gave to the mapping's first and only
 * key (see place), which its encoder writes after the entry as a tail comment. The mark is the node's
 * own (symbol-keyed) property, so `clone()` and the parse cache's copies carry it with the comment.
 */
export function keyFoot(node: Node): boolean {
  return (node as { [KEY_FOOT]?: boolean })[KEY_FOOT] === true;
}

/** Marks a block mapping as endFoot tells; a property of the node, so a copy of it keeps it. */
const END_FOOT = Symbol("porchlight.endFoot");

/**
 * Whether the block mapping's foot comment is one its end took from the comment lines after it (a
 * piece at the mapping's column, see place): yaml.v3's decoder gives it to the mapping's last key,
 * whose foot its encoder writes after the entry at the key's indentation, whatever follows. kyaml's
 * merge walk does not keep it there (clearEndFeet).
 */
export function endFoot(node: Node): boolean {
  return (node as { [END_FOOT]?: boolean })[END_FOOT] === true;
}

/** Marks a document's root node below which place marked a mapping (endFoot); see endFeetAfterTrip. */
const HAS_END_FEET = Symbol("porchlight.hasEndFeet");

/** Whether a mapping below a document's node `root` was marked endFoot when it was read. */
export function hasEndFeet(root: unknown): boolean {
  return (root as { [HAS_END_FEET]?: boolean } | null)?.[HAS_END_FEET] === true;
}

/** What one placeCommentRuns call found while it placed the runs: place sets it, the call reads it. */
interface Marks {
  /** place marked a mapping below the document's node (endFoot). */
  endFeet: boolean;
}

/**
 * What a function's trip does to the feet mappings' ends took (endFoot) where more of the document
 * follows, `root` being a document's node: yaml.v3 writes such a foot at the mapping's column with no
 * blank line after it, so the reader on the other side (the function's, then kpt's) gives it to the
 * innermost block ending there, as the foot of its last value; kyaml's CopyComments then gives the
 * mapping's last key its foot back from the input, and kpt writes the comment twice. A foot at the
 * document's end, or where the innermost block has a foot of its own, stays as it was. `followed`: the
 * document is not the last item of the ResourceList, so its end is followed (by the next item's `-`)
 * too, the root mapping's own foot included.
 */
export function endFeetAfterTrip(root: unknown, followed = false): void {
  // the root mapping's own foot, written at its column, is read back so where an item follows it
  if (followed && isMap(root) && root.comment) footToInnermost(root, root.comment);
  if (!hasEndFeet(root)) return;
  tripEndFeet(root, followed, true);
}

/**
 * Gives `comment` to the innermost block ending where `block` ends, where that block has no foot; a flow
 * mapping is no block, and its comment goes nowhere.
 */
function footToInnermost(block: YAMLMap, comment: string): void {
  const found = closingBlocks(block).closing.at(-1);
  if (found && found !== block && !found.comment) found.comment = comment;
}

/**
 * The blocks that close where block collection `value` ends: `value` and its last descendants (each
 * the last entry's value, or last item, of the one before), outermost first; and what ends them (the
 * last of them's last value, or its key where the value is missing).
 */
function closingBlocks(value: unknown): { closing: (YAMLMap | YAMLSeq)[]; last: unknown } {
  const closing: (YAMLMap | YAMLSeq)[] = [];
  let last: unknown = value;
  while (isBlock(last)) {
    closing.push(last as YAMLMap | YAMLSeq);
    const items = (last as YAMLMap | YAMLSeq).items;
    const tail = items[items.length - 1];
    last = isPair(tail) ? (tail.value ?? tail.key) : tail;
  }
  return { closing, last };
}

function tripEndFeet(node: unknown, followed: boolean, root = false): void {
  const pairs = isMap(node) ? (node.items as Pair[]) : undefined;
  const children: unknown[] = pairs ? pairs.map((p) => p.value) : isSeq(node) ? node.items : [];
  children.forEach((child, i) => {
    const more = followed || i < children.length - 1;
    // kpt's reader appends its annotations to a resource's metadata before the trip: its last key's foot
    // is then written before them, and read back where it was
    const key = pairs?.[i]?.key;
    const metadata = root && isScalar(key) && key.value === "metadata";
    if (more && !metadata && isMap(child) && endFoot(child) && child.comment)
      footToInnermost(child, child.comment);
    tripEndFeet(child, more);
  });
}

/** Marks block mapping `node`'s foot as one its end took: written at its own column (see endFoot). */
export function markEndFoot(node: Node): void {
  (node as { [END_FOOT]?: boolean })[END_FOOT] = true;
}

/** Gives `to` the marks of `from` among `marks` (each a node's own, symbol-keyed, property). */
function copySome(from: Node, to: Node, marks: readonly symbol[]): void {
  for (const mark of marks) {
    const value: unknown = Reflect.get(from, mark);
    if (value !== undefined) Reflect.set(to, mark, value);
  }
}

/** Gives `to` the marks of `from`'s head comment: the foot of the entry before in it, feet only. */
export function copyHeadMarks(from: Node, to: Node): void {
  copySome(from, to, [FOOT_BEFORE, FEET_ONLY]);
}

/** Gives `to` the marks of `from`'s foot: where kpt writes it (keyFoot, endFoot). */
export function copyFootMarks(from: Node, to: Node): void {
  copySome(from, to, [KEY_FOOT, END_FOOT]);
}

/** Gives `to` every mark `from` has: a copy of a node's comments keeps where yaml.v3 holds them. */
export function copyMarks(from: Node, to: Node): void {
  copySome(from, to, [FOOT_BEFORE, FEET_ONLY, KEY_FOOT, END_FOOT, HAS_END_FEET]);
}

/** Drops the endFoot marks of `node` and every block below it. */
export function clearEndFeet(node: unknown): void {
  if (isMap(node)) {
    if (endFoot(node)) (node as { [END_FOOT]?: boolean })[END_FOOT] = undefined;
    for (const pair of node.items as Pair[]) clearEndFeet(pair.value);
  } else if (isSeq(node)) {
    for (const item of node.items) clearEndFeet(item);
  }
}

/** Marks a key or item whose head comment is feet only, as feetOnly tells; a property of the node. */
const FEET_ONLY = Symbol("porchlight.feetOnly");

/**
 * Whether the comment lines above `node` (its commentBefore, with a blank line among them) are all
 * feet of what comes before it: the foot of a scalar and the foot yaml.v3 gave its key, which kpt
 * writes with a blank line after them as after any foot (footOfFirstScalar).
 */
export function feetOnly(node: Node): boolean {
  return (node as { [FEET_ONLY]?: boolean })[FEET_ONLY] === true;
}

/**
 * Gives `body` to the first scalar of entry or item `index` of `block` as yaml.v3 holds it (the foot of that item,
 * or of the first key of a mapping item, or of the first item of a list item) and writes it where the
 * encoder writes that foot: after the item or entry, above the one that follows with a blank line
 * between (the comment before the next with a blank line after it), or as its block's foot.
 */
function footOfFirstScalar({ block: outer, index, body: text, source }: NextFoot): void {
  const body = text.replace(/\n+$/, "");
  const [block, at] = firstScalarOf({ block: outer, index, body: text, source });
  const sibling = block.items[at + 1];
  const target = isPair(sibling) ? sibling.key : sibling;
  if (sibling !== undefined) {
    if (!isNodeLike(target)) return;
    const t = target as Node;
    // a foot yaml.v3 gives to the sibling key its decoder hands to this entry's key, in place of this one
    if (isMap(block) && replacedByNextFoot(prev(block, at), t, block, source)) return;
    // what the parser left above the sibling after a scalar: up to a blank line, that scalar's foot
    // (format.ts writes it so), unless a blank line comes first
    const before = block.items[at];
    const existing = t.commentBefore ?? "";
    const afterScalar = !t.spaceBefore && !isBlock(isPair(before) ? before.value : before);
    const split = afterScalar ? existing.indexOf("\n\n") : -1;
    // the scalar's foot with no head after it: placeScalarRun leaves it followed by one line break
    const footAlone = afterScalar && split < 0 && existing.endsWith("\n");
    const own = split >= 0 ? existing.slice(0, split) : footAlone ? existing.slice(0, -1) : "";
    const head = split >= 0 ? existing.slice(split + 2) : footAlone ? "" : existing;
    const joined =
      own === ""
        ? body
        : isSeq(block)
          ? `${text}\n${own}` // the item's own foot follows in the same comment
          : `${own}\n\n${body}`; // the key's foot is written after the value's, a blank line between
    t.commentBefore = `${joined}\n${head ? `\n${head}` : ""}`;
    t.spaceBefore = false;
    // feet only (a blank line between two of them, or within one): the blank line after them stays too
    (t as { [FEET_ONLY]?: boolean })[FEET_ONLY] = head === "" ? true : undefined;
    return;
  }
  if (isSeq(block)) {
    // the item's own foot follows it in the same comment
    block.comment = block.comment ? `${text}\n${block.comment}` : body;
    return;
  }
  // the mapping's own foot replaces its only key's; the value keeps its own, written first
  if (block.comment && footAtEnd.has(block)) {
    const valueFoot = valueFootAtEnd.get(block);
    if (valueFoot !== undefined) block.comment = `${valueFoot}\n\n${block.comment}`;
    valueFootAtEnd.delete(block);
    return;
  }
  // the key's foot is written after the entry's value and its foot, a blank line between
  block.comment = block.comment ? `${block.comment}\n\n${body}` : body;
  (block as { [KEY_FOOT]?: boolean })[KEY_FOOT] = true;
}

function placeRuns(
  block: Node,
  text: string,
  end: number | undefined,
  later: NextFoot[],
  rootFoot: string[] | undefined,
  endCol: number,
  marks: Marks,
): string | undefined {
  const children: { value: unknown; next: unknown }[] = [];
  if (isMap(block) && !block.flow) {
    const pairs = block.items as Pair[];
    pairs.forEach((pair, i) => {
      children.push({ value: pair.value, next: pairs[i + 1]?.key });
    });
  } else if (isSeq(block) && !block.flow) {
    const items = block.items as unknown[];
    items.forEach((item, i) => {
      children.push({ value: item, next: items[i + 1] });
    });
  }
  let foot: string | undefined;
  children.forEach(({ value, next }, i) => {
    if (!isBlock(value)) return;
    const isLast = i === children.length - 1;
    const seqItem = isSeq(block) ? { seq: block as YAMLSeq, index: i + 1, later } : undefined;
    if (!isLast && isNodeLike(next)) place(value as Node, next as Node, text, marks, 0, seqItem);
    else if (isLast && end !== undefined)
      foot = place(value as Node, undefined, text, marks, end, undefined, rootFoot, endCol);
    placeRuns(value as Node, text, isLast ? end : undefined, later, undefined, endCol, marks);
  });
  // the root mapping's last value empty (`key:`, then only comment lines to the document's end): the
  // run ends the root mapping as a nested one's ends it (after the `:`, every piece is a head, so the
  // document's foot, written after a blank line)
  const last = children[children.length - 1];
  if (rootFoot && end !== undefined && last && emptyValue(last.value))
    foot = place(block, undefined, text, marks, end, undefined, rootFoot, endCol);
  return foot;
}

const isBlock = (n: unknown): boolean =>
  (isMap(n) || isSeq(n)) && !(n as YAMLMap).flow && (n as YAMLMap | YAMLSeq).items.length > 0;

const isNodeLike = (k: unknown): boolean =>
  typeof k === "object" && k !== null && !isPair(k) && (k as Node).range != null;

interface Piece {
  col: number;
  lines: string[];
  /** "head" of the next entry, "last" value's foot, or foot by column. */
  owner: "head" | "last" | "column";
  /** A blank line comes before the piece. */
  blankBefore: boolean;
  /** A blank line ends the piece (yaml.v3 keeps it as a last empty line of the comment). */
  blankAfter: boolean;
}

/**
 * An empty value: `key:` or `-` with nothing after it (but a comment) — no token of its own for the
 * scanner, unlike `~` or `null`.
 */
export function emptyValue(node: unknown): node is Scalar {
  return isScalar(node) && node.value === null && node.source === "";
}

/**
 * One run: `value` (a block collection, an entry's value or a list item) is followed by `next` (the
 * next key or item), or by the end of the document at `end`. The blocks that close between them are
 * `value` and its last descendants.
 */
function place(
  value: Node,
  next: Node | undefined,
  text: string,
  marks: Marks,
  end = 0,
  seqItem?: { seq: YAMLSeq; index: number; later: NextFoot[] },
  rootFoot?: string[],
  endCol = -1,
): string | undefined {
  const { closing, last } = closingBlocks(value);
  const innermost = closing.at(-1);
  const lastNode = last as Node | null;
  if (!innermost || !lastNode?.range || (next && !next.range)) return undefined;
  const run = runLines(text, lastNode.range[1], next, seqItem !== undefined, end);
  if (!run) return undefined;
  const { lines, nextLine } = run;
  const inner = column(innermost, text);
  const nextCol = next ? text.slice(nextLine).search(/\S/) : endCol;
  const pieces = runPieces(lines, lastNode, innermost, inner, nextCol);
  if (!pieces) return undefined;
  // where each block ends among the pieces (yaml.v3 unrolling indents): the pieces up to it are its foot
  const lastCol = next ? undefined : lastLineEnd(text, nextLine);
  const owners = pieceOwners(pieces, closing, innermost, blockEnds(closing, pieces, text, lastCol));
  markEndsTakingFeet(pieces, owners, marks);
  const lastReplaced = lastFootReplaced(innermost, pieces, owners);
  clearParsedComments(closing, next, lastNode, text);
  // the last piece, when it is right above a last `---` (lastMarkerBelowComment)
  const beforeMarker = !next && lastMarkerBelowComment(text) === nextLine ? pieces.length - 1 : -1;
  const { head, beforeNext, firstScalar } = givePieces(pieces, owners, innermost, {
    next,
    inSeq: seqItem !== undefined,
    rootFoot,
    endCol,
    lastReplaced,
    lastCol,
    beforeMarker,
  });
  if (!next) {
    // yaml.v3 writes a blank line before the document's foot
    if (head.length > 0) head[0] = `\n${head[0]}`;
    return head.join("\n");
  }
  // only a run after a list item leaves feet for its next item's first scalar
  if (seqItem && firstScalar.length > 0)
    seqItem.later.push({
      block: seqItem.seq,
      index: seqItem.index,
      body: firstScalar.join("\n"),
      source: text,
    });
  writeRunAbove(next, head, beforeNext);
}

/**
 * The lines of the run that follows the node ending at `lastEnd` (see place), up to `next`'s line, or
 * the `-` alone on its line over it (`inSeq`: `next` is a list item), or the line after `end`; and
 * where that line starts. Undefined where no line comes between.
 */
function runLines(
  text: string,
  lastEnd: number,
  next: Node | undefined,
  inSeq: boolean,
  end: number,
): { lines: string[]; nextLine: number } | undefined {
  const from = lineAfter(text, lastEnd);
  // an item under a `-` alone on its line: the run ends at the `-` (what follows it is placeDashRun's)
  const dash = next && inSeq ? loneDash(next, text) : undefined;
  const nextLine = dash ? dash.line : next?.range ? lineStart(text, next.range[0]) : lineAfter(text, end);
  if (from > nextLine) return undefined;
  const lines = text.slice(from, nextLine).split("\n");
  // the line break that ends the run; at the end of a text with no final line break, its last line
  if (lines[lines.length - 1] === "" || nextLine < text.length) lines.pop();
  return { lines, nextLine };
}

/**
 * The run's pieces as yaml.v3's scanner cuts them (see cut), `inner` being the innermost closing block's
 * column and `nextCol` that of what follows; undefined where a line of the run is no comment, or where
 * it has no comment line and no empty item's comment to place.
 */
function runPieces(
  lines: string[],
  lastNode: Node,
  innermost: YAMLMap | YAMLSeq,
  inner: number,
  nextCol: number,
): Piece[] | undefined {
  const empty = emptyValue(lastNode);
  // `- # c` last in its list, no comment line after it: the comment follows no token of its item, and
  // yaml.v3 reads it as the head of what follows (see emptyItemComment)
  const emptyHead = empty && isSeq(innermost) && lastNode.comment ? lastNode.comment : undefined;
  // a run with no comment line is placed only for that head, its one piece
  let headPiece: Piece | undefined;
  if (!lines.some((l) => l.trim().startsWith("#"))) {
    if (emptyHead === undefined || lines.some((l) => l.trim() !== "")) return undefined;
    lastNode.comment = undefined;
    headPiece = { col: inner, lines: [emptyHead], owner: "head", blankBefore: false, blankAfter: false };
  }
  if (lines.some((l) => l.trim() !== "" && !l.trim().startsWith("#"))) return undefined;
  // after `key:` with no value the scanner's last token is the `:`, after which no piece is a foot
  const afterColon = empty && isMap(innermost);
  return headPiece ? [headPiece] : cut(lines, inner, nextCol, afterColon);
}

/**
 * The closing block each piece of a run is the foot of, by where each ends (`ends`, see blockEnds):
 * the innermost for the "last" piece; for a foot, the innermost block that has not ended before it,
 * or the nearest mapping outside it (a list's end takes no comment). Undefined for a head, or a foot
 * no closing block takes.
 */
function pieceOwners(
  pieces: readonly Piece[],
  closing: readonly (YAMLMap | YAMLSeq)[],
  innermost: YAMLMap | YAMLSeq,
  ends: readonly number[],
): (YAMLMap | YAMLSeq | undefined)[] {
  return pieces.map((p, k) => {
    if (p.owner === "head") return undefined;
    if (p.owner === "last") return innermost;
    for (let j = closing.length - 1; j >= 0; j--) {
      if (ends[j]! < k) continue; // ends has an entry for each closing block
      while (j >= 0 && !isMap(closing[j])) j--;
      return j >= 0 ? closing[j] : undefined;
    }
    return undefined;
  });
}

/**
 * Marks each mapping whose end takes a foot: yaml.v3's decoder gives that foot to its last key (see
 * footAtEnd), which its encoder writes after the entry at the key's indentation (keyFoot).
 */
function markEndsTakingFeet(
  pieces: readonly Piece[],
  owners: readonly (YAMLMap | YAMLSeq | undefined)[],
  marks: Marks,
): void {
  pieces.forEach((p, k) => {
    const o = owners[k];
    if (!o || !isMap(o) || p.owner === "last") return;
    footAtEnd.add(o);
    (o as { [END_FOOT]?: boolean })[END_FOOT] = true;
    marks.endFeet = true;
  });
}

/**
 * Whether the last value's foot (the "last" piece), which is its key's, gives way to the innermost
 * mapping's end foot, which takes that key's place (yaml.v3's decoder): kpt drops the first, which a
 * one-entry mapping keeps aside (see valueFootAtEnd).
 */
function lastFootReplaced(
  innermost: YAMLMap | YAMLSeq,
  pieces: readonly Piece[],
  owners: readonly (YAMLMap | YAMLSeq | undefined)[],
): boolean {
  const lastReplaced =
    isMap(innermost) && pieces.some((p, k) => owners[k] === innermost && p.owner !== "last");
  if (lastReplaced && innermost.items.length === 1) {
    const last = pieces.filter((p) => p.owner === "last").map((p) => p.lines.join("\n"));
    if (last.length > 0) valueFootAtEnd.set(innermost, last.join("\n"));
  }
  return lastReplaced;
}

/**
 * Drops what the `yaml` parser made of a run's lines, which place gives out anew: the closing blocks'
 * feet, `next`'s head comment, and the last scalar's comment where it stands on a line of its own.
 */
function clearParsedComments(
  closing: readonly (YAMLMap | YAMLSeq)[],
  next: Node | undefined,
  lastNode: Node,
  text: string,
): void {
  for (const c of closing) c.comment = undefined;
  if (next) next.commentBefore = undefined;
  if (isScalar(lastNode) && lastNode.comment && commentOnLaterLine(lastNode, text))
    lastNode.comment = undefined;
}

/** What follows a run (place's parameters) and what place found of it, as givePieces reads them. */
interface RunEnd {
  next: Node | undefined;
  /** The run follows a list item (place's `seqItem`). */
  inSeq: boolean;
  rootFoot: string[] | undefined;
  endCol: number;
  /** The last value's foot gives way to the innermost mapping's end foot (lastFootReplaced). */
  lastReplaced: boolean;
  /** Where the text ends in the run with no final line break (lastLineEnd). */
  lastCol: number | undefined;
  /** The index of the piece right above a last `---`, -1 for none. */
  beforeMarker: number;
}

/** The comment lines of a run that place writes itself (see givePieces). */
interface RunRest {
  /** `next`'s head comment; at the document's end, the document's foot. */
  head: string[];
  /** The foot of the entry before `next`. */
  beforeNext: string[];
  /** The feet that wait for the first scalar of the list's next item. */
  firstScalar: string[];
}

/**
 * Gives each piece of a run where yaml.v3 holds it: the foot of the closing block that owns it
 * (pieceOwners), the root mapping's foot, or nowhere (kpt drops it); and returns the rest for place
 * to write, above `next` or as the document's foot.
 */
function givePieces(
  pieces: readonly Piece[],
  owners: readonly (YAMLMap | YAMLSeq | undefined)[],
  innermost: YAMLMap | YAMLSeq,
  { next, inSeq, rootFoot, endCol, lastReplaced, lastCol, beforeMarker }: RunEnd,
): RunRest {
  const head: string[] = [];
  const beforeNext: string[] = [];
  const firstScalar: string[] = [];
  const rootEnd = pieces.findIndex((p) => p.col === 0);
  let docFoot = false;
  pieces.forEach((p, k) => {
    const body = p.lines.join("\n");
    const owner = owners[k];
    const add = (c: YAMLMap | YAMLSeq) => {
      c.comment = c.comment ? `${c.comment}\n${body}` : body;
    };
    if (k === beforeMarker && p.col === 0) {
      docFoot = true;
      head.push((p.blankBefore && head.length > 0 ? "\n" : "") + body);
      return;
    }
    // where the text ends with no final line break, kpt loses that foot (`    d: 1` / `  # A` / `# END`
    // comes back `    # END`): porchlight keeps it, written before the foot that replaced it (a
    // deviation, docs/kpt-compat.md)
    if (p.owner === "last" && lastReplaced && lastCol !== undefined) {
      valueFootAtEnd.delete(innermost);
      add(innermost);
      return;
    }
    if (p.owner === "last" && lastReplaced) return;
    if (p.owner !== "head" && owner) add(owner);
    // a foot no closing block takes waits for the next event that takes comments: after a mapping's
    // entry, the next key's (the decoder hands it back to the entry before); in a sequence, the
    // first scalar of the next item
    else if (p.owner !== "head" && inSeq) firstScalar.push(p.blankAfter ? `${body}\n` : body);
    else if (next) (p.owner === "head" ? head : beforeNext).push(body);
    // at the document's end the root mapping's end is at its column's first piece: a foot up to it is
    // the root's, and with no piece at its column every foot is (kpt writes it with no blank line
    // before it); the rest waits for the document's end
    else if (rootFoot && p.owner !== "head" && (rootEnd < 0 || k <= rootEnd)) rootFoot.push(body);
    // the document's end takes a head comment (the last piece) as its foot only when no foot came
    // before it; else yaml.v3 keeps it as the end's head, which nothing writes
    else if (!next && p.owner === "head" && docFoot) return;
    // a list item's: the head of what follows it (resourcelist.ts reads those over the next `-`)
    else if (!next && p.owner === "head" && endCol >= 0) return;
    else {
      if (p.owner !== "head") docFoot = true;
      head.push((p.blankBefore && head.length > 0 ? "\n" : "") + body);
    }
  });
  return { head, beforeNext, firstScalar };
}

/**
 * The rest of a run written above `next`: the foot of the entry before it, followed by a blank line
 * (kept apart too, see footBeforeText), then `next`'s head comment.
 */
function writeRunAbove(next: Node, head: readonly string[], beforeNext: readonly string[]): void {
  // the foot of the entry before `next` is written followed by a blank line
  const foot = beforeNext.length > 0 ? `${beforeNext.join("\n")}\n` : "";
  if (foot !== "") {
    footBefore.add(next);
    (next as { [FOOT_BEFORE]?: string })[FOOT_BEFORE] = foot;
  }
  const joined = foot + (head.length > 0 ? (foot ? "\n" : "") + head.join("\n") : "");
  if (joined !== "") next.commentBefore = joined;
  // feet only, a blank line within them (`# B` / blank / `# C`): the blank line after them stays too
  if (foot !== "" && head.length === 0) (next as { [FEET_ONLY]?: boolean })[FEET_ONLY] = true;
  // the blank line after that foot is written whatever blank lines came before the run
  if (foot !== "") next.spaceBefore = false;
}

/**
 * Where each block of `closing` ends among the run's pieces: the index of the piece it ends at (that
 * piece and those before it are its foot if no block inside takes them), -1 before the first. yaml.v3
 * unrolls the indentation levels at the line that follows the run: a block ends at the first piece at
 * its column, else before the run. At the end of a text with no final line break there is no such
 * line: the scanner unrolls only the blocks right of the column where the text ends (`lastCol`, the
 * length of its last line), the others at the stream's end, where a block without a piece at its
 * column ends where the block inside it did, or after the whole run.
 * (a list's end too, but its end event takes no comment: the next mapping's end outside it does; a
 * list at its mapping's column has no end of its own)
 */
function blockEnds(
  closing: readonly (YAMLMap | YAMLSeq)[],
  pieces: readonly Piece[],
  text: string,
  lastCol: number | undefined,
): number[] {
  const ends = closing.map(() => -1);
  let atStreamEnd = pieces.length;
  for (let j = closing.length - 1; j >= 0; j--) {
    const c = closing[j]!; // j < closing.length
    const col = column(c, text);
    const outer = j > 0 ? closing[j - 1] : undefined;
    if (!isMap(c) && !(outer && col !== column(outer, text))) continue;
    const at = pieces.findIndex((p) => p.col === col);
    if (lastCol === undefined || col > lastCol) ends[j] = at;
    else {
      const end = at >= 0 ? at : atStreamEnd;
      ends[j] = end;
      atStreamEnd = end;
    }
  }
  return ends;
}

/**
 * Where a text with no final line break ends, when the run that ends at `runEnd` reaches that end: the
 * column (in characters, as yaml.v3 counts them) after its last line; undefined otherwise.
 */
function lastLineEnd(text: string, runEnd: number): number | undefined {
  if (text.endsWith("\n") || runEnd < text.length) return undefined;
  return [...text.slice(text.lastIndexOf("\n") + 1)].length;
}

/**
 * The comment lines between `key:` and its block value (`value`, whose line is the first after them),
 * in a block mapping at column `inner`. yaml.v3's scanner cuts them as any run, but after the `:` no
 * piece is the foot of what came before: a foot piece (one left of `inner` up to a blank line, or
 * cut off by a column) goes to the first scalar of the value (see footOfFirstScalar), and is added to
 * `later` for that; the rest stays the value's head comment.
 */
export function placeValueRun(
  key: Node,
  value: YAMLMap | YAMLSeq,
  inner: number,
  text: string,
  later: NextFoot[],
): void {
  if (!key.range || !value.range) return;
  const keyEnd = text.indexOf("\n", key.range[1]);
  const start = value.range[0];
  const valueLine = lineStart(text, start);
  if (keyEnd < 0 || keyEnd + 1 > valueLine) return;
  const lines = text.slice(keyEnd + 1, valueLine).split("\n");
  lines.pop();
  if (lines.some((l) => l.trim() !== "" && !l.trim().startsWith("#"))) return;
  const pieces = cut(lines, inner, start - valueLine, true);
  // a foot that a blank line ended keeps it (see NextFoot's body)
  const feet = pieces
    .filter((p) => p.owner !== "head")
    .map((p) => p.lines.join("\n") + (p.blankAfter ? "\n" : ""));
  if (feet.length === 0) return;
  const head = pieces.filter((p) => p.owner === "head").map((p) => p.lines.join("\n"));
  value.commentBefore = head.length > 0 ? head.join("\n") : undefined;
  later.push({ block: value, index: 0, body: feet.join("\n"), source: text });
}

/**
 * The comment lines between a scalar (entry `index`'s value of `block`, or its item) and the next key
 * or item `next`, placed as yaml.v3 places them (the `yaml` parser puts them all above `next`): the
 * first piece when it is the scalar's foot (see cut) is written after the entry or item with a blank
 * line after it; a later foot piece (one that no block's end takes, none closing here) is the next
 * key's foot, which the decoder hands back to the entry before in place of that first piece, or in a
 * list the foot of the next item's first scalar; the rest is `next`'s head comment.
 */
export function placeScalarRun(
  value: Node,
  next: Node,
  block: YAMLMap | YAMLSeq,
  index: number,
  text: string,
  later: NextFoot[],
): void {
  if (!value.range || !next.range || !block.range) return;
  const from = lineAfter(text, value.range[1]);
  // an item under a `-` alone on its line: the run ends at the `-` (what follows it is placeDashRun's)
  const dash = isSeq(block) ? loneDash(next, text) : undefined;
  const nextLine = dash ? dash.line : lineStart(text, next.range[0]);
  if (from > nextLine) return;
  const lines = text.slice(from, nextLine).split("\n");
  lines.pop();
  if (!lines.some((l) => l.trim().startsWith("#"))) return;
  if (lines.some((l) => l.trim() !== "" && !l.trim().startsWith("#"))) return;
  const afterColon = isMap(block) && emptyValue(value);
  const pieces = cut(lines, column(block, text), dash ? dash.col : next.range[0] - nextLine, afterColon);
  const body = (p: Piece) => p.lines.join("\n");
  const last = pieces.filter((p) => p.owner === "last").map(body);
  const column_ = pieces.filter((p) => p.owner === "column");
  const head = pieces.filter((p) => p.owner === "head").map(body);
  if (last.length === 0 && column_.length === 0) {
    // all the next entry's head: as read, a blank line among the lines kept (the `yaml` parser drops
    // one after a line indented further than the next)
    next.commentBefore = head.join("\n");
    return;
  }
  if (column_.length > 0 && isMap(block)) {
    footBefore.add(next);
    // yaml.v3's decoder moves a value's foot to its key only where the key has none: whether a run
    // above gave the key a foot (footOfFirstScalar) is known once every run is placed (keptValueFeet)
    const feet = { last, column: column_.map(body), head };
    if (last.length > 0) keptValueFoot.set(next, feet);
    writeFeetAbove(next, feet, false);
    return;
  }
  if (column_.length > 0) {
    const bodies = column_.map((p) => (p.blankAfter ? `${body(p)}\n` : body(p)));
    later.push({ block, index: index + 1, body: bodies.join("\n"), source: text });
  }
  writeFeetAbove(next, { last, column: [], head }, true);
}

/** The comment lines placeScalarRun found between an entry's scalar value and the next key. */
interface FeetAbove {
  /** The value's own foot. */
  last: string[];
  /** The next key's foot, which the decoder hands back to the entry's key. */
  column: string[];
  /** The next key's head comment. */
  head: string[];
}

/**
 * The feet and head of `next` written above it: the feet followed by a blank line. `valueFoot`: the
 * value keeps its own foot (its key has another), written before the key's, a blank line between.
 */
function writeFeetAbove(next: Node, { last, column, head }: FeetAbove, valueFoot: boolean): void {
  const foot = column.length === 0 ? last : valueFoot && last.length > 0 ? [...last, "", ...column] : column;
  const joined = [...(foot.length > 0 ? [`${foot.join("\n")}\n`] : []), ...head].join("\n");
  next.commentBefore = joined === "" ? undefined : joined;
  if (foot.length > 0) next.spaceBefore = false;
  // two feet, a blank line between, and no head after them: the blank line after them stays too
  if (valueFoot && column.length > 0 && last.length > 0 && head.length === 0)
    (next as { [FEET_ONLY]?: boolean })[FEET_ONLY] = true;
}

/**
 * Keys above which placeScalarRun wrote the next key's foot (which replaces the entry's key's) and
 * left out the value's own foot: kpt drops it, unless a run above gave the entry's key a foot first
 * (the decoder then leaves the value its own). Settled by keptValueFeet.
 */
const keptValueFoot = new WeakMap<Node, FeetAbove>();

/** Where a NextFoot gave an entry's key a foot, the value's own foot above the next key is kept. */
function keptValueFeet(later: readonly NextFoot[]): void {
  for (const f of later) {
    const [block, at] = firstScalarOf(f);
    if (!isMap(block)) continue;
    const next = (block.items[at + 1] as Pair | undefined)?.key;
    const feet = isNodeLike(next) ? keptValueFoot.get(next as Node) : undefined;
    if (!feet) continue;
    writeFeetAbove(next as Node, feet, true);
    keptValueFoot.delete(next as Node);
  }
}

/**
 * Where a list item's `-` stands alone on its line, or last of several (`- -`), the item's content on a
 * later line (comment and blank lines between): that line's offset and the `-`'s column; undefined for
 * any other item.
 */
function loneDash(item: Node, text: string): { line: number; col: number } | undefined {
  if (!item.range) return undefined;
  let end = lineStart(text, item.range[0]) - 1;
  if (text.slice(end + 1, item.range[0]).trim() !== "") return undefined;
  while (end > 0) {
    const start = lineStart(text, end);
    const line = text.slice(start, end).replace(/\r$/, "");
    const trimmed = line.trim();
    // a `-` alone, or the last of several (`- -`: the item of a list that is an item itself)
    if (/^-(?: +-)*$/.test(trimmed)) return { line: start, col: line.lastIndexOf("-") };
    if (trimmed !== "" && !trimmed.startsWith("#")) return undefined;
    end = start - 1;
  }
  return undefined;
}

/**
 * The comment lines around a `-` alone on its line over a mapping item (`item`, item `index` of its
 * list): the `yaml` parser gives those above and below the `-` alike to the item. yaml.v3's scanner
 * cuts those below it as any run after a token that is not a `:` (the list's indentation, the `-`'s
 * column, the one it cuts by): a foot piece (the first, up to a blank line right after it, or one cut
 * off by a column) goes to the item's first scalar (see footOfFirstScalar), added to `later` for that;
 * the rest is the head comment of the item's first key, which kpt writes after the `- `. Those above
 * the `-` stay the item's head (placeScalarRun and place end their runs at the `-`).
 */
export function placeDashRun(item: YAMLMap, index: number, text: string, later: NextFoot[]): void {
  const first = item.items[0] as Pair | undefined;
  const key = first?.key as Node | undefined;
  if (item.flow || !item.range || !isNodeLike(key)) return;
  const dash = loneDash(item, text);
  if (!dash) return;
  // above the `-`: the comment lines up to the item before (the first item's are its list's)
  const above: string[] = [];
  let end = dash.line - 1;
  while (index > 0 && end > 0) {
    const start = lineStart(text, end);
    const line = text.slice(start, end).replace(/\r$/, "").trim();
    if (line !== "" && !line.startsWith("#")) break;
    above.unshift(line === "" ? "" : commentLineText(line));
    end = start - 1;
  }
  item.spaceBefore = above[0] === "" || undefined;
  while (above[0] === "") above.shift();
  while (above[above.length - 1] === "") above.pop();
  item.commentBefore = above.length > 0 ? above.join("\n") : undefined;
  const from = text.indexOf("\n", dash.line) + 1;
  const itemLine = lineStart(text, item.range[0]);
  const lines = text.slice(from, itemLine).split("\n");
  lines.pop();
  if (!lines.some((l) => l.trim().startsWith("#"))) return;
  const pieces = cut(lines, dash.col, item.range[0] - itemLine);
  const head = pieces.filter((p) => p.owner === "head").map((p) => p.lines.join("\n"));
  const feet = pieces.filter((p) => p.owner !== "head").map((p) => p.lines.join("\n"));
  (key as Node).commentBefore = head.length > 0 ? head.join("\n") : undefined;
  if (feet.length > 0)
    later.push({ block: item, index: 0, body: feet.join("\n"), source: text, afterDash: true });
}

/**
 * yaml.v3's scanner over the lines of one run (see placeCommentRuns); `afterIndicator`: the run
 * follows a `key:` whose value is on a later line, where the first piece ends at a blank line only
 * when it is left of `inner`.
 */
function cut(lines: string[], inner: number, nextCol: number, afterIndicator = false): Piece[] {
  const eof = nextCol < 0;
  const pieces: Piece[] = [];
  let cur: { col: number; lines: string[]; line: number; blankBefore: boolean } | undefined;
  let i = 0;
  while (lines[i]?.trim() === "") i++;
  // no blank line between the content and the run's first comment
  let firstEmpty = i === 0;
  let recentEmpty = false;
  const flush = (owner: Piece["owner"]) => {
    if (!cur) return;
    const blankAfter = cur.lines[cur.lines.length - 1] === "";
    while (cur.lines[cur.lines.length - 1] === "") cur.lines.pop();
    pieces.push({ col: cur.col, lines: cur.lines, owner, blankBefore: cur.blankBefore, blankAfter });
    cur = undefined;
  };
  const footOwner = (): Piece["owner"] => (pieces.length === 0 ? "last" : "column");
  for (; i < lines.length; i++) {
    const l = lines[i]!; // i < lines.length
    const col = l.search(/\S/);
    if (col < 0) {
      if (cur && !recentEmpty) {
        if (firstEmpty && cur.col < inner) flush("column");
        else if (firstEmpty && cur.line === 0 && !afterIndicator) flush(footOwner());
        else cur.lines.push("");
      }
      firstEmpty = false;
      recentEmpty = true;
      continue;
    }
    if (cur && col < inner && col !== cur.col) flush(footOwner());
    if (!cur) cur = { col, lines: [], line: i, blankBefore: lines[i - 1]?.trim() === "" };
    cur.lines.push(commentLineText(l.trimStart())); // trailing blanks kept, as yaml.v3 keeps them
    recentEmpty = false;
  }
  if (cur && eof) {
    // the end of the text is read as a blank line
    if (!recentEmpty && firstEmpty && cur.col < inner) flush("column");
    else if (!recentEmpty && firstEmpty && cur.line === 0 && !afterIndicator) flush(footOwner());
    else flush("head");
  } else if (cur) {
    if (nextCol < inner && nextCol !== cur.col) flush(footOwner());
    else flush("head");
  }
  return pieces;
}

/** The offset of the line after the one holding `offset` (a node's end). */
function lineAfter(text: string, offset: number): number {
  if (text[offset - 1] === "\n") return offset;
  const nl = text.indexOf("\n", offset);
  return nl < 0 ? text.length : nl + 1;
}

/** A block's indentation as yaml.v3 keeps it: its first entry's column. */
export function column(block: Node, text: string): number {
  const start = block.range?.[0];
  if (start === undefined) throw new Error("internal error: a block not read from the text has no column");
  return start - lineStart(text, start);
}

function commentOnLaterLine(node: Node, text: string): boolean {
  if (!node.range) return false;
  const tail = text.slice(node.range[1], node.range[2]);
  const hash = tail.indexOf("#");
  return hash >= 0 && tail.slice(0, hash).includes("\n");
}

/**
 * The marks of one node as the structural reader works them out (apply.ts), set where true (or, for
 * `footBefore`, given): the same symbol-keyed properties place sets, read by the same functions.
 */
export function setMarks(
  node: Node,
  marks: { footBefore?: string; feetOnly?: boolean; keyFoot?: boolean; endFoot?: boolean; endFeet?: boolean },
): void {
  const n = node as {
    [FOOT_BEFORE]?: string;
    [FEET_ONLY]?: boolean;
    [KEY_FOOT]?: boolean;
    [END_FOOT]?: boolean;
    [HAS_END_FEET]?: boolean;
  };
  if (marks.footBefore !== undefined) n[FOOT_BEFORE] = marks.footBefore;
  if (marks.feetOnly) n[FEET_ONLY] = true;
  if (marks.keyFoot) n[KEY_FOOT] = true;
  if (marks.endFoot) n[END_FOOT] = true;
  if (marks.endFeet) n[HAS_END_FEET] = true;
}
