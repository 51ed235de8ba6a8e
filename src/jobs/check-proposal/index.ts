import { highestRevision } from "../../catalog/index.js";
import type { CheckRunState, FileEntry, PullRequest } from "../../github/port.js";
import type { FileTree } from "../../kpt/tree.js";
import { nextRevision } from "../../lifecycle/discover.js";
import { parsePackageBranch } from "../../lifecycle/package-branch.js";
import type { RefInfo } from "../../lifecycle/refs.js";
import { parseDeletionProposal } from "../../lifecycle/revision-deletion.js";
import { formatSummary, SUMMARY_MARKER } from "../../lifecycle/summary/format.js";
import { summaryNeedsUpdate } from "../../lifecycle/summary/parse.js";
import type { PackageChangeSummary } from "../../lifecycle/summary/types.js";
import { renderPlan } from "../adopted-trust.js";
import { type CatalogState, readCatalog } from "../catalog/read.js";
import { changeScope, completedIn, reportCheck } from "../check-report.js";
import { CHECK, fromFork, type JobContext, jobLimits } from "../context.js";
import {
  type JobUsage,
  type LimitExceeded,
  limitMessage,
  NO_USAGE,
  resourceAllowance,
  resourcesExceeded,
  sizeExceeded,
} from "../limits.js";
import { renderDraft } from "../render-draft/index.js";
import { finishedRender, reportRender } from "../render-draft/report.js";
import { conflictMarkerCheck } from "./conflict-markers.js";
import { forkLinksCheck, packageLinksCheck } from "./fork-links.js";
import { runGuardrails } from "./guardrails.js";
import { combineChecks, type PackageCheck } from "./package-check.js";
import { type ProposalPackage, proposalPackages } from "./proposal-packages.js";
import { markSkippedHeads } from "./skipped-heads.js";
import { summarizePackage } from "./summarize.js";
import { verifyRender } from "./verify-render.js";

export type CheckProposalOutcome =
  | { kind: "skipped"; reason: string }
  | { kind: "checked"; headSha: string; render: boolean; guardrails: boolean; packages: string[] };

/**
 * A proposal opened or updated → `porchlight/render` (committed files equal the rendered output; on a
 * draft's head its render's check, see renderOfItsDraft),
 * `porchlight/guardrails` (repository validators, and no package file holding conflict markers) and
 * the one summary comment, edited in place.
 * Level-triggered: when both checks completed on the head and the summary describes it, nothing to do.
 */
