import {
  Document,
  isAlias,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  type Node,
  type Pair,
  Scalar,
  type YAMLMap,
  type YAMLSeq,
} from "yaml";
import {
  endFoot,
  feetOnly,
  footComment,
  headComment,
  keyFoot,
  lineComment,
  trailingComment,
} from "./comments.js";
import { flowWithComments, hasInnerComments } from "./format-flow.js";
import { hasUnprintable, hasUnprintableExceptTab, quoteDouble, resolvesAsString } from "./format-scalar.js";

/**
 * A serializer that writes YAML documents the way kpt writes package files: kyaml over the yaml.v3
 * encoder. 2-space indentation; sequences under a mapping key either "compact" (`- ` at the key's
 * column) or "wide" (indented by two), chosen per document; flow collections and quote styles kept;
 * comments normalised to `# text` (one space before a line comment); blank lines dropped except after a
 * comment that ends a block and after a document's head comment; block scalars (`|`, `>`) written as
 * yaml.v3 writes them, never folded at a width; `---` between documents, no `...`. What a function's
 * trip changes (a document's comments moving to its node, folded scalars turned double-quoted) is done
 * to the nodes by the render (src/render/sync.ts), not here.
 */

export type SeqIndent = "compact" | "wide";

type CommentMode = "top" | "head" | "foot";

/** Serialises the documents of one file; `seqIndent[i]` (default compact) applies to document i. */
export function formatDocuments(docs: readonly Document[], seqIndent: readonly SeqIndent[] = []): string {
  return docs.map((d, i) => formatDocument(d, seqIndent[i] ?? "compact")).join("---\n");
}

/**
 * Comment lines at `indent`, as yaml.v3 writes a head comment above an entry or a sequence item (inner
 * blank lines kept, none after).
 */
export function commentBlock(text: string, indent: number): string {
  const w = new Writer(false);
  w.commentLines(text.replace(/\n+$/, ""), indent, "head");
  return w.text();
}

/**
 * Serialises one document, ending with a newline. `documentComments: false` leaves out the document's
 * own head and foot comments, as kyaml does where it writes a resource's node rather than its document
 * (the items of a ResourceList); `rootComment: false` leaves out the root node's head comment,
 * which a ResourceList writes above the item's `- `.
 */
export function formatDocument(
  doc: Document,
  seqIndent: SeqIndent = "compact",
  { documentComments = true, rootComment = true }: { documentComments?: boolean; rootComment?: boolean } = {},
): string {
  const w = new Writer(seqIndent === "wide", rootComment);
  const root = doc.contents as Node | null;
  const docHead = headComment(doc);
  const docFoot = footComment(doc);
  if (docHead && documentComments) {
    // yaml.v3 writes a document's head comment, then a blank line (as it was read: kpt's reader keeps
    // as the document's the comment lines that a blank line separates from the content).
    w.commentLines(docHead, 0, "top");
    w.line("");
  }
  if (root === null || root === undefined) {
    w.line("null");
  } else {
    w.root(root);
  }
  if (docFoot && documentComments) w.commentLines(docFoot, 0, "foot");
  return w.text();
}

class Writer {
  private readonly out: string[] = [];
  /** More of the document follows the entry or item being written (after its enclosing blocks). */
  private more = false;
  /** Runs of spaces by width, each made once: every block's entries and items start with one. */
  private readonly pads: string[] = [];
  /** Where the last block foot comment ended (a line count) and its indentation. */
  private foot = { end: -1, indent: -1 };

  constructor(
    private readonly wide: boolean,
    private readonly rootComment = true,
  ) {}

  text(): string {
    return this.out.length === 0 ? "" : `${this.out.join("\n")}\n`;
  }

  line(s: string): void {
    this.out.push(s);
  }

  /**
   * A block's foot comment. yaml.v3 writes a blank line before what comes next right after it at
   * the same indentation (a compact list's foot on its last scalar item, then the next key).
   */
  private blockFoot(text: string, indent: number): void {
    this.commentLines(text, indent, "foot");
    this.foot = { end: this.out.length, indent };
  }

  /** The blank line after a block's foot comment, before an entry at its indentation. */
  private afterFoot(indent: number): void {
    if (this.out.length === this.foot.end && indent === this.foot.indent) this.out.push("");
  }

  /** Writes a block's entries knowing that its foot comment, if any, follows them. */
  private footFollows(node: Node, write: () => void): void {
    const more = this.more;
    this.more = more || Boolean(footComment(node));
    write();
    this.more = more;
  }

  /**
   * Where a block's foot comment (its last entry's, as yaml.v3 holds it) is written: at the block's
   * indentation (`indent`: its entries', or its items' for a list) when the document ends with it;
   * when more follows (an outer block's foot too), kpt writes it at the indentation of the innermost
   * block ending there, unless a block ending there has a foot of its own.
   */
  private footAt(node: YAMLMap | YAMLSeq, indent: number): number {
    const own = isSeq(node) ? footIndent(node.items, indent) : indent;
    return this.more ? (innermostIndent(node, indent, this.wide) ?? own) : own;
  }

