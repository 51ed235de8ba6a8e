import { isMap, isNode, isScalar, isSeq, type Node, type Pair, type YAMLSeq } from "yaml";

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