export async function checkProposal(
  ctx: JobContext,
  input: {
    pull: number;
    force?: boolean;
    /** The draft's render was run by this job already (renderFirst): the head it left is checked. */
    rendered?: boolean;
    /**
     * The head the proposal was opened with (its `opened` event): while it is still the head, no head of
     * the proposal lies below it, and the commits there (the draft's, before it was proposed) are not
     * marked as passed over.
     */
    openedAt?: string;
    /** The pull request as the event that queued the check carried it: trusted where seenCurrent says. */
    seen?: PullRequest;
  },
): Promise<CheckProposalOutcome> {
  const refsNow = input.seen && ctx.port.listRefs();
  const pr = (await seenCurrent(ctx, input.seen, refsNow)) ?? (await ctx.port.getPull(input.pull));
  if (pr.state !== "open") return { kind: "skipped", reason: `#${pr.number} is not open` };
  if (pr.baseRef !== ctx.baseBranch) {
    return { kind: "skipped", reason: `#${pr.number} targets ${pr.baseRef}, not ${ctx.baseBranch}` };
  }
  // A published revision's deletion proposal changes no file (its diff against the base branch is only
  // what the base branch moved since the tag): nothing to render or guard, and no check is required.
  if (parseDeletionProposal(pr))
    return { kind: "skipped", reason: `#${pr.number} proposes deleting a published revision's tag` };
  const headRuns = await ctx.port.listCheckRuns(pr.headSha, [CHECK.render, CHECK.guardrails]);
  if (!input.force && (await upToDate(ctx, pr, headRuns))) {
    return { kind: "skipped", reason: `#${pr.number} is already checked at ${pr.headSha.slice(0, 7)}` };
  }
  const listing = refsNow ?? ctx.port.listRefs();
  const [head, base, changed, refs] = await Promise.all([
    ctx.port.listFiles(pr.headSha),
    // The base branch's head as the refs name it: a commit the cache clone mostly holds, asked no more.
    listing.then((all) =>
      ctx.port.listFiles(
        all.find((r) => r.ref === `refs/heads/${ctx.baseBranch}`)?.sha ?? `refs/heads/${ctx.baseBranch}`,
      ),
    ),
    ctx.port.changedPaths(pr.baseSha, pr.headSha),
    listing,
  ]);
  const isFork = fromFork(ctx, pr);
  const packages = proposalPackages({
    // A fork's branch name is the fork author's choice: it names no package here.
    pr: isFork ? { headRef: "", labels: pr.labels } : pr,
    changed,
    basePaths: base.files.map((f) => f.path),
    headPaths: head.files.map((f) => f.path),
    packageRoot: ctx.config.packageRoot,
  });
  if (packages.length === 0) return { kind: "skipped", reason: `#${pr.number} touches no package` };
  if (!input.rendered && rendersFirst(pr, isFork, packages, headRuns)) {
    const rendered = await renderDraft(ctx, { branch: pr.headRef });
    // The head rendered (or moved: the render's commit is the proposal's head now): checked as it is.
    if (rendered.kind !== "skipped") return checkProposal(ctx, { ...input, rendered: true });
  }
  // Done before the head's own checks (a job that dies in between leaves the head unchecked, so it runs
  // again); asked while the head's packages are checked, so the heads passed over show it at once and
  // the head's checks wait for no more than its writes.
  const marking = input.openedAt === pr.headSha ? Promise.resolve() : markSkipped(ctx, pr);
  const draftRender = renderOfItsDraft(pr, isFork, packages, headRuns);
  const checks = await checkPackages(
    ctx,
    { pr, head, base, refs, isFork, changed, draftRendered: draftRender !== undefined },
    packages,
  ).finally(() => marking);
  const render = combineChecks("Render", checks.renders);
  const guardrails = combineChecks("Guardrails", checks.guards);
  const where = packages.map((p) => p.path).join(" ");
  const [over] = checks.overLimit;
  if (draftRender && over && draftRender.conclusion !== "failure") {
    // The draft's render passed (fan-out rendered what it pushed; the limit was lowered since; the
    // package came within the management repository's limits, not this one's): guardrails say render
    // tells why the package was not checked, so render says it, as the draft render says a package over
    // a limit — and marks the head rendered, so no sweep renders it again to say it passed.
    await reportRender(ctx.port, {
      pkg: over.pkg,
      sha: pr.headSha,
      findings: [],
      verdict: { kind: "over-limit", limit: over.exceeded.name, error: over.message },
    });
  } else if (!draftRender) {
    await reportCheck(ctx.port, {
      name: CHECK.render,
      headSha: pr.headSha,
      ...render,
      seeAll: `Run \`porchlight fn render\` on ${where} in a clone of this branch to see them all.`,
    });
  }
  await reportCheck(ctx.port, {
    name: CHECK.guardrails,
    headSha: pr.headSha,
    ...guardrails,
    seeAll: `Run the guardrails with \`porchlight fn eval\` on ${where} in a clone of this branch to see them all.`,
  });
  await ctx.port.ensureComment(
    pr.number,
    SUMMARY_MARKER,
    formatSummary({ headSha: pr.headSha, packages: checks.summaries }),
  );
  return {
    kind: "checked",
    headSha: pr.headSha,
    render: (over ? render.conclusion : (draftRender?.conclusion ?? render.conclusion)) === "success",
    guardrails: guardrails.conclusion === "success",
    packages: packages.map((p) => p.path),
  };
}

