import type { FileTree } from "../../kpt/tree.js";
import { DRAFT_PREFIX } from "../../lifecycle/draft-branch.js";
import { parsePackageBranch } from "../../lifecycle/package-branch.js";
import { contentTrust, renderPlan } from "../adopted-trust.js";
import { packageLinksProblem } from "../check-proposal/fork-links.js";
import { CHECK, type JobContext, jobLimits } from "../context.js";
import { limitMessage, resourceAllowance, resourcesExceeded, sizeExceeded } from "../limits.js";
import { outsidePackageRoot, treesEqual, underPackageRoot } from "../packages.js";
import type { RenderFinding, RenderOptions, RenderResult } from "../renderer.js";
import { infoScope, widenScope } from "./annotation-scope.js";
import { pushRender } from "./push-render.js";
import { type DraftHead, readDraft } from "./read-draft.js";
import { type RenderVerdict, renderDone, reportRefusedName, reportRender } from "./report.js";

export type RenderDraftOutcome =
  | { kind: "skipped"; reason: string }
  | { kind: "failed"; headSha: string; error: string }
  | { kind: "clean"; headSha: string; heldBack?: string[] }
  | { kind: "pushed"; headSha: string; commitSha: string; heldBack?: string[] };

/** What the attempts came to: an outcome, or every push lost its race, the last on `headSha`. */
type Attempts = RenderDraftOutcome | { kind: "raced"; headSha: string; error: string };

/** How often a push that lost a race (non-fast-forward) is retried on the new head. */
const PUSH_ATTEMPTS = 3;

/**
 * Push to a draft branch → render its package. Level-triggered: reads the branch head; if this job
 * already completed `porchlight/render` there (and not forced), there is nothing to do. A failed
 * render reports and pushes nothing; a render that changes files is pushed as one bot commit on top
 * of the head it was rendered from, and a push that lost a race is redone on the new head.
 *
 * Every attempt ends in a check on the head the user pushed: when the bot itself could not finish
 * (GitHub refused the push, a function crashed, the branch kept moving), a failing check says why and
 * that it is retried; such a check does not count as done, so the next sweep renders that head again.
 */
export async function renderDraft(
  ctx: JobContext,
  input: { branch: string; force?: boolean },
): Promise<RenderDraftOutcome> {
  const draft = parsePackageBranch(input.branch);
  if (!draft.ok) {
    if (input.branch.startsWith(DRAFT_PREFIX)) return refuseName(ctx, input.branch, draft.reason);
    return { kind: "skipped", reason: draft.reason };
  }
  const pkg = draft.value.package;
  let seen: string | undefined;
  try {
    const outcome = await renderAttempts(ctx, { ...input, pkg }, (sha) => {
      seen = sha;
    });
    if (outcome.kind !== "raced") return outcome;
    const { headSha, error } = outcome;
    await reportRender(ctx.port, { pkg, sha: headSha, findings: [], verdict: { kind: "incomplete", error } });
    return { kind: "failed", headSha, error };
  } catch (e) {
    if (!seen) throw e;
    const why = e instanceof Error ? e.message : String(e);
    ctx.log.warn({ err: e, branch: input.branch, sha: seen }, "render could not finish");
    const error = `porchlight could not finish rendering ${seen.slice(0, 7)}: ${why}`;
    await reportRender(ctx.port, { pkg, sha: seen, findings: [], verdict: { kind: "incomplete", error } });
    return { kind: "failed", headSha: seen, error };
  }
}

async function renderAttempts(
  ctx: JobContext,
  input: { branch: string; force?: boolean; pkg: string },
  onHead: (sha: string) => void,
): Promise<Attempts> {
  const pkg = input.pkg;
  for (let attempt = 1; ; attempt++) {
    const head = await readDraft(ctx.port, input.branch, pkg);
    if (!head) return { kind: "skipped", reason: `the branch ${input.branch} no longer exists` };
    const stillHeld = async () =>
      !(await contentTrust(ctx, { head: head.sha, branch: input.branch })).trusted;
    if (!input.force && (await renderDone(ctx.port, head.sha, stillHeld))) {
      return { kind: "skipped", reason: `${CHECK.render} already ran on ${head.sha.slice(0, 7)}` };
    }
    onHead(head.sha);
    const refused = await refusedBeforeReading(ctx, { branch: input.branch, pkg, head });
    if (refused) return refused;
    const rendered = await renderHead(ctx, { branch: input.branch, pkg, sha: head.sha });
    if (rendered.kind !== "rendered") return rendered;
    const outcome = await commitRender(ctx, { branch: input.branch, pkg, sha: head.sha, ...rendered });
    if (outcome !== "lost a race") return outcome;
    if (attempt === PUSH_ATTEMPTS)
      return {
        kind: "raced",
        headSha: head.sha,
        error: `the branch ${input.branch} kept moving while porchlight rendered it; push again to retry`,
      };
    ctx.log.info({ branch: input.branch, attempt }, "render push lost a race; rendering the new head");
  }
}

