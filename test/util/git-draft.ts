import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

type Git = (cwd: string, ...args: string[]) => Promise<unknown>;

/**
 * A draft made with git, outside porchlight: `files` committed with `message` on a new branch `branch` of
 * the clone `dir` (from its checked-out commit, or `from`), pushed to origin (or the remote `to`).
 */
export async function pushDraft(
  git: Git,
  dir: string,
  branch: string,
  files: Record<string, string>,
  message: string,
  at: { from?: string; to?: string } = {},
): Promise<void> {
  await git(dir, "checkout", "-q", "-b", branch, ...(at.from ? [at.from] : []));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  await git(dir, "add", ".");
  await git(dir, "commit", "-q", "-m", message);
  await git(dir, "push", "-q", at.to ?? "origin", branch);
}
