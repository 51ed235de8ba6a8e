import {
  type CST,
  type Document,
  isMap,
  isNode,
  isScalar,
  isSeq,
  type Node,
  type Pair,
  Parser,
  type Scalar,
} from "yaml";
import { type CommonHead, commonYamlHead, isCommonYaml } from "../yaml-fast.js";
import { setMarks } from "./marks.js";
import { bare, fromRaw, withBlanks } from "./raw.js";
import { type DocumentComments, type NodeComments, readComments } from "./reader.js";

/**
 * A document's comments placed where yaml.v3 (kpt's reader) holds them: from the structural reader's
 * data (reader.ts, readComments) into `yaml`'s slots and the marks format.ts reads (marks.ts). Each
 * node is found by its source offset: a composed node's `range[0]` is its CST token's offset (a block
 * collection and its first entry's key share one: they are told apart by the token's type). What is set
 * is what the door (comments.ts) reports.
 */

/**
 * Places the comments of `doc`, composed from `text`, where yaml.v3 holds them (the parser's are
 * replaced), given the context as data: a document of its own (a file's); `listItem`, an item of a
 * ResourceList read from `text` (the reader reads the whole list; an item has no document head);
 * `piece`, a piece of a file cut at its `---` lines from offset `at` (the merge's: the reader reads the
 * whole file, and knows which `---` line kpt's cut leaves first in its piece). A document the fast
 * reader read is placed from what it read (it keeps no syntax tree): comments only after scalars, where
 * `yaml` and yaml.v3 agree, or also comment lines above its first key (a licence header). Call once
 * after parsing, before any edit; the document is changed in place.
 */
export function normalizeComments(
  doc: Document,
  text: string,
  { listItem = false, piece }: { listItem?: boolean; piece?: { of: WholeFile; at: number } } = {},
): void {
  if (isCommonYaml(doc)) {
    if (!listItem) noDocumentHead(doc);
    return;
  }
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
}

/**
 * A document with no comment line (the fast reader's, or a text with no `#`): the slots above its first
 * key (the document's, its root mapping's, the key's) set to null, as the fast reader leaves them.
 */
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
 * A node's comments as the door holds them (of()): the blank lines after a head or a foot dropped (kpt's
 * render writes none there). Worked out once for each node with a comment, when the text is read.
 */
interface Placed {
  head: string | undefined;
  line: string | undefined;
  foot: string | undefined;
  endFoot: boolean;
  keyFoot: boolean;
  footFromNext: boolean;
}

/**
 * A node's comments as placed, and as placed where its head is `lifted` (see of()); the same record
 * where the two heads are one.
 */
interface Both {
  plain: Placed;
  lifted: Placed;
}

/**
 * The comments readComments gives, by the offset of their CST token: block collections apart; with
 * every such offset in order and the text, to tell a part of the tree with no comment (quiet()).
 */
interface ByOffset {
  node: Map<number, Both>;
  block: Map<number, Both>;
  offsets: number[];
  text: string;
  /** The first `#` at or after `hashFrom` (Infinity: none), found once for the asks it is ahead of. */
  hash: number;
  hashFrom: number;
}

/**
 * What one text's comments are, read once for all its documents: each document's own head and foot
 * (no syntax tree kept: a text's reading may be held as long as its documents).
 */
export interface TextComments {
  index: ByOffset;
  docs: { start: number; comments: Pick<DocumentComments, "head" | "foot" | "endFeet"> }[];
  /**
   * The offsets of the block mappings below a document's root whose end took a foot (endFoot), in
   * order: a ResourceList's item holds such a mapping where one lies inside it (applyItemComments).
   */
  endFeet: number[];
}

/**
 * What the structural reader read of the text each document was composed from (yamlfile.ts), read
 * from the syntax tree the documents were composed from as they are composed: their callers place
 * their comments later (a render reads the whole package first), and the syntax tree is not kept.
 * Only for a text with a `#`.
 */
const READ = new WeakMap<Document, TextComments>();

/**
 * The last text read for documents READ does not know (composed elsewhere, or read again by another
 * of yamlfile.ts's ways), and what was read of it: its documents, placed one after another, read once.
 */
let last: { text: string; read: TextComments } | undefined;