  /**
   * Writes comment lines at `indent`. "top" (a document's or its root's head) keeps inner blank lines,
   * one for a run of them, and drops leading and trailing ones; "head" (before an entry) keeps them, a
   * trailing one too; "foot" (after a block) keeps inner blank lines only.
   */
  commentLines(text: string, indent: number, mode: CommentMode): void {
    const pad = " ".repeat(indent);
    const lines = text.split("\n");
    let trailingBlank = false;
    while (lines.length > 1 && lines[lines.length - 1] === "") {
      lines.pop();
      trailingBlank = true;
    }
    let written = 0;
    for (const l of lines) {
      if (l === "") {
        // yaml.v3 keeps one blank line for a run of them
        if (this.out[this.out.length - 1] === "") continue;
        if (mode !== "top" || written > 0) this.out.push("");
        continue;
      }
      this.out.push(`${pad}${l}`);
      written++;
    }
    if (mode === "top" && written > 0 && this.out[this.out.length - 1] === "") this.out.pop();
    if (trailingBlank && mode === "head" && this.out[this.out.length - 1] !== "") this.out.push("");
  }

  /**
   * The comment lines above an entry or a sequence item (`node`'s head comment), `afterSibling` when
   * an entry or item comes before it in its block. yaml.v3 reads the comment lines right after the
   * previous entry's content, up to a blank line, as that entry's foot and writes a blank line after
   * them; the blank line after a head comment it drops. So a blank line after the comment stays only
   * where the lines are all such a foot: after a sibling, with no blank line before them
   * (`spaceBefore`) or among them, or among them only between two feet (feetOnly).
   */
  private head(text: string, indent: number, node: Node, afterSibling: boolean): void {
    const body = text.replace(/\n+$/, "");
    const foot = afterSibling && !node.spaceBefore && (!body.includes("\n\n") || feetOnly(node));
    this.commentLines(foot ? text : body, indent, "head");
  }

  root(node: Node): void {
    const head = headComment(node);
    const foot = footComment(node);
    if (isMap(node) && !node.flow && node.items.length > 0) {
      if (head && this.rootComment) this.commentLines(head, 0, "top");
      const props = collectionProps(node);
      if (props !== "") this.out.push(props.slice(1));
      this.mapItems(node.items as Pair[], 0, true);
      if (foot) {
        // right after a block's foot at its column (a compact list's, the last entry's): a blank line
        this.afterFoot(0);
        this.commentLines(foot, 0, "foot");
      }
      return;
    }
    if (isSeq(node) && !node.flow && node.items.length > 0) {
      if (head) this.commentLines(head, 0, "top");
      const props = collectionProps(node);
      if (props !== "") this.out.push(props.slice(1));
      this.seqItems(node.items.map(asNode), 0, Boolean(foot));
      if (foot) this.commentLines(foot, 0, "foot");
      return;
    }
    if (head) this.commentLines(head, 0, "top");
    const s = this.inline(node, 0);
    this.pushWithPrefix("", s.lines, s.trailing, s.flow);
  }

  /** Block mapping entries at `indent`. The first entry may be written after a prefix (`- `) by the caller. */
  private mapItems(pairs: Pair[], indent: number, top: boolean, firstPrefix?: string): void {
    const pad = this.pad(indent);
    const more = this.more;
    // An index loop: a callback for forEach is a closure made at every block written.
    for (let i = 0; i < pairs.length; i++) {
      const pair = pairs[i]!; // i < pairs.length
      this.more = more || i < pairs.length - 1;
      if (i > 0) this.afterFoot(indent);
      const key = asNode(pair.key);
      const keyComment = isNodeLike(key) ? headComment(key) : undefined;
      const prefix = i === 0 && firstPrefix !== undefined ? firstPrefix : pad;
      if (keyComment) {
        if (i === 0 && firstPrefix !== undefined) {
          // `- # comment` then the key on the next line, as yaml.v3 writes a head comment in a sequence item.
          this.commentAfterPrefix(keyComment, firstPrefix, indent);
          this.entry(pair, indent, pad);
          continue;
        }
        if (top && i === 0) this.commentLines(keyComment, indent, "top");
        else this.head(keyComment, indent, key as Node, i > 0);
      }
      this.entry(pair, indent, prefix);
    }
    this.more = more;
  }

  private pad(indent: number): string {
    let pad = this.pads[indent];
    if (pad === undefined) {
      pad = " ".repeat(indent);
      this.pads[indent] = pad;
    }
    return pad;
  }

  private commentAfterPrefix(text: string, prefix: string, indent: number): void {
    // a blank line among the lines stays, as yaml.v3 writes it; none before or after them
    const lines = text.replace(/^\n+|\n+$/g, "").split("\n");
    const pad = " ".repeat(indent);
    lines.forEach((l, i) => {
      this.out.push(l === "" ? "" : `${i === 0 ? prefix : pad}${l}`);
    });
  }

