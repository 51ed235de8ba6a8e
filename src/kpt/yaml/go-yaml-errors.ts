import type { YAMLError } from "yaml";
import { lineStart } from "./text-lines.js";

/**
 * The words kpt's YAML decoder (go-yaml v3, reached through kyaml) uses for a syntax error that the
 * `yaml` parser also finds: `yaml: line N: <problem>`, N counted as go-yaml counts it. Scripts and
 * people grep these, so porchlight prints them first and its own positioned message after.
 *
 * go-yaml's line is 1-based for its scanner's errors and its parser's "context" mark for the parser's
 * (the 0-based line of the collection being parsed, or of the bad token where that collection starts
 * on the document's first line). kyaml decodes each document of a file on its own (it splits the file
 * on `\n---\n`), so lines count from the document's first line.
 *
 * Returns undefined for an error go-yaml words differently or that does not map one to one; the
 * caller then shows its own message alone.
 */
export function goYamlError(err: YAMLError, text: string): string | undefined {
  const offset = err.pos[0];
  const chunk = text.lastIndexOf("\n---\n", offset - 1);
  const chunkStart = chunk < 0 ? 0 : chunk + 5;
  const lineOf = (at: number): number => countLines(text, chunkStart, at); // 0-based, in the chunk
  const found = describe(err, { text, offset, chunkStart, lineOf });
  if (!found) return undefined;
  // go-yaml leaves the line out where it would be 0.
  return found.line > 0 ? `yaml: line ${found.line}: ${found.problem}` : `yaml: ${found.problem}`;
}

interface Described {
  line: number;
  problem: string;
}

interface Source {
  text: string;
  offset: number;
  chunkStart: number;
  lineOf: (at: number) => number;
}

const MAPPING_VALUES = "mapping values are not allowed in this context";

