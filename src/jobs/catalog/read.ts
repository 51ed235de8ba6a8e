import {
  CATALOG_BRANCH,
  CATALOG_FILE,
  type Catalog,
  CatalogError,
  EMPTY_CATALOG,
  formatCatalogProblem,
  highestRevision,
  knownCatalog,
} from "../../catalog/index.js";
import type { RepoFiles } from "../../github/port.js";
import { indexRefs, type RefInfo } from "../../lifecycle/refs.js";

export interface CatalogState {
  /** The commit branch `porchlight/catalog` points at; null when the branch does not exist yet. */
  head: string | null;
  /** The text of catalog.yaml (an empty catalog when the branch or file is absent). */
  text: string;
  /** The parsed catalog, or why it could not be read (file, line, field). */
  catalog?: Catalog;
  problem?: string;
}

/**
 * Reads catalog.yaml from branch `porchlight/catalog` by git (the refs, when the caller has them, spare
 * the ls-remote). A broken catalog is returned with its problem, never thrown: fan-out still runs for
 * variants that follow fixed revisions.
 */
export async function readCatalog(port: RepoFiles, refs?: readonly RefInfo[]): Promise<CatalogState> {
  const head = indexRefs(refs ?? (await port.listRefs())).branches.get(CATALOG_BRANCH) ?? null;
  const text = head
    ? ((await port.readTree(head)).tree.get(CATALOG_FILE)?.toString("utf8") ?? EMPTY_CATALOG)
    : EMPTY_CATALOG;
  return catalogState(text, head);
}

/**
 * The highest revision number of `pkg` the repository's catalog remembers (catalog/queries.ts
 * `highestRevision`): what `nextRevision` numbers on after, beside the tags. A catalog that cannot be read
 * reserves nothing: the tags alone decide, as before the catalog existed.
 */
export async function reservedRevision(
  port: RepoFiles,
  refs: readonly RefInfo[],
  pkg: string,
): Promise<number> {
  return highestRevision((await readCatalog(port, refs)).catalog, pkg);
}

/**
 * A catalog's text as a state to edit: parsed, or with the problem that keeps it from being read. A catalog
 * written before packages had a `defaultChannel` is read with each package's first channel as its default
 * (the next edit writes it), so upgrading porchlight does not stop fan-out or the catalog commands.
 */
export function catalogState(text: string, head: string | null, file = CATALOG_FILE): CatalogState {
  try {
    return { head, text, catalog: knownCatalog(text, file) };
  } catch (e) {
    const problem =
      e instanceof CatalogError ? describe(e) : `${file}: ${e instanceof Error ? e.message : String(e)}`;
    return { head, text, problem };
  }
}

function describe(e: CatalogError): string {
  const first = e.problems[0];
  return first ? formatCatalogProblem(first) : `${CATALOG_FILE}: ${e.message}`;
}
