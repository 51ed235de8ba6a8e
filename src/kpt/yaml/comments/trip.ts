import {
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  type Node,
  type Pair,
  type YAMLMap,
  type YAMLSeq,
} from "yaml";
import { endFoot, hasEndFeet } from "./marks.js";

/**
 * What kpt's trip through a function (yaml.v3 writes the resources, the function reads them, kpt reads
 * its output with yaml.v3 again) does to comments that the reading placed where only yaml.v3's writer
 * puts them: feet a mapping's end took (endFeetAfterTrip) and a comment on a list item's `-` line
 * (dashCommentsAfterTrip). src/render/sync.ts applies them to a function's output.
 */

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
  const found = closingBlocks(block).at(-1);
  if (found && found !== block && !found.comment) found.comment = comment;
}

const isBlock = (n: unknown): boolean =>
  (isMap(n) || isSeq(n)) && !(n as YAMLMap).flow && (n as YAMLMap | YAMLSeq).items.length > 0;

/**
 * The blocks that close where block collection `value` ends: `value` and its last descendants (each
 * the last entry's value, or last item, of the one before), outermost first.
 */
function closingBlocks(value: unknown): (YAMLMap | YAMLSeq)[] {
  const closing: (YAMLMap | YAMLSeq)[] = [];
  let last: unknown = value;
  while (isBlock(last)) {
    closing.push(last as YAMLMap | YAMLSeq);
    const items = (last as YAMLMap | YAMLSeq).items;
    const tail = items[items.length - 1];
    last = isPair(tail) ? (tail.value ?? tail.key) : tail;
  }
  return closing;
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

/**
 * What kpt's trip through a function does to a comment on a list item's `-` line (`- # comment` over
 * a mapping item, read as the head comment of the item's first key and written after the `- `): kpt
 * reads the function's output with the comment above the `-` as well, after the comment that stood
 * there; where one stood there, the comment is no longer written after the `- `. So `- # c` comes back
 * as `# c` then `- # c`, and `# h` then `- # c` as `# h`, `# c` then `- first-key`. Read off kpt
 * v1.0.0-beta.56 (an exec `cat` mutator). A list item that is a list of scalars (`- # c` then `  - x`)
 * goes the same way; one whose first item is a collection (`  - a: 1`, `  - - x`, `  - [x]`), or the
 * first item of a list that is a list's item (`- - # c`), keeps its comment where it is, as kpt does;
 * and so does every list within a list's item, at any depth (`- o:` then `  - # c`: kubeflow's
 * RequestAuthentication's `jwtRules[].outputClaimToHeaders`).
 */
export function dashCommentsAfterTrip(node: unknown, inSeqItem = false): void {
  if (isMap(node)) {
    for (const pair of node.items as Pair[]) dashCommentsAfterTrip(pair.value, inSeqItem);
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      if (!inSeqItem) moveDashComment(node, i);
      dashCommentsAfterTrip(item, true);
    });
  }
}

/** Item `i` of block list `seq`: its first key's head comment, copied (or moved) above its `-`. */
function moveDashComment(seq: YAMLSeq, i: number): void {
  const item = seq.items[i];
  if (seq.flow || !(isMap(item) || isSeq(item)) || item.flow) return;
  // a mapping item's comment is its first key's; a list item's, its first item's where that is a
  // scalar (kpt leaves it after the `- ` over a collection, `- # c` then `  - [x]`, `  - - x`, `  - a: 1`)
  const first = item.items[0];
  if (isSeq(item) && !isScalar(first)) return;
  const key = (isMap(item) ? (first as Pair | undefined)?.key : first) as Node | undefined;
  const dash = isNode(key) ? key.commentBefore : undefined;
  if (!key || !dash) return;
  // the first item's comment above its `-` is held by its list
  const above: { commentBefore?: string | null } = i === 0 ? seq : item;
  if (above.commentBefore) {
    above.commentBefore = `${above.commentBefore}\n${dash}`;
    key.commentBefore = undefined;
  } else {
    above.commentBefore = dash;
  }
}
