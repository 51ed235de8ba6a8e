import type { InstallationRepository, PullRequest } from "../../github/port.js";
import { formatVariantBranch } from "../../lifecycle/variant-branch.js";
import {
  DASHBOARD_MARKER,
  type DownstreamPackageState,
  downstreamState,
  isSourceUpstream,
  isVariantFile,
  type LoadedVariant,
  loadVariants,
  type ManagedPackage,
  type ObjectMetadata,
  type PackageVariant,
  parseDownstreamsMarker,
  type RepositoryInfo,
  revisionMetadata,
  type SelectableObject,
  type SourceIndex,
  selectableObjects,
  type TerminatingVariant,
  type UpstreamIndex,
  type VariantProblem,
  withoutTerminating,
} from "../../variants/index.js";
import { DASHBOARD_LABEL, type FanoutContext } from "./context.js";
import { type Elsewhere, listSelectedAccounts, reachElsewhere } from "./elsewhere.js";
import { mapLimit } from "./limit.js";
import { findManaged, readOpenPull } from "./managed.js";
import { rebaseDue } from "./rebase.js";
import { registeredMetadata, registrationFiles, registryOf } from "./registrations.js";
import { parseRetarget, type Retarget, retargeted } from "./retarget.js";
import { type RepoSnapshot, readSnapshot, shortName } from "./snapshot.js";
import { resolveSourceUpstreams } from "./source-upstream.js";
import { type UpgradeStep, upgradeStep } from "./upgrade-step.js";
import { refusalProblems, refusedUpstreams } from "./upstream-authority.js";
import { readUpstreamState, type UpstreamRepoState } from "./upstream-state.js";

/** Repositories read at once (reads only; writes are serialized by the executor). */
const READ_CONCURRENCY = 8;

/** Everything one fan-out run decides from, read once. */
export interface FanoutState {
  management: RepoSnapshot;
  /** The variant documents being deleted: left out of `variants`, their finalizers released once acted on. */
  terminating: TerminatingVariant[];
  /** The valid variants, repositories named by their short name, retargets applied. */
  variants: LoadedVariant[];
  problems: VariantProblem[];
  upstream: UpstreamIndex;
  upstreamRepos: Map<string, UpstreamRepoState>;
  /** The digests of the OCI images variants follow, as this run resolved them. */
  sources: SourceIndex;
  downstream: Record<string, DownstreamPackageState>;
  managed: ManagedPackage[];
  /** Every repository read, by short name. */
  snapshots: Map<string, RepoSnapshot>;
  /** The open fan-out pull request of each variant (and of each managed package's variant). */
  pulls: Map<string, PullRequest>;
  retargets: Map<string, Retarget>;
  /** Channel followers more than one step from the head: the upgrade path to it, for the pull request. */
  steps: Map<string, UpgradeStep>;
  /** The variants as declared (repositories by short name), for the dashboard. */
  declared: PackageVariant[];
  /**
   * Repositories of the app's other installations (`owner/name`) holding or about to hold a downstream of
   * these variants: the dashboard's hidden marker, read by the next run before it plans.
   */
  downstreamsElsewhere: string[];
  /** The open dashboard issue as this run found it, when the run read it (across installations, rollout). */
  dashboard?: { number: number; body: string; labels: string[] };
}

/** Variant files as loadVariants reads them. */
type VariantFiles = { path: string; text: string }[];

/**
 * The repositories a run knows of and has read, growing as it reaches beyond the management
 * repository's installation. The installation's own are named by short name, another installation's by
 * `owner/name` (two accounts may both have a `deploy-dev`).
 */
interface Repositories {
  /** Every repository known: the installation's unarchived ones, then those reached elsewhere. */
  all: InstallationRepository[];
  /** The installation's own, by full name. */
  own: ReadonlySet<string>;
  /** Every repository read, by `keyOf`. */
  snapshots: Map<string, RepoSnapshot>;
  keyOf(r: InstallationRepository): string;
  find(name: string): InstallationRepository | undefined;
  infoOf(r: InstallationRepository): RepositoryInfo;
  /** The labels and annotations of the namespace's registrations, by full name (filled once read). */
  registered: Map<string, Pick<RepositoryInfo, "labels" | "annotations">>;
  /** The labels and annotations of its package revisions (`rpkg annotate`), by revision name. */
  revisions: Map<string, ObjectMetadata>;
}

/**
 * Reads what fan-out needs for the variants of one management repository: its variant files, every
 * repository of the installation and those of the app's other installations that variants name as
 * `owner/name` (refs, base-branch files, open fan-out pull requests), the upstream
 * revisions (tags) and channels (catalog). Pure reads; nothing is written.
 */