/** Reads the comments of `text`, from the syntax tree `docs` were composed from. */
export function keepTokens(text: string, tokens: readonly CST.Token[], docs: readonly Document[]): void {
  if (!text.includes("#")) return;
  let read: TextComments;
  try {
    read = indexed(text, tokens);
  } catch {
    // (read again where the comments are placed, failing there as it would have: a text parsed for
    // another reader, a ResourceList's, places none)
    return;
  }
  for (const doc of docs) READ.set(doc, read);
}

/** The comments of every document of `text` (readComments), indexed by source offset; `doc`: one of them. */
export function readTextComments(text: string, doc?: Document): TextComments {
  const kept = doc ? READ.get(doc) : undefined;
  if (kept && kept.index.text === text) return kept;
  if (last?.text === text) return last.read;
  const read = indexed(text, [...new Parser().parse(text)]);
  last = { text, read };
  return read;
}

function indexed(text: string, cst: readonly CST.Token[]): TextComments {
  const read = readComments(text, cst);
  const index: ByOffset = { node: new Map(), block: new Map(), offsets: [], text, hash: -1, hashFrom: 0 };
  const docs: TextComments["docs"] = [];
  const endFeet: number[] = [];
  let i = 0;
  for (const token of cst) {
    if (token.type !== "document") continue;
    const comments = read[i++];
    if (!comments) continue;
    docs.push({
      start: token.offset,
      comments: { head: comments.head, foot: comments.foot, endFeet: comments.endFeet },
    });
    for (const [t, c] of comments.nodes) {
      // (a record left with nothing in it: the decoder moved its foot)
      if (!(c.head ?? c.line ?? c.foot ?? c.endFoot ?? c.keyFoot ?? c.footFromNext)) continue;
      const into = t.type === "block-map" || t.type === "block-seq" ? index.block : index.node;
      const offset = (t as CST.Token & { offset: number }).offset;
      into.set(offset, both(c));
      index.offsets.push(offset);
      if (c.endFoot && t !== token.value) endFeet.push(offset);
    }
  }
  index.offsets.sort((a, b) => a - b);
  return { index, docs, endFeet: endFeet.sort((a, b) => a - b) };
}

/**
 * Sets the comments of `doc` (composed from `text`, whose comments `read` holds) and their marks as
 * yaml.v3 reads them; every slot the parser filled is set again (place() sets both slots of every node
 * it walks to: the parser's comments are gone, but inside a flow collection, see place).
 */
export function applyComments(doc: Document, read: TextComments): void {
  const root = doc.contents as Node | null;
  const start = root?.range?.[0] ?? doc.range?.[0] ?? 0;
  let dc: TextComments["docs"][number]["comments"] | undefined;
  for (const d of read.docs) if (d.start <= start) dc = d.comments;
  const slots = doc as Slots;
  // (null where there is none, as the composer and the fast reader leave a document's slots)
  slots.commentBefore = fromRaw(dc?.head) ?? null;
  slots.comment = fromRaw(documentFoot(dc?.foot)) ?? null;
  if (!root) return;
  place(root, true, read.index);
  if (dc?.endFeet) setMarks(root, { endFeet: true });
  // a root mapping's head and its first key's, as the fast reader leaves them where there are none
  const first = isMap(root) && !root.flow ? (root.items[0] as Pair | undefined)?.key : undefined;
  if (isNode(first)) {
    (root as Slots).commentBefore ??= null;
    (first as Slots).commentBefore ??= null;
  }
}

/**
 * Sets the comments of a ResourceList's item (`doc` holds a node of the list's text, whose comments
 * `read` holds) as kpt takes it out of the list: yaml.v3's node of the sequence with its own comments
 * and none of a document's — the head over its `- ` its own (the first item's too, which a file's
 * document gives its sequence), the comment lines after the list's last item the sequence's foot and
 * not the item's, and its first key's head as yaml.v3 holds it (not a file's count of blank lines).
 */
export function applyItemComments(doc: Document, read: TextComments): void {
  const slots = doc as Slots;
  slots.commentBefore = null;
  slots.comment = null;
  const item = doc.contents as Node | null;
  if (!item?.range) return;
  place(item, false, read.index);
  if (endFootIn(read.endFeet, item.range[0], item.range[2])) setMarks(item, { endFeet: true });
}

