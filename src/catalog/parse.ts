import { type Document, isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import {
  formatQuotedFieldPath,
  locate,
  type PathSegment,
  pointAt,
  positionAt,
  positionOf,
} from "../kpt/yaml/yaml-locate.js";
import { CatalogError, type CatalogProblem, type GraphViolation } from "./errors.js";
import { checkCatalog } from "./graph.js";
import { CATALOG_FILE, CATALOG_SCHEMA, type Catalog, catalogSchema } from "./schema.js";

export interface ParsedCatalog {
  catalog: Catalog;
  document: Document;
}

/** An empty catalog, for a repository that has published nothing yet. */
export const EMPTY_CATALOG = `# Published revisions, channels and upgrade edges of this repository's packages.\n# Kept by porchlight; edits are validated on every change.\nschema: ${CATALOG_SCHEMA}\npackages: []\n`;

/**
 * Reads a catalog file, checking both its shape and the channel rules (one head per channel, every entry
 * reachable from it, no cycles). Throws a CatalogError whose problems name line, column and field.
 */
export function parseCatalog(
  text: string,
  file = CATALOG_FILE,
  options: { fillDefaultChannels?: boolean } = {},
): ParsedCatalog {
  const lineCounter = new LineCounter();
  const document = parseDocument(text.trim() === "" ? EMPTY_CATALOG : text, {
    lineCounter,
    prettyErrors: false,
  });
  if (document.errors.length > 0) {
    throw new CatalogError(
      `${file} is not valid YAML`,
      document.errors.map((e) => ({
        file,
        ...positionAt(e.pos[0], lineCounter),
        field: "",
        message: e.message.split("\n")[0] ?? e.message,
      })),
    );
  }
  const at = (path: PathSegment[], message: string, preferKey = false): CatalogProblem => {
    const node = pointAt(locate(document.contents, path), { preferKey, missingAtParentKey: true });
    return { file, ...positionOf(node, lineCounter), field: formatQuotedFieldPath(path), message };
  };
  if (options.fillDefaultChannels) fillDefaultChannels(document);
  const parsed = catalogSchema.safeParse(document.toJS());
  if (!parsed.success) {
    throw new CatalogError(
      `${file} is not a porchlight catalog`,
      parsed.error.issues.map((issue) => {
        const path = issue.path.filter((s): s is PathSegment => typeof s !== "symbol");
        if (issue.code === "unrecognized_keys")
          return at([...path, issue.keys[0] ?? ""], `unknown field ${JSON.stringify(issue.keys[0])}`, true);
        return at(path, issue.message);
      }),
    );
  }
  const violations: GraphViolation[] = checkCatalog(parsed.data);
  if (violations.length > 0) {
    throw new CatalogError(
      `${file} breaks the channel rules`,
      violations.map((v) => at(v.path, v.message)),
    );
  }
  return { catalog: parsed.data, document };
}

/**
 * Gives each package that has channels but no `defaultChannel` its first channel, as operator-registry's
 * model takes the first channel it is given. The operations and the bot's reads (`catalogState`) do it, so a
 * catalog written before `defaultChannel` existed keeps working and gets one with its next edit; a plain
 * read (the command line) reports it missing.
 */
function fillDefaultChannels(document: Document): void {
  const packages = document.get("packages", true);
  if (!isSeq(packages)) return;
  for (const pkg of packages.items) {
    if (!isMap(pkg) || pkg.has("defaultChannel")) continue;
    const first = pkg.getIn(["channels", 0, "name"]);
    if (typeof first !== "string") continue;
    const at = pkg.items.findIndex((pair) => isScalar(pair.key) && pair.key.value === "name");
    pkg.items.splice(at + 1, 0, document.createPair("defaultChannel", first));
  }
}
