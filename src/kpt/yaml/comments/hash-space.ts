import { type Document, isMap, isNode, isSeq, type Node, type Pair } from "yaml";
import { LinesUp, lineStart } from "../text-lines.js";
import { commentLineText, HASH_SPACE } from "./comment-runs.js";

/**
 * The `# ` lines (one space after the `#`, nothing else) of every comment, told from a bare `#`: the
 * `yaml` parser reads both as " " (written back as a bare `#`), yaml.v3 keeps the space, and kpt
 * writes `# ` back. Each comment the parser gave a node (above it, after it) or the document (its
 * foot) is found among the source's comment lines there, and its " " lines become HASH_SPACE where the
 * source has `# `. Before the comments are placed, while each is still where the parser put it; a
 * comment not found as it is stays as it is.
 */
export function markHashSpaces(doc: Document, text: string): void {
  walk(doc.contents, text);
  const content = doc.contents as Node | null;
  const end = content?.range?.[1];
  if (doc.comment?.split("\n").includes(" ") && end !== undefined)
    doc.comment = marked(doc.comment, linesAfter(text, end), "first");
}

function walk(node: unknown, text: string): void {
  if (isMap(node)) {
    for (const pair of node.items as Pair[]) {
      if (isNode(pair.key)) walk(pair.key, text);
      walk(pair.value, text);
    }
  } else if (isSeq(node)) {
    for (const item of node.items) walk(item, text);
  }
  if (!isNode(node) || !node.range) return;
  if (node.commentBefore?.split("\n").includes(" "))
    node.commentBefore = marked(node.commentBefore, linesAbove(text, node.range[0]), "last");
  if (node.comment?.split("\n").includes(" "))
    node.comment = marked(node.comment, linesAfter(text, node.range[1]), "first");
}

/**
 * `comment` with its " " lines made HASH_SPACE where `source` (the comment lines around it, each as
 * commentLineText reads it) has `# `: the comment's lines are looked for in `source` as a run (the
 * first such run for a comment after a node, the last for one above it), blank lines left aside.
 */
function marked(comment: string, source: readonly string[], which: "first" | "last"): string {
  const lines = comment.split("\n");
  const at = lines.flatMap((l, i) => (l === "" ? [] : [i]));
  const found = source.filter((l) => l !== "");
  const fits = (k: number) =>
    at.every((i, n) => {
      const line = lines[i];
      const src = found[k + n];
      return line === src || (line === " " && src === HASH_SPACE);
    });
  const starts = [...Array(Math.max(0, found.length - at.length + 1)).keys()];
  const k = which === "first" ? starts.find(fits) : starts.reverse().find(fits);
  if (k === undefined) return comment;
  at.forEach((i, n) => {
    if (lines[i] === " " && found[k + n] === HASH_SPACE) lines[i] = HASH_SPACE;
  });
  return lines.join("\n");
}

/** The comment lines right above the line holding `offset` (blank lines as ""), a `- # c` line's too. */
function linesAbove(text: string, offset: number): string[] {
  const found: string[] = [];
  const lines = new LinesUp(text, lineStart(text, offset));
  lines.up(); // the node's own line, cut at its start
  for (let line = lines.up(); line !== undefined; line = lines.up()) {
    const trimmed = line.trimStart();
    if (trimmed.startsWith("#")) found.unshift(commentLineText(trimmed));
    else if (trimmed === "" || trimmed === "\r") found.unshift("");
    else {
      // an item's `- # c` line: the comment is the item's, and nothing above it is; a key's line
      // comment over its block value (`key: # c`): the `yaml` parser gives it to the value's head
      const dash = /^(?:- +)+(#.*)$/.exec(trimmed) ?? /:[ \t]+(#[^\r]*)\r?$/.exec(trimmed);
      if (dash?.[1] !== undefined) found.unshift(commentLineText(dash[1]));
      break;
    }
  }
  return found;
}

/** The comment after `offset` on its line, then the comment lines below it (blank lines as ""). */
function linesAfter(text: string, offset: number): string[] {
  const found: string[] = [];
  let nl = text.indexOf("\n", offset);
  const rest = text.slice(offset, nl < 0 ? undefined : nl);
  const hash = rest.indexOf("#");
  if (hash >= 0 && /^\s*$/.test(rest.slice(0, hash))) found.push(commentLineText(rest.slice(hash)));
  while (nl >= 0) {
    const start = nl + 1;
    nl = text.indexOf("\n", start);
    const trimmed = text.slice(start, nl < 0 ? undefined : nl).trimStart();
    if (trimmed.startsWith("#")) found.push(commentLineText(trimmed));
    else if (trimmed === "" || trimmed === "\r") found.push("");
    else break;
  }
  return found;
}
