import { basename } from "node:path";
import { KPTFILE_NAME, readKptfileStruct } from "../../kpt/kptfile.js";
import { generatePackageContext } from "../../kpt/package-context.js";
import { sourceKind } from "../../kpt/source-ref.js";
import type { FileTree } from "../../kpt/tree.js";
import type { PorchTask } from "../../lifecycle/kpt-trailer.js";
import { clonedPackage, isStrategy, STRATEGIES, type UpdateStrategy } from "../../merge/index.js";
import { formatKptfile } from "../../merge/kptfile.js";
import { UPSTREAM_IDENTIFIER } from "../../merge/match.js";
import { createDraft, newDraftBranch } from "../../porch/drafts.js";
import { PorchError } from "../../porch/errors.js";
import { nameOf, refNameOf, refusePlaceholder } from "../../porch/names.js";
import { renderAsPorch } from "../../porch/render.js";
import { openRepository, type RepoState, type Repository } from "../../porch/repository.js";
import { sameServerRepository } from "../../porch/upstream-lock.js";
import { UsageError } from "../io.js";
import { parseRepoSpec } from "../pkg/repospec.js";
import { openUpstream, type Upstream } from "../pkg/upstream.js";
import type { ParsedArgs } from "./args.js";
import { rpkgEgress, withinEgress } from "./egress.js";
import type { RpkgEnv } from "./env.js";
import { locateSourceRevision, repositoryUpstream } from "./upstream.js";
import { openVerbRepository, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg clone SOURCE TARGET_PACKAGE --repository=OWNER/REPO [flags]

Create a new package TARGET_PACKAGE as a draft (branch drafts/TARGET_PACKAGE/W) cloned from SOURCE, as
kpt pkg get does: the Kptfile records the upstream and the commit (upstreamLock), so \`rpkg upgrade\`
can later merge newer upstream revisions into it.

SOURCE is a package revision (as \`rpkg get\` names it, or OWNER/REPO:NAME for another repository),
a git repository's https URL with --directory and --ref, an OCI image
oci://REGISTRY/REPO[//DIR][:TAG|@sha256:…] or a tarball https://…/PKG.tar.gz[//DIR][#sha256=…]
(docs/sources.md). What SOURCE names keeps to the egress policy: https to a public address, this
GitHub, or what PORCHLIGHT_EGRESS_ALLOW allows; no local path or file://.

Flags:
  --workspace W      workspace of the new revision (default v1)
  --directory DIR    the package's directory in a git SOURCE (ignored for a package revision, as porchctl does)
  --ref REF          branch, tag or commit of a git SOURCE (default: its default branch; ignored for a revision)
  --strategy S       update strategy recorded for upgrades: ${STRATEGIES.join(", ")} (default resource-merge)
`;

/**
 * A git address, as opposed to a package revision name: a URL, a path, `….git`, and what git reads as an
 * address besides (`TRANSPORT::ADDRESS`, ssh's `USER@HOST:PATH`, text starting with `-`), so that the
 * egress policy, not a failed look-up of a revision, answers those.
 */
export function isGitSource(source: string): boolean {
  return (
    /^[a-z][a-z0-9+.-]*:(\/\/|:)/i.test(source) ||
    source.endsWith(".git") ||
    /^\.{0,2}\//.test(source) ||
    /^[^/:@]+@[^/:]+:/.test(source) ||
    source.startsWith("-")
  );
}

export const cloneVerb: Verb = {
  name: "clone",
  summary: "Create a new package cloned from a package revision or a git repository.",
  usage: USAGE,
  // --secret-ref: porchctl's upstream credentials, accepted and not used (the caller's token reads)
  flags: { workspace: "value", directory: "value", ref: "value", strategy: "value", "secret-ref": "value" },
  async run(args, env) {
    const [source, target, ...extra] = args.positional;
    if (!source || !target || extra.length > 0) {
      throw new UsageError(`rpkg clone takes SOURCE and TARGET_PACKAGE\n\n${USAGE}`);
    }
    const strategy = args.values.get("strategy") ?? "resource-merge";
    if (!isStrategy(strategy)) {
      throw new UsageError(`unknown --strategy "${strategy}"; known: ${STRATEGIES.join(", ")}\n\n${USAGE}`);
    }
    const git = isGitSource(source);
    if (!git && !sourceKind(source) && (args.values.has("directory") || args.values.has("ref"))) {
      // porchctl ignores them for a package revision, which names its directory and ref itself
      if (env.verbose)
        env.io.stderr(`--directory and --ref apply to a git SOURCE only: ignored for ${source}\n`);
      args.values.delete("directory");
      args.values.delete("ref");
    }
    const workspace = args.values.get("workspace") ?? "v1";
    const repo = await openVerbRepository("clone", args, env);
    const state = await repo.load();
    const branch = newDraftBranch(repo, state, target, workspace);
    if (
      state.revisions.some((r) => r.package === target) ||
      (await repo.conn.port.getFile(`${repo.packageDir(target)}/Kptfile`, repo.baseBranch)) !== undefined
    ) {
      throw new PorchError(
        "already-exists",
        `Internal error occurred: \`clone\` cannot create a new revision for package "${target}" that already exists in repo "${repo.name}"; make subsequent revisions using \`copy\``,
        `clone into a new package name, or upgrade it with \`porchlight rpkg upgrade\` (${repo.full})`,
      );
    }

    const step = env.progress.step(`Cloning ${source} into ${branch}`);
    const from = await openCloneSource(args, env, repo, state, source);
    try {
      const commit = await createClone(repo, state, from, {
        source,
        target,
        branch,
        strategy,
        strategyGiven: args.values.has("strategy"),
      });
      step.done(commit.startsWith("sha256:") ? commit.slice(0, 14) : commit.slice(0, 7));
    } catch (e) {
      step.fail();
      throw e;
    } finally {
      await from.upstream.close();
    }
    env.io.stdout(`${nameOf(repo, { package: target, workspace })} created\n`);
    return 0;
  },
};

/** Where a clone reads its files, and how Porch's clone task names it. */
interface CloneSource {
  upstream: Upstream;
  directory: string;
  /** The branch, tag or commit asked for; the upstream's default branch when none is. */
  ref: string | undefined;
  /** A registered revision's name, for Porch's clone task; git's address names the others. */
  sourceName?: string;
  /** An OCI image or a tarball, which Porch does not clone. */
  ociOrTarball: boolean;
}

/**
 * The upstream SOURCE names, opened: an OCI image or tarball, a git repository (this server's read with
 * the caller's token), or a package revision of this or another repository.
 */
async function openCloneSource(
  args: ParsedArgs,
  env: RpkgEnv,
  repo: Repository,
  state: RepoState,
  source: string,
): Promise<CloneSource> {
  const other = sourceKind(source) ? parseRepoSpec(source, env.io.cwd) : undefined;
  if (other) {
    if (args.values.has("directory") || args.values.has("ref")) {
      throw new UsageError(
        `an OCI or tarball SOURCE names its directory and version itself (//DIR, :TAG, @sha256:…)\n\n${USAGE}`,
      );
    }
    const egress = { policy: rpkgEgress(env), field: "SOURCE" };
    const upstream = await withinEgress(() => openUpstream(other.repo, { env: env.io.env, egress }));
    return { upstream, directory: other.directory, ref: other.ref, ociOrTarball: true };
  }
  if (isGitSource(source)) {
    // kpt's and porchctl's REPO.git/DIR@REF, where --directory and --ref are not given
    const inline = /^(.*?\.git)(\/[^@]*)?(?:@(.+))?$/.exec(source);
    const flags = args.values.has("directory") || args.values.has("ref");
    const [repoUrl, dirPart, refPart] =
      inline && !flags ? [inline[1] ?? source, inline[2], inline[3]] : [source];
    const directory = `/${(args.values.get("directory") ?? dirPart ?? "").replace(/^\/+|\/+$/g, "")}`;
    const ref = args.values.get("ref") ?? refPart;
    // a repository on this server (GitHub, the forge) is read with the caller's token, as rpkg reads any
    const here = sameServerRepository(repoUrl, repo.conn.info.cloneUrl);
    const egress = { policy: rpkgEgress(env), field: "SOURCE" };
    const upstream = here
      ? repositoryUpstream(await openRepository(env, here, "clone"))
      : await withinEgress(() => openUpstream(repoUrl, { egress }));
    return { upstream, directory, ref, ociOrTarball: false };
  }
  const found = await locateSourceRevision(env, repo, state, source);
  refusePlaceholder("upstream revision", found.repo, found.rev);
  return {
    upstream: repositoryUpstream(found.repo),
    directory: `/${found.repo.packageDir(found.rev.package)}`,
    ref: refNameOf(found.rev),
    sourceName: nameOf(found.repo, found.rev),
    ociOrTarball: false,
  };
}

/**
 * Reads the source's package, makes it the clone Porch makes (its Kptfile, the package context in a
 * deployment repository, rendered) and commits it as the new draft; the upstream commit read.
 */
async function createClone(
  repo: Repository,
  state: RepoState,
  from: CloneSource,
  to: { source: string; target: string; branch: string; strategy: UpdateStrategy; strategyGiven: boolean },
): Promise<string> {
  const { upstream, directory, sourceName, ociOrTarball } = from;
  const { source, target } = to;
  const ref = from.ref ?? (await upstream.defaultBranch());
  const { commit, resolvedRef } = await upstream.resolve(ref, directory);
  const files = await upstream.read(commit, directory);
  if (files.size === 0) {
    throw new PorchError(
      "bad-request",
      `${upstream.repo} has no directory ${directory} at ${ref}; check --directory and --ref`,
    );
  }
  const cloned = clonedPackage(
    files,
    { repo: upstream.repo, directory, ref, resolvedRef, commit },
    basename(target),
    to.strategy,
  );
  // Porch's clone into a deployment repository generates the package context, as --for-deployment.
  // a git or revision source is cloned as Porch clones it; OCI and tarball sources, which Porch
  // does not clone, keep porchlight's upstream annotations (docs/sources.md)
  if (!ociOrTarball) porchKptfile(cloned, basename(target), to.strategyGiven);
  const tree = repo.config.deployment ? generatePackageContext(cloned) : cloned;
  // Porch renders the clone; a failing render (a function of the upstream's) leaves the files as
  // they came, with the failure in the Kptfile's Rendered condition
  const rendered = await renderAsPorch(tree, repo.config.functions.runtimes);
  await createDraft(repo, state, {
    branch: to.branch,
    pkg: target,
    tree: rendered.tree,
    message: `Clone ${ociOrTarball ? source : `${upstream.repo}${directory}@${ref}`} (${commit.startsWith("sha256:") ? commit.slice(0, 19) : commit.slice(0, 12)}) as ${target}`,
    task: cloneTask(source, sourceName, { repo: upstream.repo, ref, directory }),
  });
  return commit;
}

/**
 * Porch's clone task for the source: a registered revision by its name, a git repository by address,
 * ref and directory, an OCI image by reference; none for a tarball, which Porch cannot clone.
 */
function cloneTask(
  source: string,
  sourceName: string | undefined,
  git: { repo: string; ref: string; directory: string },
): PorchTask | undefined {
  if (sourceName) return { type: "clone", clone: { upstreamRef: { upstreamRef: { name: sourceName } } } };
  const kind = sourceKind(source);
  if (kind === "oci")
    return { type: "clone", clone: { upstreamRef: { type: "oci", oci: { image: source } } } };
  if (kind) return undefined;
  const directory = git.directory.replace(/^\/+/, "");
  return { type: "clone", clone: { upstreamRef: { type: "git", git: { ...git, directory } } } };
}

/**
 * The Kptfile of a clone as Porch writes it, which differs from kpt pkg get's: the upstream directory
 * as given (`basens`, not `/basens`), no `updateStrategy` unless --strategy names one, and the
 * Kptfile's own `internal.kpt.dev/upstream-identifier` (Porch's kpt annotates every resource of the
 * clone, the Kptfile too).
 */
function porchKptfile(tree: FileTree, name: string, strategyGiven: boolean): void {
  const bytes = tree.get(KPTFILE_NAME);
  if (!bytes) return;
  const kf = readKptfileStruct(bytes.toString("utf8"), KPTFILE_NAME);
  for (const part of [kf.upstream, kf.upstreamLock]) {
    const git = part?.git;
    if (git && typeof git.directory === "string") git.directory = git.directory.replace(/^\/+/, "");
  }
  if (!strategyGiven && kf.upstream) delete kf.upstream.updateStrategy;
  kf.metadata = {
    ...kf.metadata,
    annotations: { ...kf.metadata?.annotations, [UPSTREAM_IDENTIFIER]: `kpt.dev|Kptfile|default|${name}` },
  };
  tree.set(KPTFILE_NAME, Buffer.from(formatKptfile(kf)));
}
