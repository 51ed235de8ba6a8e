import { promote } from "../../catalog/index.js";
import type { CommitAuthor, RepoPort } from "../../github/port.js";
import { type CatalogWrite, guarded, writeCatalog } from "./write.js";

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
