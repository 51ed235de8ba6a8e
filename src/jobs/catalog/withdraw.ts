import {
  type DeprecationReference,
  deprecate,
  describeReference,
  removeRevision,
  sameReference,
  skip,
} from "../../catalog/index.js";
import type { CommitAuthor, RepoPort } from "../../github/port.js";
import { type CatalogWrite, guarded, writeCatalog } from "./write.js";

/**
 * The catalog edits that take a revision (or more) out of use: skip, deprecate, remove. Each is
 * level-triggered: it reads the catalog, and where the catalog says so already it changes nothing (the
 * same comment delivered twice, or a job run again after a crash, writes one commit); a refusal says why.
 */

/**
 * Marks a revision skipped in every channel holding it: downstreams jump over it and it is never offered
 * again. Skipping it twice changes nothing.
 */
export function skipRevision(
  port: RepoPort,
  input: { package: string; revision: string; author: CommitAuthor },
): Promise<CatalogWrite> {
  return writeCatalog(port, {
    author: input.author,
    message: `catalog: skip ${input.package} ${input.revision}`,
    edit: (state) => {
      if (!state.catalog) return { refused: state.problem ?? "the catalog cannot be read" };
      const pkg = state.catalog.packages.find((p) => p.name === input.package);
      const already = pkg?.channels.some((c) => c.entries.some((e) => e.skips?.includes(input.revision)));
      if (already) return { text: state.text };
      return guarded(() => skip(state.text, input.package, input.revision).text);
    },
  });
}

/**
 * Takes a revision out of the catalog (its tag stays): downstreams left on it still upgrade, since the
 * entry that replaced it now skips it; a channel head, or a change that would leave a revision without an
 * upgrade path, is refused with the path. Removing it twice changes nothing.
 */
export function removeFromCatalog(
  port: RepoPort,
  input: { package: string; revision: string; author: CommitAuthor },
): Promise<CatalogWrite> {
  return writeCatalog(port, {
    author: input.author,
    message: `catalog: remove ${input.package} ${input.revision}`,
    edit: (state) => {
      if (!state.catalog) return { refused: state.problem ?? "the catalog cannot be read" };
      const pkg = state.catalog.packages.find((p) => p.name === input.package);
      if (pkg?.removed?.includes(input.revision)) return { text: state.text };
      return guarded(() => removeRevision(state.text, input.package, input.revision).text);
    },
  });
}

/**
 * Deprecates a revision, a channel or the package (operator-registry's `olm.deprecations`): it stays
 * installable and on its upgrade paths, with `message` for whoever uses it. The same deprecation again
 * changes nothing; another message replaces the one recorded.
 */
export function deprecateInCatalog(
  port: RepoPort,
  input: { package: string; reference: DeprecationReference; message: string; author: CommitAuthor },
): Promise<CatalogWrite> {
  return writeCatalog(port, {
    author: input.author,
    message: `catalog: deprecate ${input.package} ${describeReference(input.reference)}`,
    edit: (state) => {
      if (!state.catalog) return { refused: state.problem ?? "the catalog cannot be read" };
      const pkg = state.catalog.packages.find((p) => p.name === input.package);
      const same = pkg?.deprecations?.find((d) => sameReference(d.reference, input.reference));
      if (same?.message === input.message) return { text: state.text };
      return guarded(() => deprecate(state.text, input.package, input.reference, input.message).text);
    },
  });
}