  private entry(pair: Pair, indent: number, prefix: string): void {
    const keyText = this.keyText(asNode(pair.key));
    // (a key with a line break is written quoted: `"…`, after its anchor or tag if any)
    const c = keyText.charCodeAt(0);
    if (
      (keyText.length > SIMPLE_KEY_MAX || c === 34 || c === 38 || c === 33 || c === 91 || c === 123) &&
      !simpleKey(asNode(pair.key))
    ) {
      this.explicitEntry(pair, indent, prefix);
      return;
    }
    const value = asNode(pair.value);
    const keyLineComment = isNodeLike(pair.key) ? trailingComment(pair.key as Node) : undefined;
    // Most values: a scalar written as it is (oneLineText), with no comment of its own; its line made
    // in one go.
    if (isScalar(value) && lineComment(value) === undefined && !headComment(value)) {
      const text = oneLineText(value);
      if (text !== undefined) {
        this.out.push(
          keyLineComment ? `${prefix}${keyText}: ${text} ${keyLineComment}` : `${prefix}${keyText}: ${text}`,
        );
        return;
      }
    }
    const head = `${prefix}${keyText}:`;
    if (value === null || value === undefined) {
      this.out.push(keyLineComment ? `${head} ${keyLineComment}` : head);
      return;
    }
    if (isMap(value) && !value.flow && value.items.length > 0) {
      const line = head + collectionProps(value);
      this.out.push(keyLineComment ? `${line} ${keyLineComment}` : line);
      const valueHead = headComment(value);
      if (valueHead) this.head(valueHead, indent + 2, value, false);
      this.footFollows(value, () => this.mapItems(value.items as Pair[], indent + 2, false));
      const foot = footComment(value);
      if (foot) {
        const at = keyFoot(value) || endFoot(value) ? indent + 2 : this.footAt(value, indent + 2);
        this.afterFoot(at);
        this.commentLines(foot, at, "foot");
      }
      return;
    }
    if (isSeq(value) && !value.flow && value.items.length > 0) {
      const line = head + collectionProps(value);
      this.out.push(keyLineComment ? `${line} ${keyLineComment}` : line);
      const seqIndent = this.wide ? indent + 2 : indent;
      const valueHead = headComment(value);
      if (valueHead) this.head(valueHead, seqIndent, value, false);
      const foot = footComment(value);
      this.footFollows(value, () => this.seqItems(value.items.map(asNode), seqIndent, Boolean(foot)));
      if (foot) this.blockFoot(foot, this.footAt(value, seqIndent));
      return;
    }
    const valueHead = headComment(value);
    if (valueHead && !isMap(value) && !isSeq(value)) this.head(valueHead, indent, value, false);
    const s = this.inline(value, indent);
    this.pushWithPrefix(`${head} `, s.lines, s.trailing ?? (keyLineComment || undefined), s.flow);
  }

  /**
   * An entry whose key yaml.v3 writes as no simple key (see simpleKey): `? key`, then `: value`, a
   * block collection's first entry or item on that line, as after a `- `.
   */
  private explicitEntry(pair: Pair, indent: number, prefix: string): void {
    const key = asNode(pair.key);
    if (isScalar(key)) {
      const keyLines = scalarText(key, { flow: false, key: false, indent });
      this.pushWithPrefix(`${prefix}? `, keyLines, lineComment(key));
    } else this.explicitPart(key as Node, indent, `${prefix}? `, false);
    const value = asNode(pair.value);
    const pad = this.pad(indent);
    if (value === null || value === undefined) {
      this.out.push(`${pad}:`);
      return;
    }
    this.explicitPart(value, indent, `${pad}: `);
  }

  /**
   * The key or the value of an explicit entry (`? ` or `: ` its `indicator`, after the entry's
   * indentation) as yaml.v3 writes it: a block collection's first entry or item on the indicator's line,
   * the others 2 further, as after a `- `; with an anchor or a tag, those alone on that line and the
   * collection below (a list then at the entry's column, or 2 further in a wide file, as a value's).
   */
  private explicitPart(node: Node, indent: number, indicator: string, head = true): void {
    const inner = indent + 2;
    if (isMap(node) && !node.flow && node.items.length > 0) {
      const props = collectionProps(node);
      if (props !== "") this.out.push(indicator.trimEnd() + props);
      this.mapItems(node.items as Pair[], inner, false, props === "" ? indicator : undefined);
      const foot = footComment(node);
      if (foot) this.commentLines(foot, inner, "foot");
      return;
    }
    if (isSeq(node) && !node.flow && node.items.length > 0) {
      const props = collectionProps(node);
      if (props !== "") {
        this.out.push(indicator.trimEnd() + props);
        this.seqItems(node.items.map(asNode), this.wide ? inner : indent);
      } else
        node.items.forEach((item, i) => {
          this.seqItem(asNode(item), inner, i === 0 ? `${indicator}- ` : `${this.pad(inner)}- `);
        });
      const foot = footComment(node);
      if (foot) this.commentLines(foot, inner, "foot");
      return;
    }
    // a key's head comment is written above its `?` (mapItems), not inside its flow collection
    const s = this.inline(node, indent, head);
    this.pushWithPrefix(indicator, s.lines, s.trailing, s.flow);
  }

