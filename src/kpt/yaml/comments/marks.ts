import { isMap, isSeq, type Node, type Pair } from "yaml";

/**
 * The marks that say where kpt writes a comment the slots alone do not place: where yaml.v3 holds a
 * head or a foot that `yaml`'s two slots hold elsewhere. The structural reader gives them as data
 * (reader.ts), apply.ts sets them on the nodes (setMarks), the formatter reads them (through the door,
 * comments.ts). Each is the node's own symbol-keyed property, so `clone()` and the parse cache's copies
 * carry it with the comment.
 */

/** The foot of the entry before that the placing wrote at the start of a key's head (footBeforeText). */
const FOOT_BEFORE = Symbol("porchlight.footBefore");

/** A key or item whose head comment is feet only (feetOnly). */
const FEET_ONLY = Symbol("porchlight.feetOnly");

/** A block mapping whose foot is its only key's own (keyFoot). */
const KEY_FOOT = Symbol("porchlight.keyFoot");

/** A block mapping whose foot its end took (endFoot). */
const END_FOOT = Symbol("porchlight.endFoot");

/** A document's root node below which a mapping is marked endFoot (hasEndFeet). */
const HAS_END_FEET = Symbol("porchlight.hasEndFeet");

type Marked = {
  [FOOT_BEFORE]?: string;
  [FEET_ONLY]?: boolean;
  [KEY_FOOT]?: boolean;
  [END_FOOT]?: boolean;
  [HAS_END_FEET]?: boolean;
};

/**
 * The foot of the entry before that the placing wrote at the start of `key`'s head comment (with the
 * line break that ends it), as the slot holds it: yaml.v3 holds it on that entry's key, apart from this
 * key's own head comment.
 */
export function footBeforeText(key: Node): string | undefined {
  return (key as Marked)[FOOT_BEFORE];
}

/**
 * Whether the comment lines above `node` (its commentBefore, with a blank line among them) are all
 * feet of what comes before it: the foot of a scalar and the foot yaml.v3 gave its key, which kpt
 * writes with a blank line after them as after any foot.
 */
export function feetOnly(node: Node): boolean {
  return (node as Marked)[FEET_ONLY] === true;
}

/**
 * Whether kpt writes the block mapping's foot comment (`comment`) at the mapping's own indentation, not
 * at that of the innermost block ending with it: the foot yaml.v3 gave to the mapping's first and only
 * key, which its encoder writes after the entry as a tail comment.
 */
export function keyFoot(node: Node): boolean {
  return (node as Marked)[KEY_FOOT] === true;
}

/**
 * Whether the block mapping's foot comment is one its end took from the comment lines after it (a
 * piece at the mapping's column): yaml.v3's decoder gives it to the mapping's last key, whose foot its
 * encoder writes after the entry at the key's indentation, whatever follows. kyaml's merge walk does not
 * keep it there (clearEndFeet).
 */
export function endFoot(node: Node): boolean {
  return (node as Marked)[END_FOOT] === true;
}

/** Whether a mapping below a document's node `root` was marked endFoot when it was read. */
export function hasEndFeet(root: unknown): boolean {
  return (root as Marked | null)?.[HAS_END_FEET] === true;
}

/** Marks block mapping `node`'s foot as one its end took: written at its own column (see endFoot). */
export function markEndFoot(node: Node): void {
  (node as Marked)[END_FOOT] = true;
}

/** Drops the endFoot marks of `node` and every block below it. */
export function clearEndFeet(node: unknown): void {
  if (isMap(node)) {
    if (endFoot(node)) (node as Marked)[END_FOOT] = undefined;
    for (const pair of node.items as Pair[]) clearEndFeet(pair.value);
  } else if (isSeq(node)) {
    for (const item of node.items) clearEndFeet(item);
  }
}

/**
 * The marks of one node as the structural reader works them out (apply.ts), set where true (or, for
 * `footBefore`, given).
 */
export function setMarks(
  node: Node,
  marks: { footBefore?: string; feetOnly?: boolean; keyFoot?: boolean; endFoot?: boolean; endFeet?: boolean },
): void {
  const n = node as Marked;
  if (marks.footBefore !== undefined) n[FOOT_BEFORE] = marks.footBefore;
  if (marks.feetOnly) n[FEET_ONLY] = true;
  if (marks.keyFoot) n[KEY_FOOT] = true;
  if (marks.endFoot) n[END_FOOT] = true;
  if (marks.endFeet) n[HAS_END_FEET] = true;
}

/** Gives `to` the marks of `from` among `marks`. */
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
