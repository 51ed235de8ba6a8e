import { isDigest, sourceKind } from "../../kpt/source-ref.js";
import type { FileTree } from "../../kpt/tree.js";
import { formatRevisionTag, indexRefs, parseRevisionTag } from "../../lifecycle/index.js";
import { isStrategy, mergePackage, upstreamOf } from "../../merge/index.js";
import { createDraft, newDraftBranch } from "../../porch/drafts.js";
import { withinEgress } from "../../porch/egress.js";
import { PorchError } from "../../porch/errors.js";
import { nameOf, refusePlaceholder } from "../../porch/names.js";
import { openRepository, type Repository } from "../../porch/repository.js";
import { repositoryUpstream, revisionNameOfTag } from "../../porch/revision-upstream.js";
import { openUpstream } from "../../porch/upstream.js";
import { sameServerRepository } from "../../porch/upstream-lock.js";
import { SourceError } from "../../sources/errors.js";
import { checkLocation } from "../../sources/location.js";
import { UsageError } from "../io.js";
import { intFlag } from "./args.js";
import { discoverUpgrades } from "./discover.js";
import { rpkgEgress } from "./egress.js";
import type { RpkgEnv } from "./env.js";
import { openRevision, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg upgrade PACKAGE_REV_NAME --workspace=W [--revision=N | --ref=REF] --repository=OWNER/REPO

Create a new draft (branch drafts/PACKAGE/W) of a downstream package revision (published, or a draft
as it is now, as Porch's upgrade task takes either), updated to revision N
of its upstream package (default: the latest) with kpt's 3-way merge: upstream changes since the
revision it was cloned from (or last upgraded to) merged into the downstream package's own changes.
A merge with conflicts pushes nothing and lists them.

A package cloned from an OCI image or a tarball (docs/sources.md) is upgraded to what its source holds
now: the tag it was cloned from, resolved again (a floating tag such as :stable moves), or --ref: another
tag or sha256:… digest of the image, or another tarball URL (https://…/pkg-v2.tar.gz[#sha256=…]).

With --discover=upstream [PACKAGE_REV_NAME...], list which newer upstream revisions each downstream
revision could be upgraded to; with --discover=downstream [UPSTREAM_REV_NAME...], list the downstream
revisions each upstream revision would upgrade (porchctl's tables). Nothing is changed.

Flags:
  --workspace W   workspace of the new revision (required)
  --discover D    upstream or downstream: list available upgrades instead of making one
  --strategy S    resource-merge, fast-forward, force-delete-replace or copy-merge (default: the
                  Kptfile's updateStrategy, else resource-merge)
  --revision N    the upstream revision to upgrade to (default: its latest; -1, the upstream's .main
                  placeholder, is refused as Porch refuses it)
  --ref REF       for an OCI or tarball upstream: the tag, digest or tarball URL to upgrade to
`;

export const upgradeVerb: Verb = {
  name: "upgrade",
  summary: "New draft of a downstream package, 3-way merged to a newer upstream revision.",
  usage: USAGE,
  flags: { workspace: "value", revision: "value", ref: "value", discover: "value", strategy: "value" },
  async run(args, env) {
    const discover = args.values.get("discover");
    if (discover !== undefined) return discoverUpgrades(discover, args, env);
    const strategy = args.values.get("strategy");
    if (strategy !== undefined && !isStrategy(strategy))
      throw new PorchError(
        "bad-request",
        `invalid strategy "${strategy}"; must be one of: [resource-merge fast-forward force-delete-replace copy-merge]`,
      );
    const [name, ...extra] = args.positional;
    if (!name || extra.length > 0)
      throw new UsageError(`rpkg upgrade takes one PACKAGE_REV_NAME\n\n${USAGE}`);
    const workspace = args.values.get("workspace");
    if (!workspace) throw new UsageError(`rpkg upgrade needs --workspace\n\n${USAGE}`);
    // -1 names the upstream's `.main`, a placeholder (refused below, naming it); other negatives, porchctl's refusal
    const placeholderTarget = /^-[0-9]+$/.test(args.values.get("revision") ?? "");
    if (placeholderTarget && args.values.get("revision") !== "-1")
      throw new PorchError("bad-request", "revision must be positive (and not main)");
    const wanted = placeholderTarget ? undefined : intFlag(args, "revision", USAGE);
    const { repo, state, rev } = await openRevision("upgrade", args, env, name);
    refusePlaceholder("source revision", repo, rev);
    // Porch's upgrade task takes any revision as the local one, a draft too: the new draft is made from
    // its files as they are now.
    const branch = newDraftBranch(repo, state, rev.package, workspace);
    const dir = repo.packageDir(rev.package);
    const step = env.progress.step(`Upgrading ${nameOf(repo, rev)}`);
    const { tree: local } = await repo.conn.port.readTree(rev.sha, dir);
    const up = upstreamOf(local, `${dir} (${name})`);
    if (sourceKind(up.repo)) {
      if (args.values.has("revision")) {
        throw new UsageError(
          `${name} follows ${up.repo}, which has no package revisions: name a tag, digest or tarball URL with --ref\n\n${USAGE}`,
        );
      }
      const result = await upgradeFromSource(env, {
        name,
        dir,
        local,
        up,
        ref: args.values.get("ref"),
        strategy,
      });
      if (!result) {
        step.done("up to date");
        env.io.stdout(`${nameOf(repo, rev)} is up to date with its upstream; no draft created\n`);
        return 0;
      }
      await createDraft(repo, state, {
        branch,
        pkg: rev.package,
        tree: result.tree,
        message: `Upgrade ${rev.package} to ${result.label} (${result.commit.slice(0, 19)})`,
      });
      step.done(result.commit.slice(0, 19));
      env.io.stdout(
        `${nameOf(repo, rev)} upgraded to ${nameOf(repo, { package: rev.package, workspace })}\n`,
      );
      return 0;
    }
    if (args.values.has("ref")) {
      throw new UsageError(`--ref applies to a package cloned from an OCI image or a tarball\n\n${USAGE}`);
    }
    const upstream = await upstreamRepository(env, repo, up.repo, name);
    const upstreamPkg = up.directory.replace(/^\/+|\/+$/g, "");
    if (placeholderTarget) refuseMainTarget(upstream, upstreamPkg);
    const target = targetTag(upstream, upstreamPkg, wanted, await upstream.conn.port.listRefs());
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
          localPackageRevisionRef: { name: nameOf(repo, rev) },
          strategy: isStrategy(recorded) ? recorded : "resource-merge",
        },
      },
    });
    step.done(target);
    env.io.stdout(`${nameOf(repo, rev)} upgraded to ${nameOf(repo, { package: rev.package, workspace })}\n`);
    return 0;
  },
};

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
  env: RpkgEnv,
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
  const policy = rpkgEgress(env);
  const egress = { policy, field: `${dir}/Kptfile upstream` };
  const source = await withinEgress(async () => {
    if (input.ref && /^https?:/i.test(input.ref)) await checkLocation(policy, input.ref, "--ref");
    return openUpstream(up.repo, { env: env.io.env, egress });
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
  env: RpkgEnv,
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