  /** `footed`: the list has a foot comment, written after its items. */
  private seqItems(items: (Node | null)[], indent: number, footed = false): void {
    const pad = this.pad(indent);
    const more = this.more;
    items.forEach((item, i) => {
      this.more = more || i < items.length - 1;
      const head = isNodeLike(item) ? headComment(item) : undefined;
      if (head) this.head(head, indent, item as Node, i > 0);
      this.seqItem(item, indent, `${pad}- `);
    });
    this.more = more;
    if (footed) this.commaBeforeFoot(items[items.length - 1]);
  }

  /**
   * yaml.v3 holds a list's foot on its last item; where that item is a flow mapping, its encoder ends
   * the mapping with a `,` before the comment's line: `- {k: v,}` (read off kpt; a flow list, or an
   * empty mapping, is written as it is).
   */
  private commaBeforeFoot(last: Node | null | undefined): void {
    if (!isMap(last) || !last.flow || last.items.length === 0) return;
    const at = this.out.length - 1;
    const line = this.out[at];
    // its line comment, if any, after it: `- {k: v,} # c`
    const comment = lineComment(last);
    const after = `}${comment ? ` ${comment}` : ""}`;
    if (line?.endsWith(after)) this.out[at] = `${line.slice(0, -after.length)},${after}`;
  }

  private seqItem(item: Node | null, indent: number, prefix: string): void {
    if (isMap(item) && !item.flow && item.items.length > 0) {
      // an anchor or tag stands alone after the `-`, the mapping on the lines below it
      const props = collectionProps(item);
      if (props !== "") this.out.push(prefix.trimEnd() + props);
      const first = props === "" ? prefix : undefined;
      this.footFollows(item, () => this.mapItems(item.items as Pair[], indent + 2, false, first));
      const foot = footComment(item);
      if (foot) {
        const at = keyFoot(item) || endFoot(item) ? indent + 2 : this.footAt(item, indent + 2);
        this.afterFoot(at);
        this.commentLines(foot, at, "foot");
      }
      return;
    }
    if (isSeq(item) && !item.flow && item.items.length > 0) {
      const inner = item.items.map(asNode);
      const props = collectionProps(item);
      if (props !== "") this.out.push(prefix.trimEnd() + props);
      inner.forEach((sub, i) => {
        const head = isNodeLike(sub) ? headComment(sub) : undefined;
        if (i === 0 && props === "" && head) {
          // `- # comment` then the inner list on the next line, as yaml.v3 writes its first item's head comment
          this.commentAfterPrefix(head, prefix, indent + 2);
          this.seqItem(sub, indent + 2, `${" ".repeat(indent + 2)}- `);
          return;
        }
        if (head) this.head(head, indent + 2, sub as Node, i > 0);
        this.seqItem(
          sub,
          indent + 2,
          i === 0 && props === "" ? `${prefix}- ` : `${" ".repeat(indent + 2)}- `,
        );
      });
      const foot = footComment(item);
      if (foot) {
        this.commaBeforeFoot(inner[inner.length - 1]);
        this.commentLines(foot, indent + 2, "foot");
      }
      return;
    }
    if (item === null || item === undefined) {
      this.out.push(prefix.trimEnd());
      return;
    }
    // the item's head comment is written above its `- ` (seqItems), not again inside a flow collection
    const s = this.inline(item, indent, false);
    this.pushWithPrefix(prefix, s.lines, s.trailing, s.flow);
  }

  /** `flow`: the lines are one flow collection or quoted scalar, its line comment after its end. */
  private pushWithPrefix(prefix: string, lines: string[], comment: string | undefined, flow = false): void {
    if (flow && comment !== undefined && lines.length > 1) {
      lines = [...lines.slice(0, -1), `${lines[lines.length - 1]} ${comment}`];
      comment = undefined;
    }
    // By index, not destructured: a rest element goes through the array's iterator, an object per line
    // written (most are one line).
    const first = lines[0] ?? "";
    const firstLine = first === "" ? prefix.trimEnd() : `${prefix}${first}`;
    // A block scalar carries its line comment on the header line.
    this.out.push(comment !== undefined ? `${firstLine} ${comment}` : firstLine);
    for (const line of lines.slice(1)) this.out.push(line);
  }

  private keyText(key: Node | null): string {
    if (key === null || key === undefined) return '""';
    // Most keys: a plain string, written as it is (oneLineText).
    if (isScalar(key))
      return oneLineText(key) ?? scalarText(key, { flow: false, key: true, indent: 0 })[0] ?? '""';
    return flowText(key, true);
  }

