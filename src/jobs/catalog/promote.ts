import { CatalogError, promote, skip } from "../../catalog/index.js";
import type { CommitAuthor, RepoPort } from "../../github/port.js";
import { type CatalogWrite, writeCatalog } from "./write.js";

/** Adds a published revision to a channel (it replaces the channel's head; a channel only moves forward). */
export function promoteRevision(
  port: RepoPort,
  input: { package: string; revision: string; channel: string; author: CommitAuthor },
): Promise<CatalogWrite> {
  return writeCatalog(port, {
    author: input.author,
    message: `catalog: promote ${input.package} ${input.revision} to ${input.channel}`,
    edit: (state) => {
      if (!state.catalog) return { refused: state.problem ?? "the catalog cannot be read" };
      const pkg = state.catalog.packages.find((p) => p.name === input.package);
      const channel = pkg?.channels.find((c) => c.name === input.channel);
      if (channel?.entries.some((e) => e.name === input.revision)) return { text: state.text };
      return guarded(() => promote(state.text, input.package, input.revision, input.channel).text);
    },
  });
}

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

function guarded(edit: () => string): { text: string } | { refused: string } {
  try {
    return { text: edit() };
  } catch (e) {
    if (e instanceof CatalogError) return { refused: e.message };
    throw e;
  }
}
