import type { RepoPort } from "../../github/port.js";
import type { FileTree } from "../../kpt/tree.js";

export interface DraftHead {
  sha: string;
  /** The package's files, relative to the package directory. */
  tree: FileTree;
}

/** The draft branch's head and the package's files there; undefined when the branch is gone. */
export async function readDraft(port: RepoPort, branch: string, pkg: string): Promise<DraftHead | undefined> {
  const ref = `refs/heads/${branch}`;
  const refs = await port.listRefs();
  if (!refs.some((r) => r.ref === ref)) return undefined;
  return port.readTree(ref, pkg);
}
