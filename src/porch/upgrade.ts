import { isDigest, sourceKind } from "../kpt/source-ref.js";
import type { FileTree } from "../kpt/tree.js";
import { formatRevisionTag, indexRefs, parseRevisionTag } from "../lifecycle/index.js";
import { isStrategy, mergePackage, type UpdateStrategy, upstreamOf } from "../merge/index.js";
import { SourceError } from "../sources/errors.js";
import { checkLocation } from "../sources/location.js";
import { createDraft, newDraftBranch } from "./drafts.js";
import { type FetchEnv, upstreamFailure, withinEgress } from "./egress.js";
import { PorchError } from "./errors.js";
import { nameOf, refusePlaceholder } from "./names.js";
import { revisionOf } from "./open.js";
import { openRepository, type PorchEnv, type Repository } from "./repository.js";
import { repositoryUpstream, revisionNameOfTag } from "./revision-upstream.js";
import type { OpEnv } from "./steps.js";
import { openUpstream } from "./upstream.js";
import { sameServerRepository } from "./upstream-lock.js";

/** A strategy the upgrade does not know, refused in porchctl's words. */
export function checkStrategy(strategy: string | undefined): UpdateStrategy | undefined {
  if (strategy === undefined || isStrategy(strategy)) return strategy;
  throw new PorchError(
    "bad-request",
    `invalid strategy "${strategy}"; must be one of: [resource-merge fast-forward force-delete-replace copy-merge]`,
  );
}

/** What `upgrade` makes: a new draft of a downstream revision, merged to a newer upstream revision. */
export interface UpgradeArgs {
  /** The downstream's repository: its registered name or OWNER/REPO, or one already opened. */
  repository: string | Repository;
  /** The downstream revision as the caller named it (published, or a draft as it is now). */
  name: string;
  workspace: string;
  /** The upstream revision to upgrade to (default: its latest); -1 names its `.main` placeholder, refused. */
  revision?: number | undefined;
  /** For a package cloned from an OCI image or a tarball: the tag, digest or tarball URL to upgrade to. */
  ref?: string | undefined;
  /** Over the Kptfile's updateStrategy (default resource-merge). */
  strategy?: string | undefined;
}

/**
 * A flag that does not apply to the downstream's upstream (a revision for an OCI image, a ref for a
 * revision): the command line's usage error.
 */
const misapplied = (message: string) =>
  new PorchError("bad-request", message, undefined, undefined, { usage: true });

/**
 * Upgrades a downstream revision as Porch's upgrade task does: a new draft (branch
 * drafts/PACKAGE/WORKSPACE) of its files 3-way merged with kpt's merge from the upstream revision it was
 * cloned from (or last upgraded to) to `revision` (default: the upstream's latest). A package cloned
 * from an OCI image or a tarball is merged to what its source holds now (or `ref`), and one already there
 * gets no draft. A merge with conflicts pushes nothing and lists them. Answers the new revision's name,
 * undefined when it was up to date.
 */
export async function upgrade(
  env: OpEnv & FetchEnv,
  args: UpgradeArgs,
): Promise<{ from: string; name: string | undefined }> {
  try {
    return await upgradeRevision(env, args);
  } catch (e) {
    throw upstreamFailure(e);
  }
}