/** Whether one of `offsets` (in order) lies after `from` and before `to`. */
function endFootIn(offsets: readonly number[], from: number, to: number): boolean {
  const found = offsets[firstFrom(offsets, from + 1)];
  return found !== undefined && found < to;
}

/** The index of the first of `offsets` (in order) at or after `at`; `offsets.length` where none is. */
function firstFrom(offsets: readonly number[], at: number): number {
  let lo = 0;
  let hi = offsets.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    // (mid < offsets.length)
    if (offsets[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A file whose documents are parsed one piece at a time (the merge's pieces, merge/yamldoc.ts, cut at
 * its `---` lines): the structural reader reads the file whole, where it knows which `---` line kpt's
 * cut leaves first in its piece, once, when a piece is first placed (a caller may place the pieces of
 * several files in turn).
 */
export class WholeFile {
  private read: TextComments | undefined;
  constructor(readonly text: string) {}

  /** The comments of the piece from offset `at` to `end`, at the piece's own offsets. */
  piece(at: number, end: number): TextComments {
    this.read ??= readTextComments(this.text);
    return pieceOf(this.read, at, end);
  }
}

/** What `read` holds of the documents that start from `at` to `end`, each offset less `at`. */
function pieceOf(read: TextComments, at: number, end: number): TextComments {
  const within = (o: number) => o >= at && o < end;
  const shifted = (m: Map<number, Both>) =>
    new Map([...m].filter(([o]) => within(o)).map(([o, c]) => [o - at, c] as const));
  const index: ByOffset = {
    node: shifted(read.index.node),
    block: shifted(read.index.block),
    offsets: read.index.offsets.filter(within).map((o) => o - at),
    text: read.index.text.slice(at, end),
    hash: -1,
    hashFrom: 0,
  };
  const docs = read.docs.filter((d) => within(d.start)).map((d) => ({ ...d, start: d.start - at }));
  const endFeet = read.endFeet.filter(within).map((o) => o - at);
  return { index, docs, endFeet };
}

type Slots = { commentBefore?: string | null; comment?: string | null };

/**
 * Sets the comments of a document the fast reader read with comment lines above its first key (and no
 * other comment line: the line comments after its scalars it placed as yaml.v3 does) from what it read
 * (yaml-fast.ts, commonYamlHead): yaml.v3 gives the lines to the document where blank lines part them
 * from the key (a document head, which kpt writes followed by a blank line), else to the first key (a
 * document after `---` has no blank line there in what the fast reader reads).
 */
export function applyCommonHead(doc: Document, head: CommonHead): void {
  const root = doc.contents as Node | null;
  const key = isMap(root) ? (root.items[0] as Pair | undefined)?.key : undefined;
  if (!isMap(root) || !isNode(key)) return;
  const text = fromRaw(head.raw) ?? null;
  (doc as Slots).commentBefore = head.spaced ? text : null;
  (root as Slots).commentBefore = null;
  (key as Slots).commentBefore = head.spaced ? null : text;
}

/**
 * A document's foot as kpt writes it: a blank line above it (also where the file has none, as after a
 * dedented foot) and none after it.
 */
function documentFoot(foot: string | undefined): string | undefined {
  return foot === undefined ? undefined : `\n${bare(foot)}`;
}

function isFlow(node: unknown): boolean {
  return (isMap(node) || isSeq(node)) && node.flow === true;
}

function isBlock(node: unknown): boolean {
  return (isMap(node) || isSeq(node)) && !node.flow && node.items.length > 0;
}

/** An empty value (`key:`, `-`): no token of its own, so no comments of its own. */
function isEmpty(node: unknown): boolean {
  return isScalar(node) && !!node.range && node.range[0] === node.range[1] && !node.source;
}

/** A node's comments as placed, both ways (see of()). */
function both(c: NodeComments): Both {
  const plain: Placed = {
    head: bare(c.head),
    line: c.line,
    foot: bare(c.foot),
    endFoot: c.endFoot === true,
    keyFoot: c.keyFoot === true,
    footFromNext: c.footFromNext === true,
  };
  const head = c.headAfterFoot ? plain.head : withBlanks(c.head, c.headBlanks);
  return { plain, lifted: head === plain.head ? plain : { ...plain, head } };
}

/**
 * A node's comments as the door holds them: the blank lines after a head or a foot dropped (kpt's
 * render writes none there); `lifted`: the head of a nested block's first entry (which the block takes)
 * or of the root's first entry keeps each stretch of blank lines at the file's count (headBlanks), as
 * a plain format writes it back, unless a foot was cut from the same comment lines before it.
 */
function of(node: unknown, index: ByOffset, lifted = false): Placed {
  // (most nodes are scalars: one lookup)
  if (isScalar(node)) return ofScalar(node, index, lifted);
  if (!isNode(node) || !node.range) return NONE;
  const c = (isBlock(node) ? index.block : index.node).get(node.range[0]);
  // (most nodes have no comment: the reader gives them no record)
  if (c === undefined || isEmpty(node)) return NONE;
  return lifted ? c.lifted : c.plain;
}

/** A scalar's comments (of()). */
function ofScalar(node: Scalar, index: ByOffset, lifted = false): Placed {
  if (!node.range) return NONE;
  const c = index.node.get(node.range[0]);
  if (c === undefined || isEmpty(node)) return NONE;
  return lifted ? c.lifted : c.plain;
}

/** No comments (shared: callers only read it). */
const NONE: Placed = Object.freeze({
  head: undefined,
  line: undefined,
  foot: undefined,
  endFoot: false,
  keyFoot: false,
  footFromNext: false,
});

function join2(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return `${a}\n${b}`;
}

/**
 * The foot below a pair: its key's, after its value's when both have one (yaml.v3's decoder moves a
 * value's foot to its key only when the key has none; kpt writes the value's first). `kf`: the key's.
 */
function pairFoot(pair: Pair, kf: string | undefined, index: ByOffset): string | undefined {
  const vf = isScalar(pair.value) ? ofScalar(pair.value, index).foot : undefined;
  return vf !== undefined && kf !== undefined ? `${vf}\n\n${kf}` : kf;
}

/**
 * Places yaml.v3's comments of the tree at `node` as the door holds them: the head of a nested block
 * collection's first entry is the collection's; the foot of an entry other than a mapping's last opens
 * the next key's head (a blank line after it kept as an empty line: footAbove, feetOnly); a block
 * mapping's last key's foot is the mapping's.
 */
function place(node: Node, root: boolean, index: ByOffset, nested = false): void {
  const slots = node as Slots;
  if (isScalar(node)) {
    const own = ofScalar(node, index);
    setSlots(slots, own.head, own.line);
    return;
  }
  const block = isBlock(node);
  const own = of(node, index, nested && block);
  let head = own.head;
  if (isMap(node) && !isFlow(node)) {
    const pairs = node.items as Pair[];
    let footBefore: string | undefined;
    // the key before's comments (a foot handed back from this key is written above it) and its pair's foot
    let priorKc: Placed = NONE;
    let lastFoot: string | undefined;
    for (let i = 0; i < pairs.length; i++) {
      // (i < pairs.length)
      const pair = pairs[i]!;
      const key = pair.key;
      const kc = of(key, index, i === 0 && ((nested && block) || root));
      const last = i === pairs.length - 1;
      let keyHead = join2(footBefore === undefined ? undefined : `${footBefore}\n`, kc.head);
      // (a foot before: the pair before is there)
      const above =
        footBefore !== undefined && priorKc.footFromNext && isBlock(pairs[i - 1]?.value)
          ? `${footBefore}\n`
          : undefined;
      const onlyFeet = footBefore !== undefined && kc.head === undefined;
      if (i === 0 && nested && block) {
        head = join2(head, keyHead);
        keyHead = undefined;
      }
      const empty = isEmpty(pair.value) || pair.value === null;
      if (isNode(key)) {
        const ks = key as Slots;
        // a collection as a key (`? a: 1 # c`): its own comments inside, its head above the `?`
        const collection = isMap(key) || isSeq(key);
        if (collection) place(key, false, index, false);
        setBefore(ks, keyHead);
        if (!collection) setAfter(ks, empty ? undefined : kc.line);
        const feetOnly = keyHead !== undefined && onlyFeet;
        if (above !== undefined || feetOnly) setMarks(key, { footBefore: fromRaw(above), feetOnly });
        if (footBefore !== undefined) key.spaceBefore = false;
      }
      const foot = pairFoot(pair, kc.foot, index);
      if (last) lastFoot = foot;
      footBefore = last ? undefined : foot;
      priorKc = kc;
      if (isNode(pair.value)) {
        if (!quiet(pair.value, isNode(key) && key.range ? key.range[0] : 0, index))
          place(pair.value, false, index, true);
        if (empty && kc.line !== undefined) (pair.value as Slots).comment = fromRaw(kc.line);
      }
    }
    setSlots(slots, head, block ? lastFoot : own.line);
    const endFoot = own.endFoot === true && !root;
    if (endFoot || own.keyFoot) setMarks(node, { endFoot, keyFoot: own.keyFoot === true });
    return;
  }
  if (isSeq(node) && !isFlow(node)) {
    let footBefore: string | undefined;
    let foot = own.foot;
    // where the item before ends (quiet())
    let from = node.range?.[0] ?? 0;
    node.items.forEach((item, i) => {
      if (!isNode(item)) return;
      const quietItem = quiet(item, from, index);
      from = item.range?.[1] ?? 0;
      const ic = of(item, index, i === 0 && ((nested && block) || root));
      const last = i === node.items.length - 1;
      const itemHead = join2(footBefore === undefined ? undefined : `${footBefore}\n`, ic.head);
      if (!quietItem) place(item, false, index, false);
      const is = item as Slots;
      if (i === 0 && nested && block) {
        head = join2(head, itemHead);
        setBefore(is, undefined);
      } else if (itemHead !== undefined) {
        is.commentBefore = fromRaw(itemHead);
        if (footBefore !== undefined && ic.head === undefined) setMarks(item, { feetOnly: true });
        if (footBefore !== undefined) item.spaceBefore = false;
      } else setBefore(is, undefined);
      // (a flow collection is one node, as a scalar is: its foot is the item's)
      const itemFoot = isBlock(item) ? undefined : ic.foot;
      if (itemFoot !== undefined && last) foot = join2(itemFoot, foot);
      if (!last || itemFoot === undefined) footBefore = itemFoot;
    });
    setSlots(slots, head, block ? foot : own.line);
    return;
  }
  setSlots(slots, own.head, own.line);
}

/**
 * Whether placing would change nothing in the block collection `node`: no comment of the reader's in it
 * (no record at an offset in its range) and none of the parser's (no `#` from `from`, where the entry
 * before it ends or its key starts, to its range's end: the parser gives a node and those below it only
 * comments of its own tokens and of those before it from there). Most of a commented file's blocks are.
 */
function quiet(node: unknown, from: number, index: ByOffset): boolean {
  if (!isBlock(node) || !(node as Node).range) return false;
  // (isBlock: a collection with a range)
  const [start, , end] = (node as Node).range!;
  if (from < index.hashFrom || index.hash < from) {
    index.hashFrom = from;
    const at = index.text.indexOf("#", from);
    index.hash = at < 0 ? Number.POSITIVE_INFINITY : at;
  }
  if (index.hash < end) return false;
  // the first record at or after `start`
  const offsets = index.offsets;
  const lo = firstFrom(offsets, start);
  // (lo < offsets.length where it is read)
  return lo === offsets.length || offsets[lo]! > end;
}

/**
 * Sets a node's two slots from raw comments. A slot the node does not have is left out where it stays
 * empty: most nodes have no comment, and a property added to each of them changes their shape (slower to
 * add, and slower for the formatter to read).
 */
function setSlots(slots: Slots, head: string | undefined, line: string | undefined): void {
  setBefore(slots, head);
  setAfter(slots, line);
}

function setBefore(slots: Slots, raw: string | undefined): void {
  if (raw !== undefined) slots.commentBefore = fromRaw(raw);
  else if (slots.commentBefore !== undefined) slots.commentBefore = undefined;
}

function setAfter(slots: Slots, raw: string | undefined): void {
  if (raw !== undefined) slots.comment = fromRaw(raw);
  else if (slots.comment !== undefined) slots.comment = undefined;
}
