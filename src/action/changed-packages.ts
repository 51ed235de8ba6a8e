import { runGit } from "../github/git-process.js";
import { packageDirs, touchedPackages } from "../jobs/packages.js";

/**
 * The packages a pull request changes, in a checkout of it: the outermost package directories (a
 * subpackage renders with its parent) holding a file that differs between the merge base of `base`
 * and `head`, and `head` itself. A package the change deletes is not listed: there is nothing to
 * render. Needs both commits in the clone (`fetch-depth: 0`).
 */
export async function changedPackages(cwd: string, base: string, head = "HEAD"): Promise<string[]> {
  // NUL-separated, so paths with spaces or non-ASCII names come through unquoted.
  const paths = async ([verb, ...args]: string[]) =>
    (await runGit([verb as string, "-z", ...args], { cwd }))
      .toString("utf8")
      .split("\0")
      .filter((l) => l !== "");
  const changed = await paths(["diff", "--name-only", "--no-renames", `${base}...${head}`]);
  const files = await paths(["ls-tree", "-r", "--name-only", "--full-tree", head]);
  return touchedPackages(changed, packageDirs(files));
}
