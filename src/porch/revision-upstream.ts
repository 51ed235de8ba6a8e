import { parseRevisionTag } from "../lifecycle/index.js";
import { PorchError } from "./errors.js";
import { findRevision, nameOf } from "./names.js";
import { openRepository, type PorchEnv, type RepoState, type Repository } from "./repository.js";
import type { Upstream } from "./upstream.js";

/**
 * A porchlight repository as kpt's upstream (what `pkg get` and `pkg update` read: resolve a ref as kpt
 * does, read a directory at a commit), over the same RepoPort and token, so a clone records the
 * repository's clone URL and an upgrade reads it back.
 */
export function repositoryUpstream(repo: Repository): Upstream {
  return {
    repo: repo.conn.info.cloneUrl,
    defaultBranch: async () => repo.conn.info.defaultBranch,
    async resolve(ref, directory) {
      if (/^[0-9a-f]{40}$/.test(ref)) return { commit: ref, resolvedRef: ref };
      const d = directory.replace(/^\/+|\/+$/g, "");
      const refs = await repo.conn.port.listRefs();
      const sha = (name: string) =>
        refs.find((r) => r.ref === `${name}^{}`)?.sha ?? refs.find((r) => r.ref === name)?.sha;
      const candidates: [string, string][] = [
        ...(d ? ([[`refs/tags/${d}/${ref}`, `${d}/${ref}`]] as [string, string][]) : []),
        [`refs/tags/${ref}`, ref],
        [`refs/heads/${ref}`, ref],
      ];
      for (const [full, resolvedRef] of candidates) {
        const commit = sha(full);
        if (commit) return { commit, resolvedRef };
      }
      throw new PorchError(
        "bad-request",
        `${repo.full} has no branch or tag ${ref}${d ? ` (nor ${d}/${ref})` : ""}`,
      );
    },
    async read(commit, directory) {
      return (await repo.conn.port.readTree(commit, directory.replace(/^\/+|\/+$/g, ""))).tree;
    },
    close: async () => {},
  };
}

/**
 * Where a clone's SOURCE revision lives: `OWNER/REPO:NAME` names it anywhere; a bare NAME is looked up
 * in the target repository, then (when its first part is another repository's name, as in
 * `blueprints.app.v1`) in that repository of the same owner.
 */
export async function locateSourceRevision(
  env: PorchEnv,
  target: Repository,
  targetState: RepoState,
  source: string,
): Promise<{ repo: Repository; state: RepoState; rev: ReturnType<typeof findRevision> }> {
  const colon = source.indexOf(":");
  if (colon > 0) {
    const repo = await openRepository(env, source.slice(0, colon), "clone");
    const state = await repo.load();
    return { repo, state, rev: findRevision(repo, state, source.slice(colon + 1)) };
  }
  const first = source.split(".")[0] ?? "";
  if (first === target.name || !source.includes(".") || source.includes("/")) {
    return { repo: target, state: targetState, rev: findRevision(target, targetState, source) };
  }
  const owner = target.full.split("/")[0] as string;
  const repo = await openRepository(
    env,
    env.registrations?.has(first) ? first : `${owner}/${first}`,
    "clone",
  );
  const state = await repo.load();
  return { repo, state, rev: findRevision(repo, state, source) };
}

/**
 * The name of the published revision that tag `tag` of `near`'s GitHub repository is, as Porch names it:
 * by the namespace's registration covering the tag's package (the longest directory holding it), else
 * by the repository itself; undefined when no revision has that tag.
 */
export async function revisionNameOfTag(
  env: PorchEnv,
  near: Repository,
  tag: string,
): Promise<string | undefined> {
  const parsed = parseRevisionTag(tag);
  if (!parsed.ok) return undefined;
  const path = parsed.value.package;
  const covering = [...(env.registrations ?? [])]
    .filter(
      ([, r]) =>
        r.full.toLowerCase() === near.full.toLowerCase() &&
        (r.directory === "" || path.startsWith(`${r.directory}/`)),
    )
    .sort(([, a], [, b]) => b.directory.length - a.directory.length)[0];
  const repo = covering
    ? await openRepository(env, covering[0], "upgrade")
    : near.directory === ""
      ? near
      : await openRepository(env, near.full, "upgrade");
  const state = await repo.load();
  const rev = state.revisions.find((r) => r.ref === `refs/tags/${tag}`);
  return rev && nameOf(repo, rev);
}