async function upgradeRevision(
  env: OpEnv & FetchEnv,
  args: UpgradeArgs,
): Promise<{ from: string; name: string | undefined }> {
  const strategy = checkStrategy(args.strategy);
  const { name, workspace, revision } = args;
  if (revision !== undefined && revision < -1)
    throw new PorchError("bad-request", "revision must be positive (and not main)");
  const { repo, state, rev } = await revisionOf(env, args.repository, "upgrade", name);
  refusePlaceholder("source revision", repo, rev);
  // Porch's upgrade task takes any revision as the local one, a draft too: the new draft is made from
  // its files as they are now.
  const branch = newDraftBranch(repo, state, rev.package, workspace);
  const dir = repo.packageDir(rev.package);
  const from = nameOf(repo, rev);
  const created = nameOf(repo, { package: rev.package, workspace });
  const step = env.progress.step(`Upgrading ${from}`);
  const { tree: local } = await repo.conn.port.readTree(rev.sha, dir);
  const up = upstreamOf(local, `${dir} (${name})`);
  if (sourceKind(up.repo)) {
    if (revision !== undefined)
      throw misapplied(
        `${name} follows ${up.repo}, which has no package revisions: name a tag, digest or tarball URL with --ref`,
      );
    const result = await upgradeFromSource(env, { name, dir, local, up, ref: args.ref, strategy });
    if (!result) {
      step.done("up to date");
      return { from, name: undefined };
    }
    await createDraft(repo, state, {
      branch,
      pkg: rev.package,
      tree: result.tree,
      message: `Upgrade ${rev.package} to ${result.label} (${result.commit.slice(0, 19)})`,
    });
    step.done(result.commit.slice(0, 19));
    return { from, name: created };
  }
  if (args.ref !== undefined)
    throw misapplied("--ref applies to a package cloned from an OCI image or a tarball");
  const upstream = await upstreamRepository(env, repo, up.repo, name);
  const upstreamPkg = up.directory.replace(/^\/+|\/+$/g, "");
  if (revision === -1) refuseMainTarget(upstream, upstreamPkg);
  const target = targetTag(upstream, upstreamPkg, revision, await upstream.conn.port.listRefs());
  const source = repositoryUpstream(upstream);
  const { commit, resolvedRef } = await source.resolve(target, up.directory);
  const updated = await source.read(commit, up.directory);
  const original = up.lockCommit ? await source.read(up.lockCommit, up.directory) : new Map();
  const recorded = strategy ?? up.strategy ?? "resource-merge";
  const result = mergePackage({
    original,
    updated,
    local,
    strategy: isStrategy(recorded) ? recorded : "resource-merge",
    lock: { repo: up.repo, directory: up.directory, ref: target, resolvedRef, commit },
  });
  refuseConflicts(result, { name, dir, target });
  // Porch's upgrade task: the upstream revisions it merged between, by name, and the local one
  const [oldName, newName] = await Promise.all([
    up.ref ? revisionNameOfTag(env, upstream, up.ref) : undefined,
    revisionNameOfTag(env, upstream, target),
  ]);
  await createDraft(repo, state, {
    branch,
    pkg: rev.package,
    tree: result.tree,
    message: `Upgrade ${rev.package} to ${upstream.full} ${target} (${commit.slice(0, 12)})`,
    task: {
      type: "upgrade",
      upgrade: {
        oldUpstreamRef: { name: oldName ?? "" },
        newUpstreamRef: { name: newName ?? "" },
        localPackageRevisionRef: { name: from },
        strategy: isStrategy(recorded) ? recorded : "resource-merge",
      },
    },
  });
  step.done(target);
  return { from, name: created };
}

/** A merge with conflicts pushes nothing: the conflicts, listed, with what to do. */
function refuseConflicts(
  result: ReturnType<typeof mergePackage>,
  at: { name: string; dir: string; target: string },
): void {
  if (result.conflicts.length === 0) return;
  const list = result.conflicts.map((c) => `  ${at.dir}/${c.file}:${c.lines[0]}-${c.lines[1]}: ${c.message}`);
  throw new PorchError(
    "bad-request",
    `upgrading ${at.name} to ${at.target} conflicts with its local changes; nothing was pushed:\n${list.join("\n")}\nResolve them in a draft (\`porchlight rpkg copy\`, then \`pull\`/\`push\`) and try again`,
  );
}

/**
 * A package cloned from an OCI image or a tarball: the source resolved again (or at `ref`), 3-way merged
 * against the digest the Kptfile is locked to, as \`pkg update\` does. Undefined when it resolves to the
 * locked digest: nothing to upgrade.
 */
