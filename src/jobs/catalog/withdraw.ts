import {
  type DeprecationReference,
  deprecate,
  describeReference,
  removeRevision,
  sameReference,
  skip,
  withdrawRevision,
} from "../../catalog/index.js";
import type { CommitAuthor, RepoPort } from "../../github/port.js";
import type { CatalogState } from "./read.js";
import { type CatalogWrite, guarded, writeCatalog } from "./write.js";

/** One catalog edit as a function of what the catalog holds: the new text, or why not. */
export type CatalogEditFn = (state: CatalogState) => { text: string } | { refused: string };

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
    edit: skipEdit(input.package, input.revision),
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
    edit: removeEdit(input.package, input.revision),
  });
}

/**
 * Takes a deleted revision (its tag gone) out of the catalog, a channel head too: the channel moves back to
 * the newest surviving revision along its upgrade graph (catalog/edit.ts `withdrawRevision`), so fan-out
 * re-plans its followers onto it, and the revision joins `removed`, which keeps its number from being
 * published again. A package or revision the catalog never recorded, or withdrew already, changes nothing.
 */
export function withdrawFromCatalog(
  port: RepoPort,
  input: { package: string; revision: string; reason: string; author: CommitAuthor },
): Promise<CatalogWrite> {
  return writeCatalog(port, {
    author: input.author,
    message: `catalog: withdraw ${input.package} ${input.revision} (${input.reason})`,
    edit: withdrawEdit(input.package, input.revision),
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
    edit: deprecateEdit(input.package, input.reference, input.message),
  });
}

/** The deprecation a published deletion of a package writes: what a re-created package's publish clears. */
export const DELETED_PREFIX = "deleted: ";

/**
 * A package whose deletion was published (its DeletionProposed revision merged): the catalog keeps its
 * history — its tags stay — and deprecates the whole package, saying so, so that `catalog list`, the
 * fan-out's pull requests and dashboards tell its followers that no revision will come. A package that
 * is not in the catalog (never published) is left alone; the same deletion again changes nothing.
 */
export function recordDeleted(
  port: RepoPort,
  input: { package: string; pullRequest: number; commit: string; author: CommitAuthor },
): Promise<CatalogWrite> {
  const message = `${DELETED_PREFIX}#${input.pullRequest} removed ${input.package} (merge ${input.commit.slice(0, 7)}); it gets no new revision`;
  const reference: DeprecationReference = { schema: "olm.package" };
  const edit = deprecateEdit(input.package, reference, message);
  return writeCatalog(port, {
    author: input.author,
    message: `catalog: ${input.package} deleted by #${input.pullRequest}`,
    edit: (state) =>
      state.catalog && !state.catalog.packages.some((p) => p.name === input.package)
        ? { text: state.text }
        : edit(state),
  });
}

/** Skips `revision`; a revision some entry skips already is left as it is. */
export function skipEdit(pkgName: string, revision: string): CatalogEditFn {
  return (state) => {
    if (!state.catalog) return { refused: state.problem ?? "the catalog cannot be read" };
    const pkg = state.catalog.packages.find((p) => p.name === pkgName);
    // Skipped already where every channel holding it has it jumped over: nothing replaces it any more
    // and an entry skips it. Another channel skipping it says nothing of this one.
    const holding = pkg?.channels.filter((c) => c.entries.some((e) => e.name === revision)) ?? [];
    const already =
      holding.length > 0 &&
      holding.every(
        (c) =>
          !c.entries.some((e) => e.replaces === revision) &&
          c.entries.some((e) => e.skips?.includes(revision)),
      );
    if (already) return { text: state.text };
    return guarded(() => skip(state.text, pkgName, revision).text);
  };
}

/** Removes `revision`; one removed already is left as it is. */
export function removeEdit(pkgName: string, revision: string): CatalogEditFn {
  return (state) => {
    if (!state.catalog) return { refused: state.problem ?? "the catalog cannot be read" };
    const pkg = state.catalog.packages.find((p) => p.name === pkgName);
    if (pkg?.removed?.includes(revision)) return { text: state.text };
    return guarded(() => removeRevision(state.text, pkgName, revision).text);
  };
}

/** Deprecates what `reference` names with `message`; the same deprecation again is left as it is. */
export function deprecateEdit(
  pkgName: string,
  reference: DeprecationReference,
  message: string,
): CatalogEditFn {
  return (state) => {
    if (!state.catalog) return { refused: state.problem ?? "the catalog cannot be read" };
    const pkg = state.catalog.packages.find((p) => p.name === pkgName);
    const same = pkg?.deprecations?.find((d) => sameReference(d.reference, reference));
    if (same?.message === message) return { text: state.text };
    return guarded(() => deprecate(state.text, pkgName, reference, message).text);
  };
}

/** Withdraws `revision`; one not recorded, or withdrawn (removed) already, is left as it is. */
function withdrawEdit(pkgName: string, revision: string): CatalogEditFn {
  return (state) => {
    if (!state.catalog) return { refused: state.problem ?? "the catalog cannot be read" };
    const pkg = state.catalog.packages.find((p) => p.name === pkgName);
    if (!pkg?.revisions.some((r) => r.revision === revision)) return { text: state.text };
    return guarded(() => withdrawRevision(state.text, pkgName, revision).text);
  };
}
