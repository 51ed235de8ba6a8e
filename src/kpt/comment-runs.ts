import { isMap, isPair, isScalar, isSeq, type Node, type Pair, type YAMLMap, type YAMLSeq } from "yaml";

/** A comment line's text as the `yaml` parser keeps it: after the `#`, a lone `#` as a space. */
export function commentLineText(line: string): string {
  return line.slice(1) || " ";
}

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
 * it is the document's foot comment is returned ("" for none), undefined when there is no such run.
 */
export function placeCommentRuns(block: Node, text: string, end?: number): string | undefined {
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
    if (!isLast && isNodeLike(next)) place(value as Node, next as Node, text);
    else if (isLast && end !== undefined) foot = place(value as Node, undefined, text, end);
    placeCommentRuns(value as Node, text, isLast ? end : undefined);
  });
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
}

/**
 * One run: `value` (a block collection, an entry's value or a list item) is followed by `next` (the
 * next key or item), or by the end of the document at `end`. The blocks that close between them are
 * `value` and its last descendants.
 */
function place(value: Node, next: Node | undefined, text: string, end = 0): string | undefined {
  const closing: (YAMLMap | YAMLSeq)[] = [];
  let last: unknown = value;
  while (isBlock(last)) {
    closing.push(last as YAMLMap | YAMLSeq);
    const items = (last as YAMLMap | YAMLSeq).items;
    const tail = items[items.length - 1];
    last = isPair(tail) ? (tail.value ?? tail.key) : tail;
  }
  const lastNode = last as Node | null;
  if (!lastNode?.range || (next && !next.range)) return undefined;
  const from = lineAfter(text, lastNode.range[1]);
  const nextLine = next ? text.lastIndexOf("\n", next.range![0] - 1) + 1 : lineAfter(text, end);
  if (from > nextLine) return undefined;
  const lines = text.slice(from, nextLine).split("\n");
  lines.pop();
  if (!lines.some((l) => l.trim().startsWith("#"))) return undefined;
  if (lines.some((l) => l.trim() !== "" && !l.trim().startsWith("#"))) return undefined;
  const nextCol = next ? text.slice(nextLine).search(/\S/) : -1;
  const inner = column(closing[closing.length - 1]!, text);
  const pieces = cut(lines, inner, nextCol);
  // a block's end goes before the first piece at its column (yaml.v3 unrolling indents): the pieces
  // not placed before it are its foot
  const ends = closing.map((c) => (isMap(c) ? pieces.findIndex((p) => p.col === column(c, text)) : -1));
  const owners = pieces.map((p, k) => {
    if (p.owner === "head") return undefined;
    if (p.owner === "last") return closing[closing.length - 1];
    for (let j = closing.length - 1; j >= 0; j--) if (ends[j]! >= k) return closing[j];
    return undefined;
  });
  // when no piece is the last value's foot, kpt writes a foot that yaml.v3 gave to an outer closing
  // block at the innermost block's indentation (seen with kpt; at the end of a document it does not)
  if (next && !pieces.some((p) => p.owner === "last")) {
    owners.forEach((o, k) => {
      if (o) owners[k] = closing[closing.length - 1];
    });
  }

  for (const c of closing) c.comment = undefined;
  if (next) next.commentBefore = undefined;
  if (isScalar(lastNode) && lastNode.comment && commentOnLaterLine(lastNode, text))
    lastNode.comment = undefined;
  const head: string[] = [];
  const beforeNext: string[] = [];
  pieces.forEach((p, k) => {
    const body = p.lines.join("\n");
    const owner = owners[k];
    const add = (c: YAMLMap | YAMLSeq) => {
      c.comment = c.comment ? `${c.comment}\n${body}` : body;
    };
    if (p.owner !== "head" && owner) add(owner);
    else if (next) (p.owner === "head" ? head : beforeNext).push(body);
    else head.push((p.blankBefore ? "\n" : "") + body);
  });
  if (!next) return head.join("\n");
  // the foot of the entry before `next` is written followed by a blank line
  const foot = beforeNext.length > 0 ? `${beforeNext.join("\n")}\n` : "";
  const joined = foot + (head.length > 0 ? (foot ? "\n" : "") + head.join("\n") : "");
  if (joined !== "") next.commentBefore = joined;
}

/** yaml.v3's scanner over the lines of one run (see placeCommentRuns). */
function cut(lines: string[], inner: number, nextCol: number): Piece[] {
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
    while (cur.lines[cur.lines.length - 1] === "") cur.lines.pop();
    pieces.push({ col: cur.col, lines: cur.lines, owner, blankBefore: cur.blankBefore });
    cur = undefined;
  };
  const footOwner = (): Piece["owner"] => (pieces.length === 0 ? "last" : "column");
  for (; i < lines.length; i++) {
    const l = lines[i]!;
    const col = l.search(/\S/);
    if (col < 0) {
      if (cur && !recentEmpty) {
        if (firstEmpty && cur.col < inner) flush("column");
        else if (firstEmpty && cur.line === 0) flush(footOwner());
        else cur.lines.push("");
      }
      firstEmpty = false;
      recentEmpty = true;
      continue;
    }
    if (cur && col < inner && col !== cur.col) flush(footOwner());
    if (!cur) cur = { col, lines: [], line: i, blankBefore: i > 0 && lines[i - 1]!.trim() === "" };
    cur.lines.push(commentLineText(l.trimStart())); // trailing blanks kept, as yaml.v3 keeps them
    recentEmpty = false;
  }
  if (cur && eof) {
    // the end of the text is read as a blank line
    if (!recentEmpty && firstEmpty && cur.col < inner) flush("column");
    else if (!recentEmpty && firstEmpty && cur.line === 0) flush(footOwner());
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
function column(block: Node, text: string): number {
  const start = block.range![0];
  return start - (text.lastIndexOf("\n", start - 1) + 1);
}

function commentOnLaterLine(node: Node, text: string): boolean {
  const tail = text.slice(node.range![1], node.range![2]);
  const hash = tail.indexOf("#");
  return hash >= 0 && tail.slice(0, hash).includes("\n");
}
