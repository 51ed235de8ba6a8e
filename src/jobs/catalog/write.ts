import { CATALOG_BRANCH, CATALOG_FILE, CatalogError } from "../../catalog/index.js";
import type { CommitAuthor, RepoPort } from "../../github/port.js";
import { type CatalogState, readCatalog } from "./read.js";

/** How often a catalog edit is tried again when someone else moved the branch meanwhile. */
const ATTEMPTS = 5;

export type CatalogWrite =
  | { kind: "committed"; sha: string; text: string }
  | { kind: "unchanged"; text: string }
  | { kind: "refused"; message: string };

/**
 * One edit of catalog.yaml as a commit on branch `porchlight/catalog` (created, holding only the catalog,
 * when absent): read, edit, push without force; a push refused as non-fast-forward reads the new head and
 * edits again. `edit` returns the new text, or a refusal (a CatalogError message) that ends the attempt.
 */
export async function writeCatalog(
  port: RepoPort,
  input: {
    author: CommitAuthor;
    message: string;
    edit: (state: CatalogState) => { text: string } | { refused: string };
  },
): Promise<CatalogWrite> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const state = await readCatalog(port);
    const edited = input.edit(state);
    if ("refused" in edited) return { kind: "refused", message: edited.refused };
    // (an edit that changes nothing writes nothing: nor does it make the branch where there is none)
    if (edited.text === state.text) return { kind: "unchanged", text: state.text };
    const pushed = await port.commitTree({
      branch: CATALOG_BRANCH,
      parent: state.head,
      dir: "",
      tree: new Map([[CATALOG_FILE, Buffer.from(edited.text)]]),
      message: input.message,
      author: input.author,
    });
    if (pushed.ok) return { kind: "committed", sha: pushed.sha, text: edited.text };
    if (pushed.reason === "unchanged") return { kind: "unchanged", text: edited.text };
  }
  throw new Error(
    `could not write ${CATALOG_FILE} on ${CATALOG_BRANCH}: the branch moved on every one of ${ATTEMPTS} attempts`,
  );
}

/** An edit of the catalog's text, with a CatalogError (the edit would break the catalog) as its refusal. */
export function guarded(edit: () => string): { text: string } | { refused: string } {
  try {
    return { text: edit() };
  } catch (e) {
    if (e instanceof CatalogError) return { refused: e.message };
    throw e;
  }
}
