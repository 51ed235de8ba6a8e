import type { FileEntry, RepoPort } from "../../github/port.js";

export interface DraftHead {
  sha: string;
  /** The package's files as the git tree lists them (paths relative to the package, sizes): nothing read yet. */
  files: FileEntry[];
}

/** The draft branch's head and the package's file list there; undefined when the branch is gone. */
export async function readDraft(port: RepoPort, branch: string, pkg: string): Promise<DraftHead | undefined> {
  const ref = `refs/heads/${branch}`;
  const refs = await port.listRefs();
  if (!refs.some((r) => r.ref === ref)) return undefined;
  return port.listFiles(ref, pkg);
}
