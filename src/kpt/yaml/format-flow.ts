import { isAlias, isMap, isNode, isScalar, isSeq, type Node, type Pair } from "yaml";
import { headComment, trailingComment } from "./comments.js";
import { asNode, flowText, flowValueText, isComplexKey } from "./format.js";

/**
 * Flow collections that hold comments, written as yaml.v3's emitter writes them (a merge can give a
 * flow collection elements, keys and values that had comments in block style). The comments, as
 * yaml.v3 holds them:
 * - a head comment (of an item, a key, or the collection's first entry) goes on lines of its own at
 *   the collection's indentation, after `[`, `{` or the comma, and what follows on the next line;
 * - a scalar's line comment follows the scalar and a comma at once (` b, # c`), the rest on the next
 *   line at the collection's indentation (a closing `}` at column 0);
 * - a map's foot comment (yaml.v3: its last key's, written when the map closes) goes after a comma on
 *   lines of its own, then `}` at column 0; a list's foot is its last item's (the last map's foot, or
 *   the scalar's, written after it and a comma).
 * A key's line comment is left out: yaml.v3 writes it as `key:, # comment` with the value on the next
 * line, which reads back as other keys (docs/update-deviations.md).
 */

/**
 * True when `node` (written in flow style) holds comments that yaml.v3 writes inside it; `head`: its
 * own head comment is one of them (not where a block sequence writes it above the item).
 */
export function hasInnerComments(node: Node, head = true): boolean {
  return (head && Boolean(headComment(node))) || hasNestedComments(node);
}

function hasNestedComments(node: Node): boolean {
  if (isSeq(node)) {
    return node.items.some(
      (i) => isNode(i) && (Boolean(headComment(i)) || Boolean(trailingComment(i)) || hasNestedComments(i)),
    );
  }
  if (isMap(node)) {
    return (node.items as Pair[]).some(
      (p) =>
        (isNode(p.key) && Boolean(headComment(p.key))) ||
        (isNode(p.value) &&
          (Boolean(trailingComment(p.value)) || Boolean(headComment(p.value)) || hasNestedComments(p.value))),
    );
  }
  return false;
}

/**
 * The text of `node` in flow style (lines joined by "\n"); `indent` is its items' indentation. The
 * node's own line comment is the caller's (written after the last line), and so is its head comment
 * when `head` is false.
 */
export function flowWithComments(node: Node, indent: number, head = true): string {
  const e = new FlowEmitter(indent - 2);
  const before = head ? headComment(node) : undefined;
  if (isSeq(node)) e.seq(node, before, undefined);
  else if (isMap(node)) e.map(node, before, undefined);
  else e.scalar(flowText(node, false));
  return e.text;
}

const join = (...parts: (string | null | undefined)[]) => parts.filter(Boolean).join("\n");

/** The empty collections and scalars: written as one token. */
const isLeaf = (n: Node | null) =>
  n === null || isScalar(n) || isAlias(n) || ((isMap(n) || isSeq(n)) && n.items.length === 0);

/** yaml.v3's emitter state, for the parts of it flow collections use. */
class FlowEmitter {
  text = "";
  /** The block context has written `key: ` (or `- `) before the collection. */
  private column = 1;
  /** The last thing written was a space, an opening bracket or an indentation. */
  private whitespace = true;
  /** Only indentation on this line so far. */
  private indention = false;
  /** The indentation a foot comment was written at: the next line at it gets a blank line first. */
  private footIndent = -1;
  private indents: number[] = [];

  constructor(private indent: number) {}

  private put(s: string): void {
    this.text += s;
    this.column += s.length;
  }

  private lineBreak(): void {
    this.text += "\n";
    this.column = 0;
    this.indention = true;
  }

