import type { CommitAuthor, PushResult, RepoPushes } from "../../github/port.js";
import type { FileTree } from "../../kpt/tree.js";
import { renderCommitMessage } from "../../lifecycle/render-commit.js";

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
