import { fetchPackHttp, lsRefHttp, packObjects } from "../git-fetch-http.js";
import { GitCommandError } from "../git-process.js";
import type { CacheClone } from "./clone.js";
import type { NotV2Servers } from "./not-v2.js";
import { maintenanceDue, tidy, withHeaders } from "./remote.js";
import { keepTip, tipsOffered } from "./tips.js";

/** What a GitRepo asks over smart HTTP in this process rather than of git (its constructor says which). */
export interface InProcessUse {
  /** The refs are listed in process alone, never by `git ls-remote` (the command line's clone). */
  readonly refsOnly: boolean;
  /**
   * A branch the clone holds an earlier commit of, and commits by their ids, are fetched in process, and
   * refs are pushed in process (push.ts).
   */
  readonly transfer: boolean;
  /** The servers left to git for a while. */
  readonly notV2: NotV2Servers;
  /**
   * Nothing is asked in this process: a clone of an upstream a caller named, kept within a fence that git
   * itself holds (upstream-fence.ts) and that a request made here would not.
   */
  readonly fenced?: boolean;
}

/** A pack of fewer objects than this is unpacked into loose objects, a larger one kept as a pack (git's fetch.unpackLimit). */
const UNPACK_LIMIT = 100;

/** Whether `url` may be asked over smart HTTP in this process: not fenced, http(s), not left to git lately. */
export function askable(url: string, use: InProcessUse): boolean {
  return !use.fenced && /^https?:\/\//.test(url) && !use.notV2.has(url);
}

/**
 * What `ask` answers over smart HTTP in this process, or undefined where git is to be asked instead:
 * the clone is fenced, the URL is not http(s), the server did not answer as protocol v2 lately (`notV2`), or `ask` failed (a
 * protocol error marks the server so).
 */
export async function inProcess<T>(
  url: string,
  use: InProcessUse,
  ask: () => Promise<T | undefined>,
): Promise<T | undefined> {
  if (!askable(url, use)) return undefined;
  return ask().catch((e: unknown) => {
    if (e instanceof GitCommandError && e.kind === "protocol") use.notV2.add(url);
    return undefined;
  });
}

/**
 * Branch `src` fetched in this process (git-fetch-http.ts): its commit listed, then, unless the clone
 * holds it, a pack of what the clone lacks, written by `git unpack-objects` (a small pack) or `git
 * index-pack` — no connectivity check, as the pack answers `have`s that are this clone's own tips,
 * complete with their history. Undefined where git is to fetch it: not a branch, no earlier commit of
 * it (or of another branch) here to offer, a shallow clone. Fails as the request failed; the caller
 * (through inProcess, which also leaves a server that did not speak v2 lately to git) then asks git.
 */
export async function fetchBranchInProcess(clone: CacheClone, src: string): Promise<string | undefined> {
  if (clone.shallow || !src.startsWith("refs/heads/")) return undefined;
  const haves = await tipsOffered(clone.gitDir, src);
  if (haves.length === 0) return undefined;
  return withHeaders(clone, async (headers) => {
    const sha = await lsRefHttp(clone.url, headers, src);
    if (sha === undefined) return undefined;
    if (!clone.holds(sha) && !haves.includes(sha))
      await writePack(clone, await fetchPackHttp(clone.url, headers, { wants: [sha], haves }));
    await keepTip(clone.gitDir, src, sha);
    clone.held(sha);
    return sha;
  });
}

/**
 * Commits (or tags) `shas` fetched by their ids in this process, with what they reach that the clone
 * lacks: the fetch `git fetch URL SHA…` makes, one request and the pack's writer where git started four
 * processes, and offered as `have` the clone's most recent tips (tipsOffered) where git offered every
 * tip it keeps, one a draft ever fetched: as Porch's iterative test grew to 100 revisions a
 * registration, git's negotiation and the connectivity check after it over all of them grew with it.
 * False where git is to fetch them: a shallow clone, no tip to offer. Fails as the request failed (a
 * commit the server does not hold); the caller then asks git, whose refusal is the one reported.
 */
export async function fetchCommitsInProcess(clone: CacheClone, shas: readonly string[]): Promise<boolean> {
  if (clone.shallow) return false;
  const haves = await tipsOffered(clone.gitDir);
  if (haves.length === 0) return false;
  await withHeaders(clone, async (headers) =>
    writePack(clone, await fetchPackHttp(clone.url, headers, { wants: shas, haves })),
  );
  return true;
}

/**
 * A fetched pack written into the clone (nothing for an empty one), tidied after one fetch in
 * MAINTENANCE_EVERY as after git's (remote.ts): the loose objects and small packs written here are
 * packed together in time, the commit-graph kept up.
 */
async function writePack(clone: CacheClone, pack: Buffer): Promise<void> {
  const objects = packObjects(pack);
  if (objects > 0)
    await clone.git(
      objects < UNPACK_LIMIT ? ["unpack-objects", "-q"] : ["index-pack", "--stdin", "--fix-thin"],
      pack,
    );
  if (maintenanceDue()) await tidy(clone);
}