  /**
   * A scalar, alias or flow collection: its lines (more than one for block scalars) and line comment.
   * `head`: a flow collection writes its head comment inside, after its `[` or `{`.
   */
  private inline(
    node: Node,
    indent: number,
    head = true,
  ): { lines: string[]; trailing?: string; flow?: boolean } {
    const comment = trailingComment(node);
    if (isScalar(node)) {
      const lines = scalarText(node, { flow: false, key: false, indent });
      // a quoted value on more than one line has its line comment after the closing quote
      return { lines, trailing: comment, flow: lines.length > 1 && /^(?:[&!]\S* )*['"]/.test(lines[0]!) };
    }
    if (hasInnerComments(node, head))
      return { lines: flowWithComments(node, indent + 2, head).split("\n"), trailing: comment, flow: true };
    return { lines: [flowText(node, false)], trailing: comment };
  }
}

export interface ScalarContext {
  flow: boolean;
  key: boolean;
  /** The indentation of the entry holding the scalar: block scalar content goes 2 further. */
  indent: number;
}

/** Collections may hold plain values (set without createNode): treat them as the nodes they would become. */
export function asNode(v: unknown): Node | null {
  if (v === null || v === undefined) return null;
  if (isNode(v)) return v as Node;
  if (typeof v === "object") return new Document(v).contents as Node;
  return new Scalar(v);
}

function isNodeLike(n: unknown): n is Node {
  return typeof n === "object" && n !== null && !isPair(n);
}

/**
 * A block collection's anchor and tag as yaml.v3 writes them on the line of its key or `-`, each after
 * a space (`key: &a !t`); "" for none.
 */
function collectionProps(node: YAMLMap | YAMLSeq): string {
  const props = propsPrefix(node);
  return props === "" ? "" : ` ${props.trimEnd()}`;
}

/** The longest key text yaml.v3 writes as a simple key (`key: value`), anchor and tag included. */
export const SIMPLE_KEY_MAX = 128;

/**
 * Whether yaml.v3 writes `key` as a simple key (yaml_emitter_check_simple_key): a scalar whose value,
 * anchor and tag together are at most SIMPLE_KEY_MAX characters and hold no line break, an alias, an
 * empty collection (`{}`, `[]`). Any other key — a longer or multi-line scalar, a collection with
 * entries (`[a, b]`, `{{x}}`, a block list) — is written after `? `, its value after `: ` on the next
 * line in a block mapping (explicitEntry), after ` : ` in a flow one.
 */
function simpleKey(key: Node | null | undefined): boolean {
  if (isMap(key) || isSeq(key)) return key.items.length === 0;
  if (!isScalar(key)) return true;
  const value = key.value;
  const text = typeof value === "string" ? value : (key.source ?? String(value));
  if (text.includes("\n")) return false;
  const tag = tagText(key.tag);
  return text.length + (key.anchor?.length ?? 0) + tag.length <= SIMPLE_KEY_MAX;
}

const CORE_TAG = "tag:yaml.org,2002:";

/**
 * A node's tag as yaml.v3 writes it: a tag written in the source is written back, a core one in its
 * short form (`!!str`, `!!int`, …: kpt keeps them, so `!!str 1` stays a string); the non-specific `!`
 * is dropped. `yaml` gives a node a tag only where its source has one.
 */
function tagText(tag: string | undefined): string {
  if (!tag || tag === "!") return "";
  return tag.startsWith(CORE_TAG) ? `!!${tag.slice(CORE_TAG.length)}` : tag;
}

/** An anchor and a tag before a node's text, each followed by a space. */
function propsPrefix(node: Node): string {
  const anchor = (node as { anchor?: string }).anchor;
  const tag = tagText(node.tag);
  return (anchor ? `&${anchor} ` : "") + (tag === "" ? "" : `${tag} `);
}

/** Collections written in flow style (`[a, b]`, `{a: b}`), and aliases. */
export function flowText(node: Node | null, key: boolean): string {
  if (node === null || node === undefined) return "null";
  if (isAlias(node)) return `*${node.source}`;
  if (isScalar(node)) return scalarText(node, { flow: true, key, indent: 0 })[0] ?? "";
  const prefix = propsPrefix(node);
  if (isMap(node)) {
    const parts = (node.items as Pair[]).map((p) => {
      const key = asNode(p.key);
      const value = flowValueText(asNode(p.value));
      return simpleKey(key) ? `${flowText(key, true)}: ${value}` : `? ${flowText(key, true)} : ${value}`;
    });
    return `${prefix}{${parts.join(", ")}}`;
  }
  if (isSeq(node)) {
    return `${prefix}[${node.items.map((i) => flowText(asNode(i), false)).join(", ")}]`;
  }
  return String(node);
}

/**
 * A flow mapping's value as yaml.v3 writes it: an empty one (`{a: }`, `{a}`) is a null with no text,
 * which its emitter may not write plain inside a flow collection, and writes `''` (kpt's output, read
 * back as an empty string).
 */
export function flowValueText(value: Node | null | undefined): string {
  if (value === null || value === undefined) return "''";
  if (isScalar(value) && value.value === null && value.source === "" && !value.tag && !value.anchor)
    return "''";
  return flowText(value, false);
}

/** A key yaml.v3 writes after `? ` (see simpleKey: `{{x}}` is a mapping whose key is the mapping `{x}`). */
export function isComplexKey(key: Node | null | undefined): boolean {
  return !simpleKey(key);
}

/**
 * scalarText's one line for the scalars most entries hold, found without its context, its array and
 * its checks, or undefined for any other: a string every context holds plain (plainSafe) that was read
 * plain, or that reads back as a string (a scalar a builtin made), and a number or a boolean written as
 * its source. Neither an anchor nor a tag.
 */
function oneLineText(node: Scalar): string | undefined {
  if (node.anchor || node.tag) return undefined;
  const value = node.value;
  const type = node.type;
  if (typeof value === "string") {
    if ((type !== undefined && type !== "PLAIN") || !plainSafe(value) || value === "<<") return undefined;
    return (type === "PLAIN" && node.source === value) || resolvesAsString(value) ? value : undefined;
  }
  if (typeof value !== "number" && typeof value !== "boolean") return undefined;
  const source = node.source;
  return typeof source === "string" && source !== "" ? source : undefined;
}

/** The text of a scalar as yaml.v3 writes it: the source style kept where it can hold the value. */
function scalarText(node: Scalar, ctx: ScalarContext): string[] {
  let prefix = node.anchor || node.tag ? propsPrefix(node) : "";
  // a plain `<<` is YAML 1.1's merge key, which yaml.v3 writes with its tag, as a key or a value
  if (!node.tag && node.source === "<<" && node.type === "PLAIN" && node.value === "<<") prefix += "!!merge ";
  if (prefix === "") return styledLines(node, ctx);
  // a tagged empty plain scalar (`!!str`): the tag alone
  if (node.tag && node.type === "PLAIN" && node.source === "") return [prefix.trimEnd()];
  const lines = styledLines(node, ctx);
  lines[0] = prefix + (lines[0] ?? "");
  return lines;
}

function styledLines(node: Scalar, ctx: ScalarContext): string[] {
  const value = node.value;
  const source = node.source;
  const type = node.type;
  if (typeof value !== "string") {
    // not a string, but quoted: a tag made it so (`!!int "3"`), and the quotes stay
    if (type === "QUOTE_DOUBLE") return [quoteDouble(source ?? "")];
    if (type === "QUOTE_SINGLE") return [quoteSingle(source ?? "")];
    if (value === null || value === undefined) return [source ?? "null"];
    if (source !== undefined && source !== "") return [source];
    return [String(value)];
  }
  switch (type) {
    case "QUOTE_DOUBLE":
      return [quoteDouble(value)];
    case "QUOTE_SINGLE":
      if (value.includes("\n") && !ctx.flow && !ctx.key && singleQuotedBreaks(value))
        return singleQuotedLines(value, " ".repeat(ctx.indent + 2));
      return [canSingleQuote(value, ctx) ? quoteSingle(value) : quoteDouble(value)];
    case "BLOCK_LITERAL":
      return literalOrFallback(value, ctx);
    case "BLOCK_FOLDED":
      return blockOrFallback(value, ctx, true);
    default: {
      const parsedAsIs = type === "PLAIN" && source === value;
      if (!parsedAsIs && !resolvesAsString(value)) return [quoteDouble(value)];
      if (value.includes("\n")) return literalOrFallback(value, ctx);
      if (canPlain(value, ctx)) return [value];
      return [canSingleQuote(value, ctx) ? quoteSingle(value) : quoteDouble(value)];
    }
  }
}

function literalOrFallback(value: string, ctx: ScalarContext): string[] {
  return blockOrFallback(value, ctx, false);
}

/**
 * A block scalar as yaml.v3 writes one (`|` literal, `>` folded), or double-quoted where block style
 * cannot hold the value. The header gets an indentation indicator when the text starts with a space or
 * a break, and `-` / `+` chomping as the text's end asks. yaml.v3 never folds long lines (kpt's encoder
 * has no width limit); a folded scalar is written line for line, and it writes one more break before
 * each line break that follows a line not starting with a blank whenever the text's first character is
 * not a blank (go-yaml's folded writer tests the text's start, not the line's: `k := 0`). kpt writes
 * exactly that, so porchlight does too, extra blank lines included.
 */
export function blockOrFallback(value: string, ctx: ScalarContext, folded: boolean): string[] {
  if (ctx.flow || ctx.key || !blockAllowed(value)) return [quoteDouble(value)];
  let header = folded ? ">" : "|";
  if (value.startsWith(" ") || value.startsWith("\n")) header += "2";
  if (!value.endsWith("\n")) header += "-";
  else if (value === "\n" || value.endsWith("\n\n")) header += "+";
  const pad = " ".repeat(ctx.indent + 2);
  const body = folded ? foldedBody(value, pad) : literalBody(value, pad);
  const text = body.endsWith("\n") ? body.slice(0, -1) : body;
  return [header, ...text.split("\n")];
}

function literalBody(value: string, pad: string): string {
  let out = "";
  let breaks = true;
  for (const c of value) {
    if (c === "\n") {
      out += "\n";
      breaks = true;
      continue;
    }
    if (breaks) out += pad;
    out += c;
    breaks = false;
  }
  return out;
}

function foldedBody(value: string, pad: string): string {
  const first = value.replace(/^\n+/, "")[0];
  const extraBreaks = first !== undefined && first !== " " && first !== "\t";
  let out = "";
  let breaks = true;
  let leadingSpaces = true;
  for (const c of value) {
    if (c === "\n") {
      if (!breaks && !leadingSpaces && extraBreaks) out += "\n";
      out += "\n";
      breaks = true;
      continue;
    }
    if (breaks) {
      out += pad;
      leadingSpaces = c === " " || c === "\t";
    }
    out += c;
    breaks = false;
  }
  return out;
}

/** yaml.v3 gives a sequence's closing comment to its last item when that item is a block mapping. */
function footIndent(items: readonly unknown[], seqIndent: number): number {
  const last = items[items.length - 1];
  return isMap(last) && !last.flow && last.items.length > 0 ? seqIndent + 2 : seqIndent;
}

const isBlock = (n: unknown): n is YAMLMap | YAMLSeq =>
  (isMap(n) || isSeq(n)) && !n.flow && n.items.length > 0;

/**
 * The indentation of the innermost block that ends where `node` (a block map whose entries are at
 * `indent`, or a block sequence whose items are) ends, or undefined when a block ending there has a
 * foot comment of its own.
 */
function innermostIndent(node: YAMLMap | YAMLSeq, indent: number, wide: boolean): number | undefined {
  const tail = node.items[node.items.length - 1];
  const inner = isMap(node) ? (isPair(tail) ? tail.value : undefined) : tail;
  if (!isBlock(inner)) return indent;
  if (footComment(inner)) return undefined;
  const at = isMap(inner) || isSeq(node) || wide ? indent + 2 : indent;
  return innermostIndent(inner, at, wide);
}

function blockAllowed(value: string): boolean {
  if (value === "") return false;
  // libyaml refuses block style for trailing spaces before a break and for special characters.
  if (/[ \t]\n/.test(value) || /[ \t]$/.test(value)) return false;
  return !hasUnprintableExceptTab(value);
}

function hasSpecial(value: string): boolean {
  return hasUnprintable(value);
}

function quoteSingle(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** libyaml keeps a value with line breaks single-quoted unless a space meets a break or a character is special. */
function singleQuotedBreaks(value: string): boolean {
  return !hasSpecial(value) && !/ \n|\n /.test(value);
}

/**
 * A single-quoted value with line breaks as yaml.v3 writes it: each run of breaks as one more line
 * break than it holds (a break alone is a blank line), the text after it at `pad`, the closing quote
 * right after the last character (at column 0 after a trailing break).
 */
function singleQuotedLines(value: string, pad: string): string[] {
  let out = "'";
  let breaks = false;
  for (const c of value) {
    if (c === "\n") {
      if (!breaks) out += "\n";
      out += "\n";
      breaks = true;
      continue;
    }
    if (breaks) out += pad;
    out += c === "'" ? "''" : c;
    breaks = false;
  }
  return `${out}'`.split("\n");
}

function canSingleQuote(value: string, ctx: ScalarContext): boolean {
  if (hasSpecial(value)) return false;
  return !value.includes("\n") && !(ctx.key && value === "");
}

/** libyaml's scalar analysis: can the value be written without quotes here? */
export function canPlain(value: string, ctx: ScalarContext): boolean {
  return plainSafe(value) || plainByRules(value, ctx);
}

/** canPlain by libyaml's rules, one by one. */
export function plainByRules(value: string, ctx: ScalarContext): boolean {
  if (value === "") return false;
  if (hasSpecial(value) || value.includes("\n")) return false;
  if (value.startsWith(" ") || value.endsWith(" ") || value.startsWith("\t") || value.endsWith("\t"))
    return false;
  if (value.startsWith("---") || value.startsWith("...")) return false;
  const c = value.charAt(0);
  if ("#,[]{}&*!|>'\"%@`".includes(c)) return false;
  if (
    (c === "-" || c === "?" || c === ":") &&
    (value.length === 1 || value[1] === " " || value[1] === "\t")
  ) {
    return false;
  }
  if (value.includes(": ") || value.includes(" #") || value.endsWith(":")) return false;
  if (value.includes(":\t") || value.includes("\t#")) return false;
  if (ctx.flow && /[,?[\]{}:]/.test(value)) return false;
  return true;
}

/**
 * Characters that no rule of canPlain looks at: letters, digits, and `-` `.` `_` `/` (which only matter
 * at the start of a value, which must then be a letter or a digit).
 */
const SAFE = new Uint8Array(128);
for (const c of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._/")
  SAFE[c.charCodeAt(0)] = 1;

/**
 * True for most of the values a package holds (names, labels, images without a tag): a letter or digit,
 * then letters, digits and `-` `.` `_` `/`; plainByRules holds these plain in every context, after the
 * dozen scans it makes. test/kpt/yaml/format.test.ts holds the two in agreement.
 */
export function plainSafe(value: string): boolean {
  const n = value.length;
  if (n === 0) return false;
  const first = value.charCodeAt(0);
  // A letter or a digit.
  if (!((first >= 48 && first <= 57) || ((first | 32) >= 97 && (first | 32) <= 122))) return false;
  for (let i = 1; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c >= 128 || SAFE[c] === 0) return false;
  }
  return true;
}

/**
 * The sequence indentation a document was written with, as kpt derives it (kyaml's seqindent
 * annotation), comments aside: the first `- ` line right under a bare `key:` line decides — "compact"
 * when the dash is at the key's column, "wide" when two columns further; "compact" when none decides.
 * `text` is the source the document was parsed from (its range indexes it).
 */
export function detectSeqIndent(doc: Document, text: string): SeqIndent {
  const range = doc.range;
  return seqIndentIn(text, range ? range[0] : 0, range ? Math.min(range[2], text.length) : text.length);
}

/**
 * detectSeqIndent of the document that spans `text` from `from` to `to`: at the first `- ` line under a
 * bare `key:` line (comment lines passed over), whether the dash is at the key's column or two past it.
 * Only a line whose first character after its spaces and tabs is `-` can decide, so only those lines,
 * and the line before each, are cut out of the text and read as seqLine reads them: a document's other
 * lines cost a scan of their first characters and no string (a render reads every document so).
 */
export function seqIndentIn(text: string, from: number, to: number): SeqIndent {
  // The last line that is not a comment line, as a range of `text` (seqLine makes it when needed).
  let keyStart = -1;
  let keyEnd = -1;
  for (let start = from; start <= to; ) {
    const nl = text.indexOf("\n", start);
    const end = nl < 0 || nl > to ? to : nl;
    let i = start;
    let c = text.charCodeAt(i);
    while (i < end && (c === SPACE_CODE || c === TAB_CODE)) c = text.charCodeAt(++i);
    let kind: "comment" | "dash" | "other";
    if (i === end || (c > SPACE_CODE && c < 127 && c !== HASH_CODE && c !== DASH_CODE)) kind = "other";
    else if (c === HASH_CODE) kind = "comment";
    else if (c === DASH_CODE) kind = "dash";
    // Any other character (a control character, one past ASCII) may be white space to trimStart: the
    // line is read as seqLine reads it.
    else kind = text.slice(start, end).trimStart().startsWith("#") ? "comment" : "dash";
    if (kind !== "comment") {
      if (kind === "dash" && keyStart >= 0) {
        const decided = seqIndentOf(seqLine(text.slice(keyStart, keyEnd)), seqLine(text.slice(start, end)));
        if (decided) return decided;
      }
      keyStart = start;
      keyEnd = end;
    }
    start = end + 1;
  }
  return "compact";
}

const SPACE_CODE = 32;
const TAB_CODE = 9;
const HASH_CODE = 35;
const DASH_CODE = 45;

/**
 * A line that is not a comment line as seqIndentOf reads it: without its comment, but `- # comment`
 * as a dash line (kyaml reads the raw line's `- `; without its comment it would be a bare `-`).
 */
function seqLine(raw: string): string {
  return /^ *- +#/.test(raw) ? raw.slice(0, raw.indexOf("- ") + 2) : withoutComment(raw);
}

/** "compact" or "wide" when `line` is the first `- ` under the bare `key:` line `keyLine`. */
function seqIndentOf(keyLine: string, line: string): SeqIndent | undefined {
  const dash = line.indexOf("- ");
  if (dash < 0 || line.slice(0, dash).trim() !== "") return undefined;
  const trimmed = keyLine.trim();
  if (!trimmed.endsWith(":") || trimmed.indexOf(":") !== trimmed.length - 1) return undefined;
  const keyIndent = keyLine.length - keyLine.trimStart().length;
  if (dash === keyIndent) return "compact";
  if (dash - keyIndent === 2) return "wide";
  return undefined;
}

/** A line without its trailing ` # comment` (a `#` inside quotes is not a comment). */
function withoutComment(line: string): string {
  if (!line.includes("#")) return line;
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = "";
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === "#" && (i === 0 || line[i - 1] === " " || line[i - 1] === "\t")) {
      return line.slice(0, i).trimEnd();
    }
  }
  return line;
}
