import type { FileEntry, RepoFiles } from "../../github/port.js";

export interface DraftHead {
  sha: string;
  /** The package's files as the git tree lists them (paths relative to the package, sizes): nothing read yet. */
  files: FileEntry[];
}

/**
 * The draft branch's head and the package's file list there; undefined when the branch is gone. The
 * branch is fetched by its ref, one request pair for head and files; only when that fails are the
 * branches listed, to tell a branch deleted meanwhile from a failure to report.
 */
export async function readDraft(
  port: RepoFiles,
  branch: string,
  pkg: string,
): Promise<DraftHead | undefined> {
  const ref = `refs/heads/${branch}`;
  try {
    return await port.listFiles(ref, pkg);
  } catch (e) {
    if ((await port.listRefs()).some((r) => r.ref === ref)) throw e;
    return undefined;
  }
}
