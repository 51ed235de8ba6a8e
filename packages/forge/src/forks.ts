import { createRepo } from "./admin.js";
import type { ForgeCore } from "./context.js";
import { runGit } from "./git.js";
import type { RepoRec } from "./types.js";

/** The repository a fork was made from, or undefined for a repository that is no fork. */
export function parentOf(core: ForgeCore, repo: RepoRec): RepoRec | undefined {
  return repo.forkOf === undefined ? undefined : core.store.repoById(repo.forkOf);
}

/** The root of a repository's fork network (GitHub's `source`): itself when it is no fork. */
export function sourceOf(core: ForgeCore, repo: RepoRec): RepoRec {
  let r = repo;
  for (let p = parentOf(core, r); p; p = parentOf(core, r)) r = p;
  return r;
}

export function forksOf(core: ForgeCore, repo: RepoRec): RepoRec[] {
  return core.store.data.repos.filter((r) => r.forkOf === repo.id);
}

/**
 * Forks `parent` into `owner`'s account as GitHub does: a repository of its own (same visibility,
 * default branch, branches and tags; no collaborators, issues or pull requests), with `fork: true`.
 * Forking again answers the fork that already exists.
 */
export async function createFork(
  core: ForgeCore,
  parent: RepoRec,
  owner: string,
  opts: { name?: string; defaultBranchOnly?: boolean } = {},
): Promise<RepoRec> {
  const existing = core.store.data.repos.find(
    (r) => r.ownerLogin.toLowerCase() === owner.toLowerCase() && r.forkOf === parent.id,
  );
  if (existing) return existing;
  const fork = await createRepo(core, owner, opts.name ?? parent.name, {
    private: parent.private,
    description: parent.description,
    defaultBranch: parent.defaultBranch,
  });
  fork.forkOf = parent.id;
  const from = core.git.dir(parent.ownerLogin, parent.name);
  const to = core.git.dir(fork.ownerLogin, fork.name);
  const specs = opts.defaultBranchOnly
    ? [`+refs/heads/${parent.defaultBranch}:refs/heads/${parent.defaultBranch}`]
    : ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"];
  await runGit(to, ["fetch", "--quiet", "--no-write-fetch-head", from, ...specs]);
  fork.pushedAt = parent.pushedAt;
  core.store.save();
  return fork;
}

/**
 * The repository `owner` holds in `base`'s fork network (the head of a cross-repository pull request,
 * `head: "owner:branch"`): `base` itself for its owner, else the network's repository of that owner.
 */
export function networkRepoOf(core: ForgeCore, base: RepoRec, owner: string): RepoRec | undefined {
  if (base.ownerLogin.toLowerCase() === owner.toLowerCase()) return base;
  const root = sourceOf(core, base);
  const mine = core.store.data.repos.filter(
    (r) => r.ownerLogin.toLowerCase() === owner.toLowerCase() && sourceOf(core, r).id === root.id,
  );
  return mine.find((r) => r.name.toLowerCase() === base.name.toLowerCase()) ?? mine[0];
}

/**
 * Copies a fork's head commit into the base repository, as GitHub keeps `refs/pull/<n>/head`: the
 * base can then diff, check and merge it. Without `number`, only the objects are copied.
 */
export async function copyHead(
  core: ForgeCore,
  base: RepoRec,
  head: RepoRec,
  sha: string,
  number?: number,
): Promise<void> {
  const dir = core.git.dir(base.ownerLogin, base.name);
  await core.withRepoLock(base.id, async () => {
    if (!(await core.git.objectType(dir, sha))) {
      await runGit(dir, [
        "fetch",
        "--quiet",
        "--no-tags",
        "--no-write-fetch-head",
        core.git.dir(head.ownerLogin, head.name),
        sha,
      ]);
    }
    if (number !== undefined) await runGit(dir, ["update-ref", `refs/pull/${number}/head`, sha]);
  });
}
