import type { CommitAuthor, PushResult, RepoPushes } from "../../github/port.js";
import type { FileTree } from "../../kpt/tree.js";

/** The bot's render commit message; the trailer lets people (and the bot) recognise it. */
function renderCommitMessage(pkg: string, fromSha: string): string {
  return `Render ${pkg}\n\nporchlight ran the package's function pipeline on ${fromSha.slice(0, 7)} and committed the result.\n\nPorchlight-Render: ${fromSha}\n`;
}

/** Pushes the rendered package on top of the head it was rendered from, never with force. */
export function pushRender(
  port: RepoPushes,
  input: {
    branch: string;
    pkg: string;
    headSha: string;
    tree: FileTree;
    /** The blob ids of the files the render left as git listed them (not hashed again). */
    blobIds?: ReadonlyMap<string, string>;
    author: CommitAuthor;
  },
): Promise<PushResult> {
  return port.commitTree({
    branch: input.branch,
    parent: input.headSha,
    dir: input.pkg,
    tree: input.tree,
    ...(input.blobIds ? { blobIds: input.blobIds } : {}),
    message: renderCommitMessage(input.pkg, input.headSha),
    author: input.author,
  });
}