async function upgradeFromSource(
  env: FetchEnv,
  input: {
    name: string;
    dir: string;
    local: FileTree;
    up: ReturnType<typeof upstreamOf>;
    ref: string | undefined;
    /** --strategy, over the Kptfile's own. */
    strategy: string | undefined;
  },
): Promise<{ tree: FileTree; commit: string; label: string } | undefined> {
  const { up, name, dir } = input;
  const ref = input.ref ?? up.ref;
  // the Kptfile's upstream and --ref are the caller's words: judged before anything connects to them
  const policy = env.upstreams.egress;
  const egress = { policy, field: `${dir}/Kptfile upstream`, report: env.upstreams.report };
  const source = await withinEgress(async () => {
    if (input.ref && /^https?:/i.test(input.ref)) await checkLocation(policy, input.ref, "--ref");
    return openUpstream(up.repo, { env: env.upstreams.env, egress });
  });
  try {
    let resolved: { commit: string; resolvedRef: string };
    let updated: FileTree;
    let original: FileTree;
    try {
      resolved = await source.resolve(ref, up.directory);
      if (resolved.commit === up.lockCommit) return undefined;
      updated = await source.read(resolved.commit, up.directory);
      original = up.lockCommit ? await source.read(up.lockCommit, up.directory) : new Map();
    } catch (e) {
      if (e instanceof SourceError)
        throw new PorchError("bad-request", `upgrading ${name} from ${up.repo}: ${e.message}`);
      throw e;
    }
    const recorded = input.strategy ?? up.strategy ?? "resource-merge";
    const kind = sourceKind(up.repo);
    const label =
      kind === "oci" ? `${up.repo}${isDigest(ref) ? "@" : ":"}${ref || "latest"}` : resolved.resolvedRef;
    const result = mergePackage({
      original,
      updated,
      local: input.local,
      strategy: isStrategy(recorded) ? recorded : "resource-merge",
      lock: {
        repo: up.repo,
        directory: up.directory,
        ref: kind === "oci" ? ref || "latest" : isDigest(ref) ? ref : "",
        resolvedRef: resolved.resolvedRef,
        commit: resolved.commit,
      },
    });
    refuseConflicts(result, { name, dir, target: label });
    return { tree: result.tree, commit: resolved.commit, label };
  } finally {
    await source.close();
  }
}

/** The porchlight repository an upstream URL names, reached with the same token and API. */
async function upstreamRepository(
  env: PorchEnv,
  repo: Repository,
  url: string,
  name: string,
): Promise<Repository> {
  if (url === repo.conn.info.cloneUrl) return repo;
  const full = sameServerRepository(url, repo.conn.info.cloneUrl);
  if (!full) {
    throw new PorchError(
      "bad-request",
      `${name} was cloned from ${url}, which is not a repository on this server; rpkg upgrade follows package revisions of GitHub repositories: update it with \`porchlight pkg update\` instead`,
    );
  }
  return openRepository(env, full, "upgrade");
}

/**
 * `--revision=-1`: the upstream package's `.main` revision, a placeholder Porch never upgrades to —
 * porchctl's words, then the upgrade task's, naming it.
 */
function refuseMainTarget(upstream: Repository, pkg: string): never {
  const name = nameOf(upstream, { package: pkg, workspace: upstream.baseBranch });
  throw new PorchError(
    "bad-request",
    `revision must be positive (and not main): target upstream revision may not be the placeholder package revision ${upstream.name}/${name}`,
    `--revision names a published revision of ${pkg} (1, 2, …); leave it out for the latest`,
  );
}

/** The upstream tag to upgrade to: `<package>/v<N>`, or the package's latest. */
function targetTag(
  upstream: Repository,
  pkg: string,
  wanted: number | undefined,
  refs: Parameters<typeof indexRefs>[0],
): string {
  let latest = 0;
  for (const tag of indexRefs(refs).tags.keys()) {
    const t = parseRevisionTag(tag);
    if (t.ok && t.value.package === pkg) {
      if (wanted !== undefined && t.value.revision === wanted) return tag;
      latest = Math.max(latest, t.value.revision);
    }
  }
  if (wanted !== undefined) {
    throw new PorchError(
      "bad-request",
      `revision ${wanted} does not exist for package ${pkg} in ${upstream.full}${latest ? ` (its latest is v${latest})` : ""}`,
    );
  }
  if (latest === 0)
    throw new PorchError("bad-request", `${pkg} has no published revision in ${upstream.full} to upgrade to`);
  return formatRevisionTag({ package: pkg, revision: latest });
}