/**
 * A branch under `drafts/` whose name is refused (a workspace that is no DNS label, no workspace): its
 * head gets a failing check naming the rule, once, and the log a line; nothing is rendered.
 */
async function refuseName(ctx: JobContext, branch: string, reason: string): Promise<RenderDraftOutcome> {
  const head = (await ctx.port.listRefs()).find((r) => r.ref === `refs/heads/${branch}`);
  if (!head) return { kind: "skipped", reason: `the branch ${branch} no longer exists` };
  if (await renderDone(ctx.port, head.sha)) return { kind: "skipped", reason };
  ctx.log.info({ branch, sha: head.sha, reason }, "draft name refused");
  await reportRefusedName(ctx.port, { branch, sha: head.sha, reason });
  return { kind: "failed", headSha: head.sha, error: reason };
}

/** A check that failed on the head: reported there, and the outcome saying so. */
async function failOn(
  ctx: JobContext,
  at: { pkg: string; sha: string },
  verdict: Exclude<RenderVerdict, { kind: "rendered" | "incomplete" }>,
  findings: readonly RenderFinding[] = [],
): Promise<RenderDraftOutcome> {
  await reportRender(ctx.port, { pkg: at.pkg, sha: at.sha, findings, verdict });
  return { kind: "failed", headSha: at.sha, error: verdict.error };
}

/**
 * What refuses the draft before a file is read: a package outside the package root, no Kptfile, a
 * package over a size limit (the git tree's sizes tell).
 */
async function refusedBeforeReading(
  ctx: JobContext,
  { branch, pkg, head }: { branch: string; pkg: string; head: DraftHead },
): Promise<RenderDraftOutcome | undefined> {
  const at = { pkg, sha: head.sha };
  if (!underPackageRoot(pkg, ctx.config.packageRoot))
    return failOn(ctx, at, { kind: "refused", error: `${outsidePackageRoot(pkg, ctx.config.packageRoot)}.` });
  if (!head.files.some((f) => f.path === "Kptfile")) {
    const error = `There is no package at \`${pkg}\`: the draft branch has no \`${pkg}/Kptfile\`. Add one (kpt pkg init) or rename the branch.`;
    return failOn(ctx, at, { kind: "refused", error });
  }
  const limits = jobLimits(ctx);
  const oversized = sizeExceeded(head.files, limits.limits);
  if (!oversized) return undefined;
  ctx.log.info({ branch, sha: head.sha, ...oversized }, "package over a limit");
  return failOn(ctx, at, {
    kind: "over-limit",
    limit: oversized.name,
    error: limitMessage(pkg, oversized, limits),
  });
}

interface Rendered {
  kind: "rendered";
  tree: FileTree;
  /** The git blob id of each file of `tree`, where the read told them. */
  blobs: ReadonlyMap<string, string> | undefined;
  result: RenderResult;
  options: RenderOptions;
  heldBack: { heldBack?: string[] };
  /** The files of the package whose info results the head's check annotates (infoScope). */
  scope: () => Promise<ReadonlySet<string> | undefined>;
}

/** The package at the head read and rendered; a render that failed or went over a limit is reported. */
async function renderHead(
  ctx: JobContext,
  { branch, pkg, sha }: { branch: string; pkg: string; sha: string },
): Promise<Rendered | RenderDraftOutcome> {
  const { tree, blobs, symlinks } = await ctx.port.readTree(sha, pkg);
  const links = packageLinksProblem(pkg, symlinks ?? []);
  if (links) return failOn(ctx, { pkg, sha }, { kind: "refused", error: `${links.text}.` });
  // Which files the check annotates asks git about the parent while the render runs (on its thread),
  // so the check is written as soon as the render is done; whether the parent's render is done (a REST
  // read) is asked only of a render with an info result to scope. A failure is the check's to report,
  // where commitRender waits for it.
  const change = ctx.port.parentChange(sha, pkg);
  change.catch(() => {});
  const scope = () => infoScope(ctx.port, { sha, pkg, tree }, change);
  const limits = jobLimits(ctx);
  const allowance = resourceAllowance(limits.limits);
  // An adopted fork's content no maintainer vouched for yet: builtins only, the rest held back.
  const plan = await renderPlan(ctx, { tree, head: sha, branch });
  const options = { runtimes: plan.runtimes, holdBack: plan.holdBack, maxResources: allowance.max };
  const result = await ctx.renderer.render(tree, { ...options, ...(blobs ? { blobIds: blobs } : {}) });
  const heldBack = result.heldBack ? { heldBack: result.heldBack } : {};
  if (result.tooManyResources) {
    const exceeded = resourcesExceeded(result.tooManyResources, allowance, limits.limits);
    ctx.log.info({ branch, sha, ...exceeded }, "package over a limit");
    const error = limitMessage(pkg, exceeded, limits);
    return failOn(ctx, { pkg, sha }, { kind: "over-limit", limit: exceeded.name, error });
  }
  if (!result.ok) {
    const tookTooLong = result.tookTooLong !== undefined;
    ctx.log.info(
      { branch, sha, ...(tookTooLong ? { stoppedAfterMs: result.tookTooLong?.afterMs } : {}) },
      "render failed",
    );
    const error = result.error ?? "the pipeline failed";
    return failOn(
      ctx,
      { pkg, sha },
      { kind: tookTooLong ? "took-too-long" : "failed", error },
      result.findings,
    );
  }
  return { kind: "rendered", tree, blobs, result, options, heldBack, scope };
}