/**
 * Whether the head's `porchlight/render` is the draft render's, which then stands for the proposal: the
 * proposal comes from a draft (or fan-out) branch of this repository and changes that draft's package
 * alone, and the draft render finished on this head (its mark; a render that held functions back does
 * not count). The same renderer on the same files says the same; writing it again replaced the draft's
 * run (GitHub shows the latest) with one re-annotating every info result of the package at every head,
 * ten writes for 500 notices, and without the draft's mark, so the next sweep rendered the head again.
 */
function renderOfItsDraft(
  pr: PullRequest,
  isFork: boolean,
  packages: readonly ProposalPackage[],
  headRuns: readonly CheckRunState[],
): CheckRunState | undefined {
  return isItsDraft(pr, isFork, packages) ? finishedRender(headRuns) : undefined;
}

/** The proposal is its draft's alone: from a draft (or fan-out) branch of this repository, changing that package. */
function isItsDraft(pr: PullRequest, isFork: boolean, packages: readonly ProposalPackage[]): boolean {
  const [only, ...more] = packages;
  if (isFork || !only || more.length > 0 || only.deletion) return false;
  const branch = parsePackageBranch(pr.headRef);
  return branch.ok && branch.value.package === only.path;
}

/**
 * Whether the draft's render runs first, in this job: the proposal is its draft's alone and no render
 * reached the head yet (the push's render job comes after this one: GitHub sends a push's events in no
 * set order). Checked as it stands, the head got a render check saying its files differ from the
 * rendered output, guardrails and a summary, all replaced moments later when the render committed on
 * top of it; rendered first, the check is the draft render's and the rest go to the head it leaves.
 */
function rendersFirst(
  pr: PullRequest,
  isFork: boolean,
  packages: readonly ProposalPackage[],
  headRuns: readonly CheckRunState[],
): boolean {
  return isItsDraft(pr, isFork, packages) && !headRuns.some((r) => r.name === CHECK.render);
}

/** What a proposal's packages are checked on: its head and base trees' files, the refs, whether a fork's. */
interface ProposalTrees {
  pr: PullRequest;
  head: { sha: string; files: FileEntry[] };
  base: { sha: string; files: FileEntry[] };
  refs: RefInfo[];
  isFork: boolean;
  /** The paths the proposal changes against its base (repository-relative). */
  changed: readonly string[];
  /** The head's render check is its draft render's (renderOfItsDraft): the render is not verified again. */
  draftRendered: boolean;
}

/** Each package's render and guardrail checks and its summary, in the proposal's order. */
interface PackageChecks {
  renders: PackageCheck[];
  guards: PackageCheck[];
  summaries: PackageChangeSummary[];
  /** The packages over a limit, in the proposal's order: their render check says so. */
  overLimit: { pkg: string; exceeded: LimitExceeded; message: string }[];
}

/**
 * Every package of the proposal checked in turn, within the job's limits: what a package may cost is
 * checked on the git trees' sizes before a file is read, and its resources against what the packages
 * before it left. A package over a limit fails render naming it, guardrails point there, and the summary
 * skips it.
 */