function describe(err: YAMLError, src: Source): Described | undefined {
  const { text, offset, chunkStart, lineOf } = src;
  const token = offset + (/^[ \t]*/.exec(text.slice(offset, offset + 200))?.[0].length ?? 0);
  const line = lineText(text, token);
  const column = token - lineStart(text, token);
  const above = linesAbove(text, token, chunkStart);
  // Flow collections, quotes and tabs change how go-yaml reads the line: no guess there.
  const plainLine =
    !/[[\]{}"'\t]/.test(line) || ["MISSING_CHAR", "BAD_INDENT", "TAB_AS_INDENT"].includes(err.code);
  if (!plainLine || /^[:?]/.test(line.trimStart())) return undefined;
  switch (err.code) {
    case "MULTILINE_IMPLICIT_KEY":
    case "BLOCK_AS_IMPLICIT_KEY": {
      // A `- ` where a mapping's next key was due: "while parsing a block mapping".
      // The mapping is the one whose keys run at the `- `'s column.
      if (/^-(\s|$)/.test(line.slice(column))) return keyExpected(src, token, above, column + 1);
      if (err.code === "BLOCK_AS_IMPLICIT_KEY" && !err.message.startsWith("Nested mappings"))
        return undefined;
      if (!isPlainKeyStart(line.slice(column))) return undefined;
      if (err.code === "MULTILINE_IMPLICIT_KEY") {
        // A key at its mapping's column is required to be a key: "while scanning a simple key".
        const previous = above.find((l) => l.indent <= column);
        if (previous?.indent === column)
          return { line: scannerLine(lineOf(token)), problem: "could not find expected ':'" };
      }
      // Otherwise the text reads on as a plain value until a `:` that cannot open a mapping there.
      const colon = nextMappingColon(text, offset);
      return colon < 0 ? undefined : { line: scannerLine(lineOf(colon)), problem: MAPPING_VALUES };
    }
    case "TAB_AS_INDENT": {
      // After a plain value the tab line would continue it (go-yaml words that differently).
      const previous = above[0];
      if (previous && !/(:|^-)\s*$/.test(previous.body)) return undefined;
      return { line: scannerLine(lineOf(token)), problem: "found character that cannot start any token" };
    }
    case "BAD_SCALAR_START":
      return { line: scannerLine(lineOf(token)), problem: "found character that cannot start any token" };
    case "MISSING_CHAR": {
      const quote = /Missing closing (["'])quote/.exec(err.message)?.[1];
      if (!quote) return undefined;
      // Scanner: "while scanning a quoted scalar", marked at the opening quote. go-yaml pairs the
      // quotes from the top, so the one left open is the document's last, when their count is odd.
      // Where both kinds of quote appear, which one opens what is not this simple: no guess.
      const next = text.indexOf("\n---\n", chunkStart);
      const chunkText = text.slice(chunkStart, next < 0 ? undefined : next + 1);
      const other = quote === '"' ? "'" : '"';
      const count = chunkText.split(quote).length - 1;
      if (chunkText.includes(other) || chunkText.includes("\\") || count % 2 === 0) return undefined;
      const open = chunkStart + chunkText.lastIndexOf(quote);
      return { line: scannerLine(lineOf(open)), problem: "found unexpected end of stream" };
    }
    case "BAD_INDENT": {
      const flow = /^Flow (sequence|map) in block collection/.exec(err.message)?.[1];
      if (flow) {
        // Parser: "while parsing a flow sequence/mapping", marked at its opening bracket (0-based).
        const open = openingBracket(text, offset, flow === "sequence" ? "[" : "{", chunkStart);
        const close = flow === "sequence" ? "']'" : "'}'";
        return open < 0
          ? undefined
          : parserLine(lineOf(open), lineOf(offset), `did not find expected ',' or ${close}`);
      }
      // Only a line that is a key of its own (not the rest of a value that ran onto it).
      if (!err.message.startsWith("All mapping items must start") || !isKeyLine(line.slice(column)))
        return undefined;
      if (/[[\]{}"'\t]/.test(line)) return undefined;
      // A key where a list's next `- ` was due: "while parsing a block collection", marked at the list.
      const list = listRunStart(above, column);
      if (list >= 0) return parserLine(lineOf(list), lineOf(token), "did not find expected '-' indicator");
      return keyExpected(src, token, above, column);
    }
    default:
      return undefined;
  }
}

/** Parser: "while parsing a block mapping" did not find its next key, marked where that mapping starts. */
function keyExpected(src: Source, token: number, above: ContentLine[], column: number): Described {
  const start = enclosingBlockStart(above, column, src.chunkStart);
  return parserLine(src.lineOf(start), src.lineOf(token), "did not find expected key");
}

/** A plain (unquoted, not flow) key's first characters. */
function isPlainKeyStart(rest: string): boolean {
  return /^[^\s[\]{}"'#&*!|>%@`,?:-]/.test(rest) && !/[[\]{}"']/.test(rest);
}

/** `key:` or `key: value`, with a plain key. */
function isKeyLine(rest: string): boolean {
  return isPlainKeyStart(rest) && /^[^:#]+:(\s|$)/.test(rest);
}

function lineText(text: string, at: number): string {
  const start = lineStart(text, at);
  const end = text.indexOf("\n", at);
  return text.slice(start, end < 0 ? undefined : end);
}

/** go-yaml's scanner names the 1-based line, but none for the first (0-based 0). */
function scannerLine(line0: number): number {
  return line0 === 0 ? 0 : line0 + 1;
}

/** go-yaml's parser names its context's 0-based line, or the token's when that is line 0. */
function parserLine(context: number, token: number, problem: string): Described {
  return { line: context !== 0 ? context : token, problem };
}

function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf("\n", from); i >= 0 && i < to; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** The next `:` followed by a space or a line end, from `offset` on. */
function nextMappingColon(text: string, offset: number): number {
  const re = /:(?=[ \t\r\n]|$)/g;
  re.lastIndex = offset;
  return re.exec(text)?.index ?? -1;
}

/** The unclosed `[` or `{` before `offset` (brackets inside quotes are not counted). */
function openingBracket(text: string, offset: number, open: "[" | "{", floor: number): number {
  const close = open === "[" ? "]" : "}";
  let depth = 0;
  for (let i = Math.min(offset, text.length) - 1; i >= floor; i--) {
    const c = text[i];
    if (c === close) depth++;
    else if (c === open) {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

interface ContentLine {
  start: number;
  indent: number;
  /** The column of the line's first key or value, after any `- ` indicators. */
  keyIndent: number;
  body: string;
}

/** Content lines (not blank, not comments) above the line of `offset`, nearest first. */
function linesAbove(text: string, offset: number, floor: number): ContentLine[] {
  const lines: ContentLine[] = [];
  let end = lineStart(text, offset) - 1;
  while (end > floor) {
    const start = Math.max(lineStart(text, end), floor);
    const line = text.slice(start, end);
    const body = line.trimStart();
    if (body !== "" && !body.startsWith("#")) {
      const indent = line.length - body.length;
      const dashes = /^(-[ ]+)*/.exec(body)?.[0].length ?? 0;
      lines.push({ start, indent, keyIndent: indent + dashes, body });
    }
    end = start - 1;
  }
  return lines;
}

/**
 * Where the list starts whose items run at `column`, when the line above at that column is a `- `
 * item; -1 when it is not.
 */
function listRunStart(above: ContentLine[], column: number): number {
  let first = -1;
  for (const l of above) {
    if (l.indent < column) break;
    if (l.indent > column) continue;
    if (!/^-(\s|$)/.test(l.body)) break;
    first = l.start;
  }
  return first;
}

/**
 * Where the block mapping that a wrongly placed key or `- ` falls into starts: the first line of the
 * run of lines at the indentation of the nearest line above that is indented less than `column`.
 */
function enclosingBlockStart(above: ContentLine[], column: number, floor: number): number {
  const at = above.findIndex((l) => l.keyIndent < column);
  const parent = above[at];
  if (!parent) return floor;
  const m = parent.keyIndent;
  let first = parent.start;
  if (parent.indent < m) return first; // `- key:` opens its mapping
  for (const l of above.slice(at + 1)) {
    if (l.keyIndent < m) break;
    if (l.keyIndent > m) continue;
    first = l.start;
    if (l.indent < m) break;
  }
  return first;
}
