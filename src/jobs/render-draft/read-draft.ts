import type { FileEntry, RepoPort } from "../../github/port.js";

export interface DraftHead {
  sha: string;
  /** The package's files as the git tree lists them (paths relative to the package, sizes): nothing read yet. */
  files: FileEntry[];
}

/** The draft branch's head and the package's file list there; undefined when the branch is gone. */
export async function readDraft(port: RepoPort, branch: string, pkg: string): Promise<DraftHead | undefined> {
  const ref = `refs/heads/${branch}`;
  const head = (await port.listRefs()).find((r) => r.ref === ref);
  if (!head) return undefined;
  // By its commit id: the commit is fetched with no ref to make and read back.
  return port.listFiles(head.sha, pkg);
}
