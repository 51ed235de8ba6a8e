import { isMap, isNode, isSeq, type Node, type Pair } from "yaml";
import { asNode, flowText } from "./format.js";

/**
 * Flow collections that hold comments, written as yaml.v3's emitter writes them (a merge can give a
 * flow collection an element or key that had comments in block style):
 * a head comment of an item (or of the collection, before its first item) goes on lines of its own
 * at the collection's indentation, after `[` or the comma, and the item on the next line.
 * A key's line comment is left out: yaml.v3 writes it as `key:, # comment` with the value on the next
 * line, which reads back as other keys (docs/update-deviations.md).
 */

/** True when `node` (written in flow style) holds comments that yaml.v3 writes inside it. */
export function hasInnerComments(node: Node): boolean {
  if (isSeq(node)) {
    return (
      Boolean(node.commentBefore) ||
      node.items.some((i) => isNode(i) && (Boolean(i.commentBefore) || hasInnerComments(i)))
    );
  }
  if (isMap(node)) {
    return (
      Boolean(node.commentBefore) ||
      (node.items as Pair[]).some(
        (p) =>
          (isNode(p.key) && Boolean(p.key.commentBefore)) || (isNode(p.value) && hasInnerComments(p.value)),
      )
    );
  }
  return false;
}

/** The text of `node` in flow style (lines joined by "\n"); `indent` is its items' indentation. */
export function flowWithComments(node: Node, indent: number): string {
  const e = new FlowEmitter();
  e.node(node, indent);
  return e.text;
}

class FlowEmitter {
  text = "";
  /** yaml.v3's `whitespace`: the last thing written was a space, an opening bracket or a line start. */
  private ws = true;

  private column(): number {
    return this.text.length - (this.text.lastIndexOf("\n") + 1);
  }

  private token(t: string, opening = false): void {
    if (!this.ws) this.text += " ";
    this.text += t;
    this.ws = opening;
  }

  private indicator(t: string): void {
    this.text += t;
    this.ws = false;
  }

  private pad(indent: number): void {
    if (this.column() === 0) {
      this.text += " ".repeat(indent);
      this.ws = true;
    }
  }

  private headComment(text: string, indent: number): void {
    if (this.column() !== 0) this.text += "\n";
    for (const l of text.split("\n")) if (l !== "") this.text += `${" ".repeat(indent)}#${l}\n`;
    this.ws = true;
  }

  node(node: Node | null, indent: number): void {
    if (isSeq(node)) this.seq(node.items.map(asNode), node.commentBefore ?? undefined, indent);
    else if (isMap(node)) this.map(node.items as Pair[], node.commentBefore ?? undefined, indent);
    else this.token(flowText(node, false));
  }

  private seq(items: (Node | null)[], head: string | undefined, indent: number): void {
    this.token("[", true);
    items.forEach((item, i) => {
      if (i > 0) this.indicator(",");
      const comment = [i === 0 ? head : undefined, item?.commentBefore ?? undefined]
        .filter(Boolean)
        .join("\n");
      if (comment) this.headComment(comment, indent);
      this.pad(indent);
      this.node(item, indent + 2);
    });
    this.indicator("]");
  }

  private map(pairs: Pair[], head: string | undefined, indent: number): void {
    this.token("{", true);
    pairs.forEach((pair, i) => {
      if (i > 0) this.indicator(",");
      const key = asNode(pair.key);
      const comment = [i === 0 ? head : undefined, key?.commentBefore ?? undefined]
        .filter(Boolean)
        .join("\n");
      if (comment) this.headComment(comment, indent);
      this.pad(indent);
      this.token(flowText(key, true));
      this.indicator(":");
      const value = asNode(pair.value);
      if (value !== null) this.node(value, indent + 2);
    });
    this.indicator("}");
  }
}