export async function readFanoutState(ctx: FanoutContext, managementName: string): Promise<FanoutState> {
  const repos = installationRepositories(
    (await ctx.installation.listRepositories()).filter((r) => !r.archived),
  );
  const managementRepo = repos.find(managementName);
  if (!managementRepo) throw new Error(`${managementName} is not a repository of this installation`);
  await mapLimit(repos.all, READ_CONCURRENCY, async (r) => {
    repos.snapshots.set(repos.keyOf(r), await readSnapshot(r, ctx.installation.repo(r)));
  });
  const management = repos.snapshots.get(repos.keyOf(managementRepo)) as RepoSnapshot;
  const registrationProblems = readRegistrations(repos, managementRepo.id.owner);
  // a variant being deleted (its deletionTimestamp set through Porch's API) is a variant removed
  const { files, terminating } = withoutTerminating(
    [...management.tree]
      .filter(([path]) => isVariantFile(path))
      .map(([path, bytes]) => ({ path, text: bytes.toString("utf8") })),
  );
  const beyond = await reachBeyondInstallation(ctx, repos, managementRepo, management, files);
  const upstreams = await readUpstreams(repos, files, beyond.context, management);
  const { upstreamRepos, loaded } = upstreams;
  const problems = [...registrationProblems, ...upstreams.problems];
  const read = await readVariants(ctx, repos, loaded.variants, upstreamRepos);
  const managed = await findManaged({
    snapshots: repos.snapshots,
    managementUrl: managementRepo.cloneUrl,
    variants: read.variants,
    botEmail: ctx.bot.author.email,
    pulls: read.pulls,
  });

  // What the next run reads again: every repository of another installation a variant names or a managed
  // package lives in, and those remembered that could not be reached now for a reason that may pass.
  const downstreamsElsewhere = [
    ...read.declared.map((v) => v.spec.downstream.repo),
    ...managed.map((m) => m.repo),
    ...beyond.remembered.filter((r) => beyond.context.unreachable[r]?.retry),
  ].filter((r) => r.includes("/"));
  const upstream: Record<string, UpstreamRepoState["packages"]> = {};
  for (const [name, u] of upstreamRepos) upstream[name] = u.packages;
  const sources = await resolveSourceUpstreams(
    read.variants.filter((lv) => !lv.variant.spec.paused).map((lv) => lv.variant.spec.upstream),
    ctx.registry,
  );
  return {
    management,
    terminating,
    variants: read.variants,
    problems,
    upstream,
    sources,
    upstreamRepos,
    downstream: read.downstream,
    managed,
    snapshots: repos.snapshots,
    pulls: read.pulls,
    retargets: read.retargets,
    steps: read.steps,
    declared: read.declared,
    downstreamsElsewhere,
    ...(beyond.board ? { dashboard: beyond.board } : {}),
  };
}

/** The management repository's installation's repositories, none read yet. */
function installationRepositories(listed: InstallationRepository[]): Repositories {
  const own = new Set(listed.map((r) => r.fullName));
  const keyOf = (r: InstallationRepository) => (own.has(r.fullName) ? shortName(r) : r.fullName);
  const all = [...listed];
  const registered = new Map<string, Pick<RepositoryInfo, "labels" | "annotations">>();
  return {
    all,
    own,
    snapshots: new Map(),
    keyOf,
    find: (name) => all.find((r) => r.fullName === name || keyOf(r) === name),
    infoOf: (r) => ({
      name: keyOf(r),
      fullName: r.fullName,
      topics: r.topics,
      ...registered.get(r.fullName),
    }),
    registered,
    revisions: new Map(),
  };
}

/**
 * The registrations of the management repository's namespace (its owner's `.porchlight` repository, read
 * with the others), whose labels and annotations label selectors and expressions see, into `repos`.
 */
function readRegistrations(repos: Repositories, owner: string): VariantProblem[] {
  const registry = registryOf(repos.all, owner);
  const snap = registry && repos.snapshots.get(repos.keyOf(registry));
  if (!registry || !snap) return [];
  for (const [name, m] of revisionMetadata(
    [...snap.tree].map(([path, bytes]) => [path, bytes.toString("utf8")] as const),
  ))
    repos.revisions.set(name, m);
  const found = registeredMetadata(
    repos.all.map(repos.infoOf),
    registrationFiles(snap.tree),
    registry.fullName,
  );
  for (const [name, m] of found.byFullName) repos.registered.set(name, m);
  return found.problems;
}

