import { isMap, isSeq, type Node, type Pair, type YAMLSeq } from "yaml";

/**
 * What kpt's trip through a function does to a comment on a list item's `-` line (`- # comment` over
 * a mapping item, read as the head comment of the item's first key and written after the `- `): kpt
 * reads the function's output with the comment above the `-` as well, after the comment that stood
 * there; where one stood there, the comment is no longer written after the `- `. So `- # c` comes back
 * as `# c` then `- # c`, and `# h` then `- # c` as `# h`, `# c` then `- first-key`. Read off kpt
 * v1.0.0-beta.56 (an exec `cat` mutator). An item that is a list itself, or the first item of a list
 * that is a list's item (`- - # c`), keeps its comment where it is, as kpt does.
 */
export function dashCommentsAfterTrip(node: unknown, inSeqItem = false): void {
  if (isMap(node)) {
    for (const pair of node.items as Pair[]) dashCommentsAfterTrip(pair.value);
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      if (!(inSeqItem && i === 0)) moveDashComment(node, i);
      dashCommentsAfterTrip(item, true);
    });
  }
}

/** Item `i` of block list `seq`: its first key's head comment, copied (or moved) above its `-`. */
function moveDashComment(seq: YAMLSeq, i: number): void {
  const item = seq.items[i];
  if (seq.flow || !isMap(item) || item.flow) return;
  const key = (item.items[0] as Pair | undefined)?.key as Node | undefined;
  const dash = key?.commentBefore;
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
