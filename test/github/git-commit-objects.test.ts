import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitRepo } from "../../src/github/git-repo.js";
import { type FileTree, treeFromText } from "../../src/kpt/tree.js";

/** An author git writes as given: the commit is written in process. */
const inProcess = { name: "porchlight[bot]", email: "bot@example.com" };
/** An author git writes otherwise (it trims the dot): the commit is made by git in an index. */
const byGit = { name: "Bot.", email: "bot@example.com" };

/**
 * The bot's commits written in its own process (git-objects.ts: trees, commit) against the same commits
 * made by git (read-tree, update-index, write-tree, commit-tree): the same tree, to the byte, for each
 * shape a package directory can take in a repository — so the id GitHub computes is the same and its
 * checks of pushed objects (sorted entries, modes) pass.
 */
describe("a commit written in process is the one git writes", () => {
  let dir: string;
  let remote: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "porchlight-commit-objects-"));
    remote = join(dir, "remote.git");
    execFileSync("git", ["init", "--bare", "--quiet", "-b", "main", remote]);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const git = (...args: string[]) =>
    execFileSync("git", ["--git-dir", remote, ...args], { encoding: "utf8" });
  const repoIn = (cache: string) => new GitRepo(`file://${remote}`, join(dir, cache), async () => ({}));

  /** The tree of the commit `branch` is at, and the whole of it as `ls-tree -r -t` lists it. */
  const treeOf = (branch: string) => ({
    id: git("rev-parse", `refs/heads/${branch}^{tree}`).trim(),
    listing: git("ls-tree", "-r", "-t", `refs/heads/${branch}`),
  });

  let round = 0;
  /** Commits on the same parent twice, in process and by git, to two new branches; both trees. */
  async function both(parent: string | null, dirPath: string, tree: FileTree) {
    const results = [];
    round++;
    for (const [branch, author] of [
      [`in-process-${round}`, inProcess],
      [`by-git-${round}`, byGit],
    ] as const) {
      const repo = repoIn(`cache-${branch}`);
      if (parent) await repo.fetch(parent);
      const pushed = await repo.commitTree({
        branch,
        parent,
        dir: dirPath,
        tree,
        message: "Render\n\nPorchlight-Render: x\n",
        author,
        kpt: null,
      });
      results.push(pushed.ok ? treeOf(branch) : pushed.reason);
    }
    return results;
  }

  /** A first commit on main (made by git, as a person's clone would), with executable and link modes. */
  async function base(): Promise<string> {
    const work = join(dir, "work");
    const run = (...args: string[]) =>
      execFileSync("git", ["-C", work, "-c", "user.name=A", "-c", "user.email=a@example.com", ...args]);
    execFileSync("git", ["clone", "--quiet", remote, work]);
    const files: Record<string, string> = {
      "README.md": "r\n",
      "apps/a.txt": "file before the tree a\n",
      "apps/web/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n",
      "apps/web/cm.yaml": "a: 1\n",
      "apps/web/a/deep.yaml": "d: 1\n",
      "apps/web/a.yaml": "sorted before a/\n",
      "apps/web/a0.yaml": "sorted after a/\n",
      "apps/web/run.sh": "#!/bin/sh\n",
      "apps/web0/x.yaml": "x: 1\n",
      "apps/other/Kptfile": "k\n",
    };
    for (const [path, text] of Object.entries(files)) {
      execFileSync("mkdir", ["-p", join(work, path, "..")]);
      execFileSync("sh", ["-c", `cat > '${join(work, path)}'`], { input: text });
    }
    execFileSync("chmod", ["+x", join(work, "apps/web/run.sh")]);
    execFileSync("ln", ["-s", "cm.yaml", join(work, "apps/web/link.yaml")]);
    run("add", "-A");
    run("commit", "--quiet", "-m", "base");
    run("push", "--quiet", "origin", "HEAD:main");
    return git("rev-parse", "refs/heads/main").trim();
  }

  it("for a package's files changed, added and removed, in nested directories, modes kept", async () => {
    const parent = await base();
    const tree = treeFromText({
      Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n",
      "cm.yaml": "a: 2\n",
      "a/deep.yaml": "d: 1\n",
      "a/new/deeper.yaml": "n: 1\n",
      "a.yaml": "sorted before a/\n",
      "a-b.yaml": "between\n",
      "run.sh": "#!/bin/sh\necho changed\n",
      "link.yaml": "cm.yaml",
    });
    const [mine, gits] = await both(parent, "apps/web", tree);
    expect(mine).toEqual(gits);
    // the modes the parent gave kept: the script executable, the link a link
    expect((mine as { listing: string }).listing).toMatch(/^100755 blob \w+\tapps\/web\/run\.sh$/m);
    expect((mine as { listing: string }).listing).toMatch(/^120000 blob \w+\tapps\/web\/link\.yaml$/m);
    expect(git("fsck", "--strict", "--no-dangling")).toBe("");
    // the commit object too: git's commit-tree of the same tree, parent, author, time and message
    const branch = `refs/heads/in-process-${round}`;
    const made = git("rev-parse", branch).trim();
    const seconds = git("log", "-1", "--format=%at", branch).trim();
    const again = execFileSync(
      "git",
      ["--git-dir", remote, "commit-tree", `${branch}^{tree}`, "-p", parent, "-F", "-"],
      {
        input: "Render\n\nPorchlight-Render: x\n",
        encoding: "utf8",
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: inProcess.name,
          GIT_AUTHOR_EMAIL: inProcess.email,
          GIT_COMMITTER_NAME: inProcess.name,
          GIT_COMMITTER_EMAIL: inProcess.email,
          GIT_AUTHOR_DATE: `${seconds} +0000`,
          GIT_COMMITTER_DATE: `${seconds} +0000`,
        },
      },
    ).trim();
    expect(made).toBe(again);
  });

  it("for a new package, the whole tree, a package emptied, the first commit, and nothing changed", async () => {
    const parent = await base();
    const pkg = treeFromText({ Kptfile: "k\n", "x.yaml": "x: 1\n" });
    // a directory the parent lacks, below one it lacks too
    const [a, b] = await both(parent, "new/deep/pkg", pkg);
    expect(a).toEqual(b);
    // the repository's root as the directory
    const [rootA, rootB] = await both(parent, "", treeFromText({ "only.yaml": "o: 1\n", "d/e.yaml": "e\n" }));
    expect(rootA).toEqual(rootB);
    // every file of a package removed: the directory goes, and its parent's entry with it
    const [goneA, goneB] = await both(parent, "apps/other", new Map());
    expect(goneA).toEqual(goneB);
    expect((goneA as { listing: string }).listing).not.toMatch(/apps\/other/);
    // a first commit (no parent)
    const [firstA, firstB] = await both(null, "apps/web", pkg);
    expect(firstA).toEqual(firstB);
    // the same files again: no commit
    const same = treeFromText({ Kptfile: "k\n" });
    expect(await both(parent, "apps/other", same)).toEqual(["unchanged", "unchanged"]);
    expect(git("fsck", "--strict", "--no-dangling")).toBe("");
  });
});
