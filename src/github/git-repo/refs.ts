import type { RefInfo } from "../../lifecycle/refs.js";
import { GitCommandError } from "../git-process.js";
import { lsRefs, lsRemoteHttp } from "../git-refs-http.js";
import type { CacheClone } from "./clone.js";
import { type InProcessUse, inProcess } from "./in-process.js";
import { pushRefs } from "./push.js";
import { remote, withHeaders } from "./remote.js";

/**
 * All branches and tags of the remote, in one request: read in this process over smart HTTP
 * (git-refs-http.ts) where the URL is http(s), else by `git ls-remote` — whose three processes (git,
 * `git remote-http`, `git-remote-http`) a listing otherwise waits on. A command's failure is the
 * answer; the app's asks git instead (as its fetch does: git-fetch-http.ts), and a server that did not
 * answer as protocol v2 is asked by git for a while.
 */
export async function listRefs(clone: CacheClone, use: InProcessUse): Promise<RefInfo[]> {
  if (use.refsOnly && !use.fenced && /^https?:\/\//.test(clone.url)) {
    // the clone is made when git first runs in it, or a fetch or a commit needs it: a command whose
    // listing needs nothing else (`rpkg get` with the commits' facts on disk) makes and removes no files
    return withHeaders(clone, (headers) => lsRemoteHttp(clone.url, headers));
  }
  const listed = await inProcess(clone.url, use, () =>
    withHeaders(clone, (headers) => lsRemoteHttp(clone.url, headers)),
  );
  if (listed) return listed;
  const out = (await remote(clone, ["ls-remote", "--heads", "--tags", clone.url])).toString("utf8");
  return out
    .split("\n")
    .filter((l) => l.includes("\t"))
    .map((l) => {
      const [sha, ref] = l.split("\t") as [string, string];
      return { sha, ref };
    });
}

/**
 * The commit the remote's HEAD (its default branch) is at: one `ls-refs` of HEAD alone over smart HTTP
 * where the URL is http(s) (git over HTTP is not counted against GitHub's REST budget), else `git
 * ls-remote URL HEAD`. "missing" where the remote has no such repository (to these credentials), "empty"
 * where it has no commit yet.
 */
export async function headCommit(
  clone: CacheClone,
  use: InProcessUse,
): Promise<{ kind: "at"; sha: string } | { kind: "empty" } | { kind: "missing" }> {
  const found = (refs: readonly RefInfo[]) => {
    const sha = refs.find((r) => r.ref === "HEAD")?.sha;
    return sha ? { kind: "at" as const, sha } : { kind: "empty" as const };
  };
  try {
    const listed = await inProcess(clone.url, use, () =>
      withHeaders(clone, (headers) => lsRefs(clone.url, headers, ["HEAD"])).catch((e: unknown) => {
        if (e instanceof GitCommandError && e.kind === "not-found") return "missing" as const;
        throw e;
      }),
    );
    if (listed === "missing") return { kind: "missing" };
    if (listed) return found(listed);
    const out = (await remote(clone, ["ls-remote", clone.url, "HEAD"])).toString("utf8");
    return found(
      out
        .split("\n")
        .filter((l) => l.includes("\t"))
        .map((l) => ({ sha: l.split("\t")[0] ?? "", ref: l.split("\t")[1] ?? "" })),
    );
  } catch (e) {
    if (e instanceof GitCommandError && e.kind === "not-found") return { kind: "missing" };
    throw e;
  }
}

/** The branch the remote's HEAD names, or undefined when the remote does not say (`pkg get` without a ref). */
export async function defaultBranch(clone: CacheClone): Promise<string | undefined> {
  const out = (await remote(clone, ["ls-remote", "--symref", clone.url, "HEAD"])).toString("utf8");
  return /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(out)?.[1];
}

/**
 * Deletes `ref` (a full name) only while it still points at `sha` (a push with lease): "gone" when it
 * no longer exists, "moved" when it points elsewhere — a compare-and-swap, so of two deletions one
 * deletes and the other learns it was gone.
 */
export async function deleteRefIf(
  clone: CacheClone,
  use: InProcessUse,
  ref: string,
  sha: string,
): Promise<"deleted" | "gone" | "moved"> {
  try {
    await pushRefs(clone, use, [{ ref, to: null, lease: sha }]);
    return "deleted";
  } catch (e) {
    if (!(e instanceof GitCommandError) || e.kind !== "rejected") throw e;
    const now = (await listRefs(clone, use)).find((r) => r.ref === ref);
    return now ? "moved" : "gone";
  }
}

/**
 * Deletes branch `name` by git (a push GitHub does not count against the REST budget, refused by the
 * repository's rules as its REST API would be): "deleted", or "gone" when it was not there; "refused"
 * with git's words when the remote still holds it after refusing (a protected branch).
 */
export async function deleteBranch(
  clone: CacheClone,
  use: InProcessUse,
  name: string,
): Promise<{ kind: "deleted" } | { kind: "gone" } | { kind: "refused"; git: string }> {
  const ref = `refs/heads/${name}`;
  try {
    await pushRefs(clone, use, [{ ref, to: null }]);
    return { kind: "deleted" };
  } catch (e) {
    if (!(e instanceof GitCommandError) || e.kind !== "rejected") throw e;
    const now = await listRefs(clone, use);
    return now.some((r) => r.ref === ref) ? { kind: "refused", git: e.stderr.trim() } : { kind: "gone" };
  }
}