  private writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) {
      this.lineBreak();
    }
    if (this.footIndent === indent) this.lineBreak();
    this.put(" ".repeat(Math.max(indent - this.column, 0)));
    this.whitespace = true;
    this.footIndent = -1;
  }

  private indicator(t: string, needWhitespace: boolean, isWhitespace: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(" ");
    this.put(t);
    this.whitespace = isWhitespace;
    this.indention = false;
  }

  private increaseIndent(): void {
    this.indents.push(this.indent);
    this.indent = this.indent < 0 ? 2 : 2 * Math.floor((this.indent + 2) / 2);
  }

  private decreaseIndent(): void {
    this.indent = this.indents.pop() ?? 0;
  }

  /** yaml.v3's write_comment: each line as it is (`#text`), a blank line too, ending with a line break. */
  private commentLines(text: string): void {
    text.split("\n").forEach((l, i) => {
      if (l === "") {
        this.lineBreak();
        return;
      }
      if (i > 0 && this.column === 0) this.writeIndent();
      this.put(l);
      this.indention = false;
      this.lineBreak();
    });
    this.whitespace = true;
  }

  /** A head comment (or a tail: a foot written before what follows), on lines of its own. */
  private head(text: string | undefined, tail = false): void {
    if (!text) return;
    this.writeIndent();
    this.commentLines(text);
    if (tail) this.footIndent = Math.max(this.indent, 0);
  }

  private line(text: string | null | undefined): void {
    if (!text) return;
    if (!this.whitespace) this.put(" ");
    this.commentLines(text);
  }

  private foot(text: string | undefined): void {
    if (!text) return;
    this.writeIndent();
    this.commentLines(text);
    this.footIndent = Math.max(this.indent, 0);
  }

  scalar(token: string): void {
    if (!this.whitespace) this.put(" ");
    this.put(token);
    this.whitespace = false;
    this.indention = false;
  }

  /**
   * A flow sequence; `head` is its first item's head comment (the `yaml` parser keeps it on the
   * list), `foot` its foot comment (yaml.v3: its last item's).
   */
  seq(node: Node, head: string | undefined, foot: string | undefined): void {
    const items = (node as { items: unknown[] }).items.map(asNode);
    this.indicator("[", true, true);
    this.increaseIndent();
    let trail = false;
    items.forEach((item, i) => {
      if (i > 0 && !trail) this.indicator(",", false, false);
      this.head(join(i === 0 ? head : undefined, item ? headComment(item) : undefined) || undefined);
      if (this.column === 0) this.writeIndent();
      const last = i === items.length - 1;
      trail = this.item(item, last ? foot : undefined);
    });
    this.decreaseIndent();
    if (this.column === 0) this.writeIndent();
    this.indicator("]", false, false);
    const lastItem = items[items.length - 1];
    if (foot && lastItem && isSeq(lastItem) && lastItem.items.length > 0) this.foot(foot);
  }

  /** One item of a sequence; true when it ends with a comma of its own (a comment followed it). */
  private item(item: Node | null, foot: string | undefined): boolean {
    if (isLeaf(item)) {
      const line = item ? trailingComment(item) : undefined;
      this.scalar(flowText(item, false));
      if (!line && !foot) return false;
      this.indicator(",", false, false);
      this.line(line);
      this.foot(foot);
      return true;
    }
    // the item's head comment went before it
    this.collection(item!, undefined, foot);
    return false;
  }

  /**
   * A flow mapping; `head` is its first key's head comment (the `yaml` parser keeps it on the map),
   * `tail` its foot comment (yaml.v3: its last key's, written when the map closes).
   */
  map(node: Node, head: string | undefined, tail: string | undefined): void {
    const pairs = (node as { items: Pair[] }).items;
    this.indicator("{", true, true);
    this.increaseIndent();
    let trail = false;
    pairs.forEach((pair, i) => {
      if (i > 0 && !trail) this.indicator(",", false, false);
      const key = asNode(pair.key);
      this.head(join(i === 0 ? head : undefined, key ? headComment(key) : undefined) || undefined);
      if (this.column === 0) this.writeIndent();
      if (isComplexKey(key)) this.scalar(`? ${flowText(key, true)} `);
      else this.scalar(flowText(key, true));
      this.indicator(":", false, false);
      trail = this.value(asNode(pair.value));
    });
    if (tail && pairs.length > 0 && !trail) this.indicator(",", false, false);
    this.head(tail, true);
    this.decreaseIndent();
    this.indicator("}", false, false);
  }

  /** A mapping's value; true when it ends with a comma of its own (a line comment followed it). */
  private value(value: Node | null): boolean {
    if (value === null) {
      this.scalar(flowValueText(value));
      return false;
    }
    if (isLeaf(value)) {
      const line = trailingComment(value);
      this.scalar(flowValueText(value));
      if (!line) return false;
      this.indicator(",", false, false);
      this.line(line);
      return true;
    }
    this.collection(value, headComment(value), undefined);
    return false;
  }

  /**
   * A collection inside the flow collection. Its `comment` is a foot (its last entry's) when it was
   * written in block style, as the merge took it from there; written in flow style, a line comment
   * after its closing bracket.
   */
  private collection(node: Node, head: string | undefined, foot: string | undefined): void {
    const own = trailingComment(node);
    const flow = (node as { flow?: boolean }).flow === true;
    const end = flow ? foot : join(own, foot) || undefined;
    if (isMap(node)) this.map(node, head, end);
    else this.seq(node, head, end);
    if (flow) this.line(own);
  }
}