async function checkPackages(
  ctx: JobContext,
  trees: ProposalTrees,
  packages: readonly ProposalPackage[],
): Promise<PackageChecks> {
  const limits = jobLimits(ctx);
  const used: JobUsage = { ...NO_USAGE };
  // The numbers the catalog remembers (deleted revisions' among them): read once, only where a summary needs one.
  let catalog: Promise<CatalogState> | undefined;
  const reserved = async (pkg: string) => {
    catalog ??= readCatalog(ctx.port, trees.refs);
    return highestRevision((await catalog).catalog, pkg);
  };
  const checks: PackageChecks = { renders: [], guards: [], summaries: [], overLimit: [] };
  const overLimit = (pkg: string, exceeded: LimitExceeded): void => {
    const message = limitMessage(pkg, exceeded, limits);
    checks.overLimit.push({ pkg, exceeded, message });
    checks.renders.push({ pkg, ok: false, line: message, annotations: [] });
    checks.guards.push({
      pkg,
      ok: false,
      line: `\`${pkg}\`: not checked, ${CHECK.render} says why`,
      annotations: [],
    });
    ctx.log.info({ pull: trees.pr.number, pkg, ...exceeded }, "package over a limit");
    checks.summaries.push(notCompared(pkg, exceeded.name));
  };
  for (const p of packages) {
    const headFiles = filesBelow(trees.head.files, p.path);
    const baseFiles = filesBelow(trees.base.files, p.path);
    const oversized =
      sizeExceeded(p.deletion ? [] : headFiles, limits.limits, used) ??
      sizeExceeded(baseFiles, limits.limits);
    if (oversized) {
      overLimit(p.path, oversized);
      continue;
    }
    used.files += headFiles.length;
    used.bytes += headFiles.reduce((n, f) => n + f.size, 0);
    const allowance = resourceAllowance(limits.limits, used);
    const checked = await checkPackage(ctx, trees, p, allowance);
    if ("tooManyResources" in checked) {
      overLimit(p.path, resourcesExceeded(checked.tooManyResources, allowance, limits.limits, used));
      continue;
    }
    used.resources += checked.render.resources ?? 0;
    checks.renders.push(checked.render);
    checks.guards.push(...checked.guards);
    const base = baseFiles.length === 0 ? undefined : await ctx.port.readTree(trees.base.sha, p.path);
    checks.summaries.push(
      summarizePackage({
        package: p.path,
        base: base?.tree ?? new Map(),
        head: checked.tree,
        ...(base?.blobs ? { baseBlobs: base.blobs } : {}),
        ...(checked.blobs ? { headBlobs: checked.blobs } : {}),
        revision: nextRevision(p.path, trees.refs, await reserved(p.path)),
        deletion: p.deletion,
      }),
    );
  }
  return checks;
}

/**
 * One package's render check (its fork links for a fork) and guardrail checks (conflict markers
 * among them), on the head's tree; or the resources it holds past the allowance, unchecked.
 */
async function checkPackage(
  ctx: JobContext,
  trees: ProposalTrees,
  p: ProposalPackage,
  allowance: ReturnType<typeof resourceAllowance>,
): Promise<
  | { tooManyResources: NonNullable<PackageCheck["tooManyResources"]> }
  | { render: PackageCheck; guards: PackageCheck[]; tree: FileTree; blobs?: ReadonlyMap<string, string> }
> {
  const { pr, head, isFork } = trees;
  const read = p.deletion ? undefined : await ctx.port.readTree(head.sha, p.path);
  const tree = read?.tree ?? new Map<string, Buffer>();
  const blobs = read?.blobs;
  const symlinks = read?.symlinks ?? [];
  const common = { pkg: p.path, tree, deletion: p.deletion, isFork };
  const links = isFork ? forkLinksCheck(p.path, symlinks) : packageLinksCheck(p.path, symlinks);
  // A fork's own branch runs builtins only (verifyRender refuses the rest); an adopted fork's
  // content on a draft here holds the rest back until a maintainer vouches for it.
  const plan =
    isFork || p.deletion ? undefined : await renderPlan(ctx, { tree, head: pr.headSha, branch: pr.headRef });
  const render =
    links ??
    // The draft render's check stands on the head: its verdict is not worked out again.
    (trees.draftRendered
      ? { pkg: p.path, ok: true, line: "", annotations: [] }
      : await verifyRender(ctx, {
          ...common,
          maxResources: allowance.max,
          ...(plan ? { plan } : {}),
          ...infoScopeOf(p.path, trees.changed, tree),
          ...(blobs ? { blobIds: blobs } : {}),
        }));
  if (render.tooManyResources) return { tooManyResources: render.tooManyResources };
  // Guardrail policies come from the base branch for a fork: its author cannot loosen them.
  const readConfig = (path: string) => ctx.port.getFile(path, isFork ? trees.base.sha : head.sha);
  const guards = [
    links ?? (await runGuardrails(ctx, { ...common, readConfig, holdBack: plan?.holdBack ?? [] })),
  ];
  const markers = p.deletion ? undefined : conflictMarkerCheck(p.path, tree);
  if (markers) guards.push(markers);
  return { render, guards, tree, ...(blobs ? { blobs } : {}) };
}