/** What loadVariants is given once every repository variants name has been looked for. */
interface VariantsContext {
  repositories: RepositoryInfo[];
  managementRepo: string;
  /** What a set's objectSelector selects from: the management repository's objects. */
  objects: SelectableObject[];
  /** The management repository's owner: the namespace of its variants, as Porch's. */
  namespace: string;
  revisions: ReadonlyMap<string, ObjectMetadata>;
  unreachable: Elsewhere["unreachable"];
  unreachableAccounts: Record<string, string>;
}

/**
 * The repositories outside the management repository's installation that variants reach, read into
 * `repos`: those of the accounts sets select in by owner (`other/cluster-*`: the app's installation
 * there, listed; only the repositories a variant ends up naming are read), those named as `owner/name`
 * (in another installation of the app?), and those the dashboard's marker remembers. Also the dashboard
 * issue, read once for both that read it: its marker names the repositories of other installations where
 * the last run found downstreams (read again, so that a variant removed since still has its downstream
 * there proposed for deletion), and its labels steer a rollout (gateByRollout).
 */
async function reachBeyondInstallation(
  ctx: FanoutContext,
  repos: Repositories,
  managementRepo: InstallationRepository,
  management: RepoSnapshot,
  files: VariantFiles,
): Promise<{
  context: VariantsContext;
  /** The other installations' repositories the dashboard's marker named, not named again by a variant. */
  remembered: string[];
  board: { number: number; body: string; labels: string[] } | undefined;
}> {
  const own = repos.own;
  const infos = repos.all.map(repos.infoOf);
  const managementKey = repos.keyOf(managementRepo);
  const objects = selectableObjects(
    [...management.tree].map(([path, bytes]) => [path, bytes.toString("utf8")] as const),
  );
  const namespace = managementRepo.id.owner;
  const revisions = repos.revisions;
  const first = loadVariants(files, {
    repositories: infos,
    managementRepo: managementKey,
    objects,
    namespace,
    revisions,
  });
  const ownAccount = managementRepo.id.owner.toLowerCase();
  const selected = await listSelectedAccounts(
    ctx.installationFor,
    first.selectedAccounts.filter((a) => a !== ownAccount),
  );
  const candidates = selected.repositories.filter((c) => !own.has(c.repository.fullName));
  infos.push(...candidates.map((c) => repos.infoOf(c.repository)));

  const named = loadVariants(files, {
    repositories: infos,
    managementRepo: managementKey,
    objects,
    namespace,
    revisions,
  });
  const used = new Set(
    named.variants.flatMap(({ variant: { spec } }) =>
      isSourceUpstream(spec.upstream) ? [spec.downstream.repo] : [spec.upstream.repo, spec.downstream.repo],
    ),
  );
  const picked = candidates.filter((c) => used.has(c.repository.fullName));
  infos.splice(
    infos.length - candidates.length,
    candidates.length,
    ...picked.map((c) => repos.infoOf(c.repository)),
  );
  const board =
    ctx.installationFor || ctx.rollout
      ? await management.port.findIssue({ marker: DASHBOARD_MARKER, label: DASHBOARD_LABEL })
      : undefined;
  const covered = new Set([
    ...own,
    ...picked.map((c) => c.repository.fullName),
    ...named.unknownRepositories,
  ]);
  const remembered = parseDownstreamsMarker(board?.body).filter((r) => !covered.has(r));
  const elsewhere = await reachElsewhere(ctx.installationFor, [...named.unknownRepositories, ...remembered]);
  const reached = [...picked, ...elsewhere.repositories];
  await mapLimit(reached, READ_CONCURRENCY, async ({ repository, port }) => {
    repos.snapshots.set(repository.fullName, await readSnapshot(repository, port));
  });
  for (const { repository } of elsewhere.repositories) infos.push(repos.infoOf(repository));
  for (const { repository } of reached) repos.all.push(repository);
  return {
    context: {
      repositories: infos,
      managementRepo: managementKey,
      objects,
      namespace,
      revisions,
      unreachable: elsewhere.unreachable,
      unreachableAccounts: selected.unreachable,
    },
    remembered,
    board,
  };
}

/**
 * The upstream repositories' packages and catalogs, and the variants checked against them: pass one
 * finds the upstream repositories; pass two checks upstream packages against their tags. A catalog
 * that cannot be read is a problem of its own.
 */
