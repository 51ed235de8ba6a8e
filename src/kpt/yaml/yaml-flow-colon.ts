import { Composer, type Document, Lexer, type LineCounter, type ParseOptions, Parser } from "yaml";

/**
 * yaml.v3 (kpt's reader) ends a plain scalar at a `:` only where a blank follows it, in a flow
 * collection as in a block: `[1.2.3.4, 001:db8::]` holds the string `001:db8::`, `{a:, b:c:}` the keys
 * `a:` and `b:c:`. The `yaml` lexer also ends one, inside a flow collection, at a `:` that a `,[]{}`
 * follows, and reads the `:` as a mapping's value indicator (`{'001:db8:': ''}`): another resource.
 *
 * Reads `text` as yaml.v3 reads it: each such `:` is given back to the plain scalar before it (with the
 * empty value the lexer read after it, if any), so nodes, offsets and lines stay the file's own.
 * Undefined when no scalar is so.
 */
export function parseWithFlowColons(
  text: string,
  options: ParseOptions & { lineCounter?: LineCounter },
  lexemes: Iterable<string> = new Lexer().lex(text),
): Document.Parsed[] | undefined {
  const joined = joinFlowColons(lexemes, text);
  if (!joined.changed) return undefined;
  const parser = new Parser(options.lineCounter?.addNewLine);
  const composer = new Composer(options);
  const tokens = function* () {
    // the first line's start, as `Parser.parse` gives it (`next` does not)
    options.lineCounter?.addNewLine(0);
    for (const lexeme of joined.lexemes) yield* parser.next(lexeme);
    yield* parser.end();
  };
  const docs = Array.from(composer.compose(tokens()));
  const lines = options.lineCounter;
  if (lines) for (const e of docs.flatMap((d) => d.errors)) e.linePos = [lines.linePos(e.pos[0])];
  return docs.length > 0 ? docs : undefined;
}

/** True when `text` may hold a `:` the two readers read apart (a cheap test before lexing it). */
export function mayHoldFlowColon(text: string): boolean {
  return /[^\s'"]:[,[\]{}]/.test(text);
}

/** The lexer's mark before a scalar. */
const SCALAR = "\u001f";
/** The lexer's marks that stand for no text (document mode, a flow's error end, a scalar's start). */
const MARKS = new Set(["\u0002", "\u0018", SCALAR]);
const FLOW_INDICATORS = new Set([...",[]{}"]);

/**
 * The lexemes of `text` with each `:` that ends a plain scalar in a flow collection (the lexer splits
 * one there only where a flow indicator follows it) joined to that scalar.
 */
export function joinFlowColons(
  lexemes: Iterable<string>,
  text: string,
): { lexemes: string[]; changed: boolean } {
  const out: string[] = [];
  let changed = false;
  let at = 0;
  /** Index in `out` of the last plain scalar's text when it is the last lexeme; -1 otherwise. */
  let plain = -1;
  /** After a joined `:`: the lexer's empty scalar after it (its mark, then ""), to leave out. */
  let dropEmpty = 0;
  for (const lexeme of lexemes) {
    if (dropEmpty === 2 && lexeme === SCALAR) {
      dropEmpty = 1;
      continue;
    }
    if (dropEmpty === 1 && lexeme === "") {
      dropEmpty = 0;
      continue;
    }
    if (dropEmpty === 1) out.push(SCALAR); // the mark was not an empty scalar's: give it back
    dropEmpty = 0;
    if (MARKS.has(lexeme)) {
      out.push(lexeme);
      plain = -1;
      continue;
    }
    const after = text[at + lexeme.length];
    if (lexeme === ":" && plain >= 0 && after !== undefined && FLOW_INDICATORS.has(after)) {
      out[plain] += ":";
      changed = true;
      at += 1;
      dropEmpty = 2;
      continue;
    }
    const scalarText = out[out.length - 1] === SCALAR;
    out.push(lexeme);
    at += lexeme.length;
    plain = scalarText && lexeme !== "" && lexeme[0] !== "'" && lexeme[0] !== '"' ? out.length - 1 : -1;
  }
  if (dropEmpty === 1) out.push(SCALAR);
  return { lexemes: out, changed };
}