/**
 * A render's result on the head: a check where it changed nothing (or GitHub refused the push), else one
 * bot commit pushed on top of the head and a check on both. "lost a race": the branch moved meanwhile.
 */
async function commitRender(
  ctx: JobContext,
  r: Omit<Rendered, "kind"> & { branch: string; pkg: string; sha: string },
): Promise<RenderDraftOutcome | "lost a race"> {
  const { branch, pkg, sha, tree, result, heldBack } = r;
  // (a render without info results annotates all it has: no scope is asked for)
  const scope = result.findings.some((f) => f.severity === "info") ? await r.scope() : undefined;
  const infoOn = scope ? { infoScope: scope } : {};
  const clean = async (): Promise<RenderDraftOutcome> => {
    const verdict: RenderVerdict = { kind: "rendered", commit: { kind: "as-is" }, ...heldBack };
    await reportRender(ctx.port, { pkg, sha, findings: result.findings, verdict, ...infoOn });
    return { kind: "clean", headSha: sha, ...heldBack };
  };
  if (treesEqual(result.tree, tree)) return clean();
  // The files the render left as they were keep their blob ids (only the files it wrote are hashed),
  // for the commit and for the renderer's render of it.
  const blobIds = keptBlobIds(r.blobs, tree, result.tree);
  // The bot's commit is the next push's input: the renderer keeps what renders it, with those blob ids.
  const options = blobIds ? { ...r.options, blobIds } : r.options;
  // Its render, where the functions declare it (nothing run): what its check says. Else the first
  // render's results, and the commit rendered after the checks are written. Asked of the render thread
  // while git pushes the commit (a push that then fails leaves the renderer holding a tree that renders
  // to itself, which costs only its room).
  const settling = ctx.renderer.settled?.(result.tree, options).catch((e: unknown) => {
    ctx.log.warn({ err: e, branch, from: sha }, "answering the render of the bot's commit failed");
    return undefined;
  });
  const pushed = await pushRender(ctx.port, {
    branch,
    pkg,
    headSha: sha,
    tree: result.tree,
    ...(blobIds ? { blobIds } : {}),
    author: ctx.bot.author,
  });
  if (!pushed.ok) {
    await settling;
    return pushed.reason === "non-fast-forward" ? "lost a race" : clean();
  }
  // The pushed head's check, written while the bot's commit is answered (the two checks are apart).
  const verdict: RenderVerdict = {
    kind: "rendered",
    commit: { kind: "pushed", as: pushed.sha },
    ...heldBack,
  };
  const reported = reportRender(ctx.port, { pkg, sha, findings: result.findings, verdict, ...infoOn });
  reported.catch(() => {});
  const settled = await settling;
  // The bot's commit is the head a reviewer sees: its check annotates what the push and the render changed.
  const widened = widenScope(scope, tree, result.tree);
  await Promise.all([
    reported,
    reportRender(ctx.port, {
      pkg,
      sha: pushed.sha,
      findings: settled?.findings ?? result.findings,
      verdict: { kind: "rendered", commit: { kind: "render-of", from: sha }, ...heldBack },
      ...(widened ? { infoScope: widened } : {}),
    }),
  ]);
  ctx.log.info({ branch, from: sha, commit: pushed.sha, settled: settled !== undefined }, "render pushed");
  if (!settled) {
    await ctx.renderer.committed?.(result.tree, options).catch((e: unknown) => {
      ctx.log.warn({ err: e, branch, commit: pushed.sha }, "rendering the bot's commit failed");
    });
  }
  return { kind: "pushed", headSha: sha, commitSha: pushed.sha, ...heldBack };
}

/**
 * The blob ids of the files `after` holds as `before` held them; undefined where none were known. A
 * file the render left alone is the same Buffer in both trees (the renderer hands on what it did not
 * write), so only the files it wrote are compared byte by byte.
 */
function keptBlobIds(
  blobs: ReadonlyMap<string, string> | undefined,
  before: FileTree,
  after: FileTree,
): Map<string, string> | undefined {
  if (!blobs) return undefined;
  const out = new Map<string, string>();
  for (const [path, bytes] of after) {
    const id = blobs.get(path);
    if (id === undefined) continue;
    const was = before.get(path);
    if (was === bytes || was?.equals(bytes)) out.set(path, id);
  }
  return out;
}
