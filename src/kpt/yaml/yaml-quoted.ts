import { Composer, type Document, Lexer, type LineCounter, type ParseOptions, Parser } from "yaml";
import { lineStart } from "./text-lines.js";
import { joinFlowColons } from "./yaml-flow-colon.js";

/**
 * yaml.v3 (kpt's reader) reads a quoted scalar up to its closing quote, whatever the indentation of
 * its continuation lines; the `yaml` parser ends one at a line not indented past its parent's
 * (`description: 'a` then `b'` at the key's column: "Missing closing 'quote"). kpt renders such a file
 * (generated CRDs hold them), so porchlight must read it too.
 *
 * Reads `text` as yaml.v3 reads those scalars: the lexer is given a copy of the text where the
 * continuation lines of each such scalar are indented past its quote (a quoted scalar's line breaks
 * and leading blanks fold alike however deep, so its value is the same), and the parser the original
 * text of each token, so every offset, line and node is the file's own. Undefined when no scalar is
 * so; an error left in the documents is one yaml.v3 finds too, at the line it names.
 */
export function parseWithUnindentedQuotes(
  text: string,
  options: ParseOptions & { lineCounter?: LineCounter },
): Document.Parsed[] | undefined {
  const inserts = indentInserts(text);
  if (inserts.length === 0) return undefined;
  const padded = withInserts(text, inserts);
  const parser = new Parser(options.lineCounter?.addNewLine);
  const composer = new Composer(options);
  const tokens = function* () {
    // the first line's start, as `Parser.parse` gives it (`next` does not)
    options.lineCounter?.addNewLine(0);
    // and reads on past a `:` in a flow collection, as yaml.v3 does (yaml-flow-colon.ts)
    const lexemes = joinFlowColons(originalLexemes(new Lexer().lex(padded), inserts, text), text).lexemes;
    for (const lexeme of lexemes) yield* parser.next(lexeme);
    yield* parser.end();
  };
  const docs = Array.from(composer.compose(tokens()));
  // where an error is (parseAllDocuments' prettyErrors does it for its own)
  const lines = options.lineCounter;
  if (lines) for (const e of docs.flatMap((d) => d.errors)) e.linePos = [lines.linePos(e.pos[0])];
  return docs.length > 0 ? docs : undefined;
}

interface Insert {
  /** Offset in the original text where blanks go in (a continuation line's start). */
  at: number;
  spaces: number;
}

/** The lexer's marks that stand for no text (document mode, a flow's error end, a scalar's start). */
const MARKS = new Set(["\u0002", "\u0018", "\u001f"]);

/** Each lexeme of the padded text as the original text has it (the padding lies inside scalars). */
function* originalLexemes(lexemes: Iterable<string>, inserts: readonly Insert[], text: string) {
  let padded = 0;
  let original = 0;
  let next = 0;
  let added = 0;
  for (const lexeme of lexemes) {
    if (MARKS.has(lexeme)) {
      yield lexeme;
      continue;
    }
    padded += lexeme.length;
    for (
      let insert = inserts[next];
      insert && insert.at + added + insert.spaces <= padded;
      insert = inserts[next]
    ) {
      added += insert.spaces;
      next++;
    }
    const end = padded - added;
    yield text.slice(original, end);
    original = end;
  }
}

/**
 * Where the `yaml` lexer would end a quoted scalar before its closing quote, blanks to put in: each
 * continuation line of such a scalar indented to one past its quote's column. One scalar at a time,
 * in order (the lexer's reading after a scalar it cut short is no guide to what follows): the text is
 * read again with those before it mended.
 */
function indentInserts(text: string): Insert[] {
  const inserts: Insert[] = [];
  let added = 0;
  let padded = text;
  for (let open = firstCutQuote(padded); open >= 0; open = firstCutQuote(padded)) {
    const close = closingQuote(padded, open);
    const need = open - lineStart(padded, open) + 1;
    const found: Insert[] = [];
    for (let nl = padded.indexOf("\n", open); nl >= 0 && nl < close; nl = padded.indexOf("\n", nl + 1)) {
      const start = nl + 1;
      let indent = 0;
      while (padded[start + indent] === " ") indent++;
      const ch = padded[start + indent];
      if (ch === "\n" || ch === "\r" || indent >= need) continue;
      // the scalar comes after every blank put in so far: its offsets less those are the text's
      found.push({ at: start - added, spaces: need - indent });
    }
    if (found.length === 0) break;
    for (const f of found) added += f.spaces;
    inserts.push(...found);
    padded = withInserts(text, inserts);
  }
  return inserts;
}

function withInserts(text: string, inserts: readonly Insert[]): string {
  let out = "";
  let from = 0;
  for (const { at, spaces } of inserts) {
    out += text.slice(from, at) + " ".repeat(spaces);
    from = at;
  }
  return out + text.slice(from);
}

/**
 * The offset of the first quote that opens a quoted scalar the `yaml` lexer cuts at a line break
 * before its closing quote; -1 for none.
 */
function firstCutQuote(text: string): number {
  let at = 0;
  for (const lexeme of new Lexer().lex(text)) {
    if (MARKS.has(lexeme)) continue;
    const q = lexeme[0];
    if ((q === "'" || q === '"') && closingQuote(lexeme, 0) < 0 && closingQuote(text, at) > at) return at;
    at += lexeme.length;
  }
  return -1;
}

/**
 * The offset of the quote that closes the quoted scalar opened at `open` (yaml.v3's scan: `''` is a
 * quote in a single-quoted scalar, `\` escapes the next character in a double-quoted one); -1 when the
 * text or its document ends first.
 */
function closingQuote(text: string, open: number): number {
  const q = text[open];
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i];
    if (c === "\n" && /^(?:---|\.\.\.)(?:[ \t\r\n]|$)/.test(text.slice(i + 1, i + 5))) return -1;
    if (q === '"' && c === "\\") {
      i++;
      continue;
    }
    if (c !== q) continue;
    if (q === "'" && text[i + 1] === "'") {
      i++;
      continue;
    }
    return i;
  }
  return -1;
}