/**
 * The files of package `pkg` whose info results the render check annotates: those the proposal changes
 * (errors and warnings on every file); none given where every file's are.
 */
function infoScopeOf(
  pkg: string,
  changed: readonly string[],
  tree: FileTree,
): { infoScope?: ReadonlySet<string> } {
  const prefix = `${pkg}/`;
  const infoScope = changeScope(
    changed.filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length)),
    tree,
  );
  return infoScope ? { infoScope } : {};
}

/** A package left out of the summary because it is over a limit. */
function notCompared(pkg: string, limit: string): PackageChangeSummary {
  return {
    package: pkg,
    resources: [],
    images: [],
    rbac: [],
    namespaces: { added: [], removed: [] },
    notSummarized: `the package is over the \`${limit}\` limit (${CHECK.render} says by how much)`,
  };
}

/** The files below package directory `dir`, paths relative to it. */
function filesBelow(files: readonly FileEntry[], dir: string): FileEntry[] {
  const prefix = `${dir}/`;
  return files
    .filter((f) => f.path.startsWith(prefix))
    .map((f) => ({ ...f, path: f.path.slice(prefix.length) }));
}

/**
 * The pull request as its event carried it, where checking it as it was then writes what checking it
 * now would: open and unmerged then, from a draft or fan-out branch of this repository (a fork's head
 * is not this repository's branch; a revision's deletion is read, its label lands after it opens), and
 * that branch still at the head the event named (asked of git, which GitHub does not count): a push
 * since, or the branch deleted (published, rejected), reads the pull request. The checks are written
 * on that head, whatever became of the pull request; what git cannot say — closed since, its branch
 * kept (rejected) — its `closed` event says: a check still waiting in the app's queue is replaced by one
 * that reads the pull request (handlers.ts, closedWhileChecking); in a fleet's queue, or once running, it
 * is as a check that read the pull request an instant before it closed: its summary may land on the
 * closed proposal.
 */
async function seenCurrent(
  ctx: JobContext,
  seen: PullRequest | undefined,
  refs: Promise<RefInfo[]> | undefined,
): Promise<PullRequest | undefined> {
  if (!seen || !refs || seen.state !== "open" || seen.merged || fromFork(ctx, seen)) return undefined;
  if (!parsePackageBranch(seen.headRef).ok) return undefined;
  const branch = (await refs).find((r) => r.ref === `refs/heads/${seen.headRef}`);
  return branch?.sha === seen.headSha ? seen : undefined;
}

/** markSkippedHeads, whose failure (a read, a write) never keeps the head from its checks: logged only. */
async function markSkipped(ctx: JobContext, pr: PullRequest): Promise<void> {
  try {
    await markSkippedHeads(ctx, pr);
  } catch (e) {
    ctx.log.warn({ err: e, pull: pr.number }, "could not mark the skipped heads");
  }
}

async function upToDate(
  ctx: JobContext,
  pr: PullRequest,
  headRuns: readonly CheckRunState[],
): Promise<boolean> {
  if (!completedIn(headRuns, [CHECK.render, CHECK.guardrails])) return false;
  const summary = await ctx.port.findComment(pr.number, SUMMARY_MARKER);
  return !summaryNeedsUpdate(summary?.body, pr.headSha);
}