async function readUpstreams(
  repos: Repositories,
  files: VariantFiles,
  context: VariantsContext,
  management: RepoSnapshot,
): Promise<{
  upstreamRepos: Map<string, UpstreamRepoState>;
  loaded: ReturnType<typeof loadVariants>;
  problems: VariantProblem[];
}> {
  const upstreamNames = new Set<string>();
  for (const lv of loadVariants(files, context).variants) {
    if (isSourceUpstream(lv.variant.spec.upstream)) continue;
    const repo = repos.find(lv.variant.spec.upstream.repo);
    if (repo) upstreamNames.add(repos.keyOf(repo));
  }
  // an upstream the variant files' writers may not all read is not read for them (upstream-authority.ts)
  const refused = await refusedUpstreams(
    management,
    [...upstreamNames].map((name) => repos.snapshots.get(name) as RepoSnapshot),
  );
  for (const name of [...upstreamNames])
    if (refused.has((repos.snapshots.get(name) as RepoSnapshot).repository.fullName))
      upstreamNames.delete(name);
  const upstreamRepos = new Map<string, UpstreamRepoState>();
  for (const name of upstreamNames) {
    upstreamRepos.set(name, await readUpstreamState(repos.snapshots.get(name) as RepoSnapshot));
  }
  const packages = Object.fromEntries(
    [...upstreamRepos].map(([name, u]) => [name, Object.keys(u.packages)] as const),
  );
  const index = Object.fromEntries([...upstreamRepos].map(([name, u]) => [name, u.packages] as const));
  const all = loadVariants(files, { ...context, packages, upstream: index });
  const problems = [...all.problems];
  const refusedOf = (lv: LoadedVariant) => {
    const up = lv.variant.spec.upstream;
    const repo = isSourceUpstream(up) ? undefined : repos.find(up.repo);
    return repo && refused.get(repo.fullName);
  };
  const loaded = { ...all, variants: all.variants.filter((lv) => !refusedOf(lv)) };
  problems.push(...refusalProblems(all.variants, refusedOf));
  for (const [name, u] of upstreamRepos) {
    if (u.catalog.problem)
      problems.push({
        file: `${name}@porchlight/catalog`,
        line: 1,
        column: 1,
        field: "",
        message: u.catalog.problem,
      });
  }
  return { upstreamRepos, loaded, problems };
}

/** What readVariants finds of each variant, by its name. */
type VariantsRead = Pick<
  FanoutState,
  "variants" | "declared" | "pulls" | "retargets" | "downstream" | "steps"
>;

/**
 * Each valid variant with its repositories named by their key, its open fan-out pull request (and the
 * retarget that pull request carries, applied), its downstream package's state (a rebase due, for a
 * rollout) and, for a channel follower, the upgrade step to the channel's head.
 */
async function readVariants(
  ctx: FanoutContext,
  repos: Repositories,
  loaded: LoadedVariant[],
  upstreamRepos: Map<string, UpstreamRepoState>,
): Promise<VariantsRead> {
  const read: VariantsRead = {
    variants: [],
    declared: [],
    pulls: new Map(),
    retargets: new Map(),
    downstream: {},
    steps: new Map(),
  };
  for (const lv of loaded) {
    const declaredUpstream = lv.variant.spec.upstream;
    const down = repos.find(lv.variant.spec.downstream.repo) as InstallationRepository;
    let variant: PackageVariant = {
      ...lv.variant,
      spec: {
        ...lv.variant.spec,
        upstream: isSourceUpstream(declaredUpstream)
          ? declaredUpstream
          : {
              ...declaredUpstream,
              repo: repos.keyOf(repos.find(declaredUpstream.repo) as InstallationRepository),
            },
        downstream: { ...lv.variant.spec.downstream, repo: repos.keyOf(down) },
      },
    };
    const snap = repos.snapshots.get(repos.keyOf(down)) as RepoSnapshot;
    const name = variant.metadata.name;
    read.declared.push(variant);
    const found = await readOpenPull(
      snap,
      formatVariantBranch({ package: variant.spec.downstream.package, variant: name }),
      ctx.bot.author.email,
    );
    if (found) read.pulls.set(name, found.pr);
    const retarget = found && parseRetarget(found.pr.body);
    if (retarget) {
      read.retargets.set(name, retarget);
      variant = retargeted(variant, retarget);
    }
    const kptfile = snap.tree.get(`${variant.spec.downstream.package}/Kptfile`)?.toString("utf8");
    const state = downstreamState(kptfile, found?.open);
    const rebase =
      found &&
      state.pullRequest &&
      (await rebaseDue(ctx.rollout, variant, snap, found.pr, state.pullRequest));
    if (rebase && state.pullRequest) state.pullRequest.rebase = rebase;
    read.downstream[name] = state;
    const up = variant.spec.upstream;
    const step =
      !isSourceUpstream(up) && up.channel !== undefined
        ? upgradeStep(
            upstreamRepos.get(up.repo)?.catalog.catalog,
            up.package,
            up.channel,
            read.downstream[name]?.lockedRevision,
          )
        : undefined;
    if (step) read.steps.set(name, step);
    read.variants.push({ ...lv, variant });
  }
  return read;
}
