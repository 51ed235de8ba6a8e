import { type Document, isDocument, isMap, isSeq, type Node } from "yaml";
import { copyFootMarks, copyHeadMarks, copyMarks, footBeforeText } from "./comments/marks.js";
import { fromRaw, toRaw } from "./comments/raw.js";

/**
 * The comment model, as yaml.v3 (kpt's reader and writer) holds it: every node has a head comment (the
 * lines above it), a line comment (after it on its line) and a foot comment (the lines after it, that
 * end it). Each is the comment's raw text: its lines joined by `\n`, each line as written (`# text`,
 * `#` kept; a lone `#` and `# ` told apart), an empty line for a blank line between them.
 *
 * The one door to `yaml`'s comment slots (`commentBefore`, `comment`): the readers fill them where yaml.v3
 * would hold each comment (the structural reader, comments/reader.ts, placed by comments/apply.ts; the
 * fast reader, yaml-fast.ts, as it makes the nodes); everything else reads and writes comments here, and
 * copies them with their marks (copyComments). test/house-comments.test.ts refuses the slots anywhere
 * else.
 *
 * Where the slots hold yaml.v3's comments:
 * - head: `commentBefore` of a key, a list item, a root node. The reader leaves a foot yaml.v3 gives to
 *   the entry before at the start of the next key's head (footAbove tells that part), where kpt writes it;
 * - line: `comment` of a scalar, an alias or a flow (or empty) collection;
 * - foot: `comment` of a block mapping or sequence (the foot of its last entry, as yaml.v3's decoder
 *   hands it on);
 * - a document's own head and foot: its `commentBefore` and `comment`.
 */

// The marks that say where kpt writes a block's foot and a key's head (comments/marks.ts), and what a
// function's trip does to comments (comments/trip.ts).
export { clearEndFeet, endFoot, feetOnly, hasEndFeet, keyFoot, markEndFoot } from "./comments/marks.js";
export { dashCommentsAfterTrip, endFeetAfterTrip } from "./comments/trip.js";

type Slots = { commentBefore?: string | null; comment?: string | null };

/**
 * A block mapping or sequence, whose `comment` slot holds its foot: not a flow one, nor an empty one
 * (written `{}` or `[]`, a flow collection, its comment on its line).
 */
function isBlock(node: unknown): boolean {
  return (isMap(node) || isSeq(node)) && !node.flow && node.items.length > 0;
}

/** The comment lines above `node` (its head comment, after any foot footAbove names), raw. */
export function headComment(node: Node | Document): string | undefined {
  return toRaw((node as Slots).commentBefore);
}

export function setHeadComment(node: Node | Document, raw: string | undefined): void {
  (node as Slots).commentBefore = fromRaw(raw);
}

/** The comment after a scalar, an alias or a flow collection on its line, raw; a block has none. */
export function lineComment(node: Node): string | undefined {
  return isBlock(node) ? undefined : toRaw((node as Slots).comment);
}

export function setLineComment(node: Node, raw: string | undefined): void {
  (node as Slots).comment = fromRaw(raw);
}

/** The comment lines after a block mapping or sequence, or after a document's content, raw. */
export function footComment(node: Node | Document): string | undefined {
  if (!isBlock(node) && !isDocument(node)) return undefined;
  return toRaw((node as Slots).comment);
}

export function setFootComment(node: Node | Document, raw: string | undefined): void {
  (node as Slots).comment = fromRaw(raw);
}

/** What yaml.v3 writes after the node: a block's foot, anything else's line comment. */
export function trailingComment(node: Node): string | undefined {
  return toRaw((node as Slots).comment);
}

/** Sets trailingComment: the foot of a block, the line comment of anything else. */
export function setTrailingComment(node: Node, raw: string | undefined): void {
  (node as Slots).comment = fromRaw(raw);
}

/**
 * The part of `key`'s head comment that is the foot of the entry before it (yaml.v3 holds it on that
 * entry's key; the reader wrote it above this key, where kpt writes it), raw, with the line break that
 * ends it; undefined where the head is the key's own.
 */
export function footAbove(key: Node): string | undefined {
  const foot = footBeforeText(key);
  return foot === undefined ? undefined : toRaw(foot);
}

/**
 * Gives `to` the comments of `from` (head, and line or foot), and the marks that say where yaml.v3
 * holds them: a copy of a node keeps its comments as they were read. A blank line above (`spaceBefore`)
 * is layout, not a comment: the caller copies it where it should go.
 */
export function copyComments(from: Node, to: Node): void {
  (to as Slots).commentBefore = (from as Slots).commentBefore;
  (to as Slots).comment = (from as Slots).comment;
  copyMarks(from, to);
}

/** Gives `to` the head comment of `from`, with the marks that say where kpt writes it. */
export function copyHeadComment(from: Node, to: Node): void {
  (to as Slots).commentBefore = (from as Slots).commentBefore;
  copyHeadMarks(from, to);
}

/**
 * Gives `to` what yaml.v3 writes after `from` (trailingComment: a block's foot, anything else's line
 * comment), with the marks that say where kpt writes a foot.
 */
export function copyTrailingComment(from: Node, to: Node): void {
  (to as Slots).comment = (from as Slots).comment;
  copyFootMarks(from, to);
}
