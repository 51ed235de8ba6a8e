import { basename } from "node:path";
import { KPTFILE_NAME, readKptfileStruct } from "../kpt/kptfile.js";
import { generatePackageContext } from "../kpt/package-context.js";
import { parseSource, sourceKind, sourceRepo } from "../kpt/source-ref.js";
import type { FileTree } from "../kpt/tree.js";
import type { PorchTask } from "../lifecycle/kpt-trailer.js";
import { clonedPackage, type UpdateStrategy } from "../merge/index.js";
import { formatKptfile } from "../merge/kptfile.js";
import { UPSTREAM_IDENTIFIER } from "../merge/match.js";
import { createDraft, newDraftBranch } from "./drafts.js";
import { type FetchEnv, upstreamFailure, withinEgress } from "./egress.js";
import { PorchError } from "./errors.js";
import { nameOf, refNameOf, refusePlaceholder } from "./names.js";
import { repositoryOf } from "./open.js";
import { renderAsPorch } from "./render.js";
import { openRepository, type RepoState, type Repository } from "./repository.js";
import { locateSourceRevision, repositoryUpstream } from "./revision-upstream.js";
import type { OpEnv } from "./steps.js";
import { openUpstream, type Upstream } from "./upstream.js";
import { sameServerRepository } from "./upstream-lock.js";

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

/** What `clone` makes: a new package's first draft, cloned from `source`. */
export interface CloneArgs {
  /** The repository of the new package: its registered name or OWNER/REPO, or one already opened. */
  repository: string | Repository;
  /**
   * A package revision (as Porch names it, or OWNER/REPO:NAME for another repository), a git repository's
   * address, an OCI image `oci://…` or a tarball `https://…/PKG.tar.gz` (docs/sources.md).
   */
  source: string;
  package: string;
  /** Default v1. */
  workspace?: string | undefined;
  /** A git source's directory and branch, tag or commit (ignored for a package revision, as porchctl does). */
  directory?: string | undefined;
  ref?: string | undefined;
  /** The update strategy the Kptfile records; when none is given, Porch records none (kpt's resource-merge). */
  strategy?: UpdateStrategy | undefined;
}

/**
 * Creates a new package as Porch's clone task does, as `kpt pkg get` would: a draft whose Kptfile records
 * the upstream and the commit it was cloned at (upstreamLock), so an upgrade can merge newer upstream
 * revisions into it. What SOURCE names keeps to the egress policy (env.upstreams). A package that exists
 * is refused (its next revision is a copy). Answers the new revision's name.
 */
export async function clone(env: OpEnv & FetchEnv, args: CloneArgs): Promise<{ name: string }> {
  const { source, package: target } = args;
  const workspace = args.workspace ?? "v1";
  const repo = await repositoryOf(env, args.repository, "clone");
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
  const from = await openCloneSource(env, repo, state, args);
  try {
    const commit = await createClone(repo, state, from, {
      source,
      target,
      branch,
      strategy: args.strategy ?? "resource-merge",
      strategyGiven: args.strategy !== undefined,
    });
    step.done(commit.startsWith("sha256:") ? commit.slice(0, 14) : commit.slice(0, 7));
  } catch (e) {
    step.fail();
    throw upstreamFailure(e);
  } finally {
    await from.upstream.close();
  }
  return { name: nameOf(repo, { package: target, workspace }) };
}

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
  env: OpEnv & FetchEnv,
  repo: Repository,
  state: RepoState,
  { source, directory: dirGiven, ref: refGiven }: CloneArgs,
): Promise<CloneSource> {
  const egress = { policy: env.upstreams.egress, field: "SOURCE", report: env.upstreams.report };
  if (sourceKind(source)) {
    if (dirGiven !== undefined || refGiven !== undefined)
      throw new PorchError(
        "bad-request",
        "an OCI or tarball SOURCE names its directory and version itself (//DIR, :TAG, @sha256:…)",
      );
    return withinEgress(async () => {
      const src = parseSource(source, "pkg get");
      const ref = src.kind === "oci" ? (src.digest ?? src.tag) : src.digest;
      const upstream = await openUpstream(sourceRepo(src), { env: env.upstreams.env, egress });
      return { upstream, directory: src.directory, ref, ociOrTarball: true };
    });
  }
  if (isGitSource(source)) {
    // kpt's and porchctl's REPO.git/DIR@REF, where --directory and --ref are not given
    const inline = /^(.*?\.git)(\/[^@]*)?(?:@(.+))?$/.exec(source);
    const flags = dirGiven !== undefined || refGiven !== undefined;
    const [repoUrl, dirPart, refPart] =
      inline && !flags ? [inline[1] ?? source, inline[2], inline[3]] : [source];
    const directory = `/${(dirGiven ?? dirPart ?? "").replace(/^\/+|\/+$/g, "")}`;
    const ref = refGiven ?? refPart;
    // a repository on this server (GitHub, the forge) is read with the caller's token, as rpkg reads any
    const here = sameServerRepository(repoUrl, repo.conn.info.cloneUrl);
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
