import {
  Composer,
  type Document,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  Parser,
  parseAllDocuments,
  visit,
  type YAMLError,
} from "yaml";
import { YamlError } from "../errors.js";
import { keepTokens } from "./comments/apply.js";
import { goYamlError } from "./go-yaml-errors.js";
import { parseCommonYaml } from "./yaml-fast.js";
import { mayHoldFlowColon, parseWithFlowColons } from "./yaml-flow-colon.js";
import { orphanItemError, parseWithFlowKeys } from "./yaml-flow-key.js";
import { mergeKeysAsText } from "./yaml-nodes.js";
import { parseWithUnindentedQuotes } from "./yaml-quoted.js";

/**
 * Options kpt-compatible parsing uses everywhere: YAML 1.1 scalars as kyaml (yaml.v3) reads them for
 * kinds like `on`/`yes` is not needed because values are kept as source text; keep source formatting.
 */
const PARSE_OPTIONS = { keepSourceTokens: false, prettyErrors: true, uniqueKeys: false } as const;

export interface ParsedYamlFile {
  docs: Document[];
  lineCounter: LineCounter;
  /** Read by the fast reader (yaml-fast.ts), not by `yaml`'s parser: reading it again costs little. */
  fast: boolean;
}

/**
 * Parses a YAML file that may hold several documents. Empty documents (a lone `---`, or only comments)
 * are dropped as kpt drops them. Throws a YamlError naming the file, line and column of the first error.
 */
export function parseYamlFile(text: string, file: string): ParsedYamlFile {
  // Most package files are read by the fast reader, into the same Documents (none empty, no error,
  // no alias, ending with a line break); it gives back the others, read here by `yaml`.
  const common = new LineCounter();
  const read = parseCommonYaml(text, { ...PARSE_OPTIONS, lineCounter: common });
  if (read) return { docs: read, lineCounter: common, fast: true };
  let lineCounter = new LineCounter();
  let docs = composeKeepingTokens(text, lineCounter);
  if (!docs) {
    // errors or warnings: read again as parseAllDocuments does, which gives them their positions
    lineCounter = new LineCounter();
    const all = parseAllDocuments(text, { ...PARSE_OPTIONS, lineCounter });
    docs = Array.isArray(all) ? all : [all];
  }
  if (docs.some((d) => d.errors.some(cutQuote))) {
    // a quoted scalar yaml.v3 reads whole, its continuation lines not indented past its key
    const again = new LineCounter();
    const read = parseWithUnindentedQuotes(text, { ...PARSE_OPTIONS, lineCounter: again });
    if (read) [docs, lineCounter] = [read, again];
  } else if (mayHoldFlowColon(text)) {
    // a plain scalar in a flow collection that yaml.v3 reads on past a `:` (`[001:db8::]`)
    const again = new LineCounter();
    const read = parseWithFlowColons(text, { ...PARSE_OPTIONS, lineCounter: again });
    if (read) [docs, lineCounter] = [read, again];
  }
  if (docs.some((d) => d.errors.some(orphanItemError))) {
    // a flow collection as a key after another entry (`[b]: 2`): the `yaml` parser's orphan item
    const again = new LineCounter();
    const read = parseWithFlowKeys(text, { ...PARSE_OPTIONS, lineCounter: again });
    if (read) [docs, lineCounter] = [read, again];
  }
  for (const doc of docs) {
    const err = doc.errors[0];
    if (err) {
      const at = err.linePos?.[0];
      const error = new YamlError(
        { file, line: at?.line, column: at?.col },
        `invalid YAML: ${firstLine(err.message)}; fix the syntax and run again`,
      );
      error.kptDetail = goYamlError(err, text);
      throw error;
    }
    if (text.includes("*")) checkAliases(doc, file, lineCounter);
    mergeKeysAsText(doc, text);
  }
  const kept = docs.filter((d) => !isEmptyDocument(d));
  const last = kept[kept.length - 1];
  if (last && text !== "" && !text.endsWith("\n")) blockScalarAtEnd(last, text.length);
  return { docs: kept, lineCounter, fast: false };
}

/**
 * The documents of `text` as parseAllDocuments composes them, its syntax tree kept for the comment
 * reader (keepTokens: the text parsed once); undefined where a document has an error or a warning,
 * which parseAllDocuments gives positions (prettyErrors).
 */
function composeKeepingTokens(text: string, lineCounter: LineCounter): Document[] | undefined {
  const tokens = Array.from(new Parser(lineCounter.addNewLine).parse(text));
  const docs: Document[] = Array.from(new Composer({ ...PARSE_OPTIONS, lineCounter }).compose(tokens));
  if (docs.some((d) => d.errors.length > 0 || d.warnings.length > 0)) return undefined;
  keepTokens(text, tokens, docs);
  return docs;
}

/** The `yaml` parser's error for a quoted scalar it ended before its closing quote. */
function cutQuote(error: YAMLError): boolean {
  return error.code === "MISSING_CHAR" && error.message.startsWith("Missing closing");
}

/** An alias must name an anchor above it: go-yaml refuses the file otherwise, and so does kpt. */
function checkAliases(doc: Document, file: string, lineCounter: LineCounter): void {
  visit(doc, {
    Alias(_, alias) {
      if (alias.resolve(doc) !== undefined) return;
      const at = alias.range ? lineCounter.linePos(alias.range[0]) : undefined;
      const error = new YamlError(
        { file, line: at?.line, column: at?.col },
        `invalid YAML: no anchor &${alias.source} above the alias *${alias.source}; define the anchor before its use or write the value out`,
      );
      error.kptDetail = `yaml: unknown anchor '${alias.source}' referenced`;
      throw error;
    },
  });
}

/**
 * A document kyaml drops: no content (a lone `---`, or only comments), or a null (`~`, `null`).
 */
export function isEmptyDocument(doc: Document): boolean {
  const c = doc.contents;
  return c === null || (isScalar(c) && c.value === null);
}

/**
 * A block scalar that runs to the end of a file without a final line break has no final line break in
 * its text either (yaml.v3 reads `a: |` + `  x` at the end of a file as "x", and writes it back `|-`);
 * the `yaml` parser adds one. Take it off the last document's block scalar that ends there.
 */
export function blockScalarAtEnd(doc: Document, end: number): void {
  let node: unknown = doc.contents;
  while (node) {
    if (isScalar(node)) {
      const blockType = node.type === "BLOCK_LITERAL" || node.type === "BLOCK_FOLDED";
      if (blockType && node.range && node.range[1] >= end && typeof node.value === "string") {
        if (node.value.endsWith("\n")) node.value = node.value.slice(0, -1);
      }
      return;
    }
    if (isMap(node) || isSeq(node)) {
      const lastItem = node.items[node.items.length - 1];
      node = isPair(lastItem) ? lastItem.value : lastItem;
      continue;
    }
    return;
  }
}

function firstLine(message: string): string {
  const nl = message.indexOf("\n");
  const line = nl < 0 ? message : message.slice(0, nl);
  return line.replace(/ at line \d+, column \d+:?$/, "");
}

/** True for the file names kpt reads as resources. */
export function isYamlFileName(path: string): boolean {
  return path.endsWith(".yaml") || path.endsWith(".yml") || path === "Kptfile" || path.endsWith("/Kptfile");
}
