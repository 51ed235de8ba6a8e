import { Composer, type CST, type Document, Lexer, type LineCounter, type ParseOptions, Parser } from "yaml";
import { joinFlowColons } from "./yaml-flow-colon.js";

/**
 * A flow collection as a key after another entry of a nested block mapping (`m:` / `  a: 1` /
 * `  [b]: 2`, `  {{ .Key }}: x`): yaml.v3 reads it as any key, and kpt renders the file. The `yaml`
 * parser (2.9.1, eemeli/yaml#646) opens an item for the line's indentation and then a second one for
 * the key, and its composer refuses the first, left holding only blanks: "Map comment with trailing
 * content" (with a blank or a comment line before the key, at any depth). This reads `text` with each such item's tokens given to the item that follows it, so
 * nodes, offsets and lines stay the file's own. Undefined when no item was so.
 */
export function parseWithFlowKeys(
  text: string,
  options: ParseOptions & { lineCounter?: LineCounter },
): Document.Parsed[] | undefined {
  const parser = new Parser(options.lineCounter?.addNewLine);
  const composer = new Composer(options);
  let mended = false;
  const tokens = function* () {
    // the first line's start, as `Parser.parse` gives it (`next` does not)
    options.lineCounter?.addNewLine(0);
    // and reads on past a `:` in a flow collection, as yaml.v3 does (yaml-flow-colon.ts)
    for (const lexeme of joinFlowColons(new Lexer().lex(text), text).lexemes)
      for (const token of parser.next(lexeme)) {
        mended = mendItems(token) || mended;
        yield token;
      }
    for (const token of parser.end()) {
      mended = mendItems(token) || mended;
      yield token;
    }
  };
  const docs = Array.from(composer.compose(tokens()));
  if (!mended) return undefined;
  const lines = options.lineCounter;
  if (lines) for (const e of docs.flatMap((d) => d.errors)) e.linePos = [lines.linePos(e.pos[0])];
  return docs.length > 0 ? docs : undefined;
}

/** True when the parser's error is the one parseWithFlowKeys mends. */
export function orphanItemError(error: { code: string; message: string }): boolean {
  return error.code === "IMPOSSIBLE" && error.message.startsWith("Map comment with trailing content");
}

/** What such an item holds: its line's indentation, and blank or comment lines before it. */
const BLANKS = new Set(["space", "newline", "comment"]);

/** Gives each block mapping item holding only blanks to the item after it; true when one was. */
function mendItems(token: CST.Token | null | undefined): boolean {
  if (!token || typeof token !== "object") return false;
  let mended = false;
  switch (token.type) {
    case "document":
      return mendItems(token.value);
    case "block-map": {
      const items = token.items;
      for (let i = items.length - 2; i >= 0; i--) {
        const [it, next] = [items[i], items[i + 1]];
        if (!it || !next) continue;
        const blanksOnly = !it.key && !it.sep && !it.value && it.start.every((t) => BLANKS.has(t.type));
        if (!blanksOnly || it.start.length === 0) continue;
        if (next.key?.type !== "flow-collection") continue;
        next.start = [...it.start, ...next.start];
        items.splice(i, 1);
        mended = true;
      }
      for (const it of items) mended = mendItems(it.key) || mendItems(it.value) || mended;
      return mended;
    }
    case "block-seq":
    case "flow-collection":
      for (const it of token.items) mended = mendItems(it.key) || mendItems(it.value) || mended;
      return mended;
    default:
      return false;
  }
}
