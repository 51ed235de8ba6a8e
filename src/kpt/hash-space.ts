import { isMap, isNode, isSeq, type Node, type Pair } from "yaml";
import { commentLineText, HASH_SPACE } from "./comment-runs.js";

/**
 * The `# ` lines (one space after the `#`, nothing else) of the comments above each node, told from
 * a bare `#`: the `yaml` parser reads both as " " (written back as a bare `#`), yaml.v3 keeps the
 * space, and kpt writes `# ` back. Each node's head comment is matched, from its last line up, with
 * the comment lines above the node's first line in the source (a `- # …` line too, the comment of
 * the item below it); a line whose text does not match ends the matching. Before the comments are
 * placed, while each is still where the parser put it.
 */
export function markHashSpaces(node: unknown, text: string): void {
  if (isMap(node)) {
    for (const pair of node.items as Pair[]) {
      if (isNode(pair.key)) markHashSpaces(pair.key, text);
      markHashSpaces(pair.value, text);
    }
  } else if (isSeq(node)) {
    for (const item of node.items) markHashSpaces(item, text);
  }
  if (!isNode(node)) return;
  if (node.commentBefore?.split("\n").includes(" ")) markHead(node, text);
  // a line comment after a value on its line (a flow collection's: a scalar's is lineCommentOnly's)
  const end = node.range?.[1];
  if (node.comment === " " && end !== undefined) {
    const nl = text.indexOf("\n", end);
    if (/^[ \t]*#[ ]\r?$/.test(text.slice(end, nl < 0 ? undefined : nl))) node.comment = HASH_SPACE;
  }
}

function markHead(node: Node, text: string): void {
  const start = node.range?.[0];
  if (start === undefined) return;
  const above = commentLinesAbove(text, text.lastIndexOf("\n", start - 1) + 1);
  const lines = (node.commentBefore ?? "").split("\n");
  for (let i = lines.length - 1, j = above.length - 1; i >= 0 && j >= 0; i--) {
    if (lines[i] === "") continue;
    const source = commentLineText(above[j--] ?? "");
    if (lines[i] === " " && source === HASH_SPACE) lines[i] = HASH_SPACE;
    else if (lines[i] !== source) break;
  }
  node.commentBefore = lines.join("\n");
}

/** The comment lines right above the line starting at `lineStart` (blank lines passed over), each from its `#`. */
function commentLinesAbove(text: string, lineStart: number): string[] {
  const found: string[] = [];
  let end = lineStart - 1;
  while (end > 0) {
    const start = text.lastIndexOf("\n", end - 1) + 1;
    const line = text.slice(start, end);
    const trimmed = line.trimStart();
    if (trimmed.startsWith("#")) found.unshift(trimmed);
    else if (trimmed !== "") {
      // an item's `- # c` line: the comment is the item's, and nothing above it is
      const dash = /^(?:- +)+(#.*)$/.exec(trimmed);
      if (dash?.[1] !== undefined) found.unshift(dash[1]);
      break;
    }
    end = start - 1;
  }
  return found;
}
