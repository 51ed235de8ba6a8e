import { randomUUID } from "node:crypto";
import { GitCommandError } from "../git-process.js";
import { type CacheClone, COMMIT_ID } from "./clone.js";
import { fetchBranchInProcess, fetchCommitsInProcess, type InProcessUse, inProcess } from "./in-process.js";
import { listRefs } from "./refs.js";
import { remote } from "./remote.js";
import { keepFetched, takeLooseRef } from "./tips.js";

/**
 * Makes `ref` (a branch or tag name, a full ref, or a commit SHA) available in the clone; returns its
 * commit. A commit the clone holds is not fetched; a branch is fetched in process where `use` says so
 * (in-process.ts), else by `git fetch`.
 */
export async function fetchRef(clone: CacheClone, use: InProcessUse, ref: string): Promise<string> {
  await clone.init();
  const isSha = COMMIT_ID.test(ref);
  if (isSha && (clone.holds(ref) || (await clone.hasCommit(ref)))) {
    clone.held(ref);
    return ref;
  }
  if (isSha) {
    // A commit named by its id needs no ref to find it by: the objects alone are fetched.
    await fetchCommits(clone, use, [ref]);
    clone.held(ref);
    return ref;
  }
  const src = ref.startsWith("refs/") ? ref : await qualify(clone, use, ref);
  const fetched = use.transfer
    ? await inProcess(clone.url, use, () => fetchBranchInProcess(clone, src))
    : undefined;
  if (fetched) return fetched;
  // A ref of its own per fetch: fetches running at once (Promise.all in a job, or two jobs sharing
  // this cache) would otherwise race on one ref, failing to lock it or reading each other's commit.
  const local = `refs/porchlight/fetch/${randomUUID()}`;
  await remote(clone, [
    "fetch",
    "--quiet",
    "--no-tags",
    "--no-write-fetch-head",
    clone.url,
    `+${src}:${local}`,
  ]);
  const sha =
    (src.startsWith("refs/heads/") ? await takeLooseRef(clone.gitDir, local, src) : undefined) ??
    (await takeRef(clone, local));
  clone.held(sha);
  return sha;
}

/**
 * Commits (or tags) `shas` fetched by their ids with what they reach that the clone lacks: in process
 * where `use` says so (in-process.ts), else by `git fetch`; then kept as tips (keepFetched).
 */
export async function fetchCommits(
  clone: CacheClone,
  use: InProcessUse,
  shas: readonly string[],
): Promise<void> {
  const fetched = use.transfer
    ? await inProcess(clone.url, use, () => fetchCommitsInProcess(clone, shas))
    : undefined;
  if (!fetched)
    await remote(clone, ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", clone.url, ...shas]);
  await keepFetched(clone.gitDir, shas);
}

/** Fetches every branch and tag, for commits the remote does not serve by name (abbreviated SHAs). */
export async function fetchAll(clone: CacheClone): Promise<void> {
  await remote(clone, [
    "fetch",
    "--quiet",
    "--no-tags",
    "--no-write-fetch-head",
    clone.url,
    "+refs/heads/*:refs/porchlight/all/heads/*",
    "+refs/tags/*:refs/porchlight/all/tags/*",
  ]);
}

/** The commit the fetch's own ref `local` names, the ref then deleted. */
async function takeRef(clone: CacheClone, local: string): Promise<string> {
  try {
    return (await clone.git(["rev-parse", `${local}^{commit}`])).toString("utf8").trim();
  } finally {
    await clone.git(["update-ref", "-d", local]);
  }
}

/** The full ref of branch or tag `name` on the remote (a branch first), as `git fetch` finds it. */
async function qualify(clone: CacheClone, use: InProcessUse, name: string): Promise<string> {
  const refs = await listRefs(clone, use);
  const match =
    refs.find((r) => r.ref === `refs/heads/${name}`) ?? refs.find((r) => r.ref === `refs/tags/${name}`);
  if (!match) throw new GitCommandError(["fetch"], 128, `couldn't find remote ref ${name}`, "missing");
  return match.ref;
}
