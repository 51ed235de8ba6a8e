import { parsePackageBranch } from "../../lifecycle/package-branch.js";
import { contentTrust, renderPlan } from "../adopted-trust.js";
import { CHECK, type JobContext, jobLimits } from "../context.js";
import { limitMessage, resourceAllowance, resourcesExceeded, sizeExceeded } from "../limits.js";
import { outsidePackageRoot, treesEqual, underPackageRoot } from "../packages.js";
import { infoScope, widenScope } from "./annotation-scope.js";
import { pushRender } from "./push-render.js";
import { readDraft } from "./read-draft.js";
import { renderDone, reportRender } from "./report.js";

export type RenderDraftOutcome =
  | { kind: "skipped"; reason: string }
  | { kind: "failed"; headSha: string; error: string }
  | { kind: "clean"; headSha: string; heldBack?: string[] }
  | { kind: "pushed"; headSha: string; commitSha: string; heldBack?: string[] };

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
  if (!draft.ok) return { kind: "skipped", reason: draft.reason };
  const pkg = draft.value.package;
  let seen: string | undefined;
  try {
    const outcome = await renderAttempts(ctx, { ...input, pkg }, (sha) => {
      seen = sha;
    });
    if (outcome.kind === "failed" && outcome.headSha === "" && seen) {
      await reportRender(ctx.port, { pkg, sha: seen, findings: [], error: outcome.error, incomplete: true });
      return { ...outcome, headSha: seen };
    }
    return outcome;
  } catch (e) {
    if (!seen) throw e;
    const why = e instanceof Error ? e.message : String(e);
    ctx.log.warn({ err: e, branch: input.branch, sha: seen }, "render could not finish");
    const error = `porchlight could not finish rendering ${seen.slice(0, 7)}: ${why}`;
    await reportRender(ctx.port, { pkg, sha: seen, findings: [], error, incomplete: true });
    return { kind: "failed", headSha: seen, error };
  }
}

async function renderAttempts(
  ctx: JobContext,
  input: { branch: string; force?: boolean; pkg: string },
  onHead: (sha: string) => void,
): Promise<RenderDraftOutcome> {
  const pkg = input.pkg;
  for (let attempt = 1; attempt <= PUSH_ATTEMPTS; attempt++) {
    const head = await readDraft(ctx.port, input.branch, pkg);
    if (!head) return { kind: "skipped", reason: `the branch ${input.branch} no longer exists` };
    const stillHeld = async () =>
      !(await contentTrust(ctx, { head: head.sha, branch: input.branch })).trusted;
    if (!input.force && (await renderDone(ctx.port, head.sha, stillHeld))) {
      return { kind: "skipped", reason: `${CHECK.render} already ran on ${head.sha.slice(0, 7)}` };
    }
    onHead(head.sha);
    if (!underPackageRoot(pkg, ctx.config.packageRoot)) {
      const error = `${outsidePackageRoot(pkg, ctx.config.packageRoot)}.`;
      await reportRender(ctx.port, { pkg, sha: head.sha, findings: [], error });
      return { kind: "failed", headSha: head.sha, error };
    }
    if (!head.files.some((f) => f.path === "Kptfile")) {
      const error = `There is no package at \`${pkg}\`: the draft branch has no \`${pkg}/Kptfile\`. Add one (kpt pkg init) or rename the branch.`;
      await reportRender(ctx.port, { pkg, sha: head.sha, findings: [], error });
      return { kind: "failed", headSha: head.sha, error };
    }
    // What the package may cost is checked on the git tree's sizes before a file is read.
    const limits = jobLimits(ctx);
    const oversized = sizeExceeded(head.files, limits.limits);
    if (oversized) {
      const error = limitMessage(pkg, oversized, limits);
      await reportRender(ctx.port, { pkg, sha: head.sha, findings: [], error, limit: oversized.name });
      ctx.log.info({ branch: input.branch, sha: head.sha, ...oversized }, "package over a limit");
      return { kind: "failed", headSha: head.sha, error };
    }
    const { tree, blobs } = await ctx.port.readTree(head.sha, pkg);
    const allowance = resourceAllowance(limits.limits);
    // An adopted fork's content no maintainer vouched for yet: builtins only, the rest held back.
    const plan = await renderPlan(ctx, { tree, head: head.sha, branch: input.branch });
    const options = { runtimes: plan.runtimes, holdBack: plan.holdBack, maxResources: allowance.max };
    const result = await ctx.renderer.render(tree, { ...options, ...(blobs ? { blobIds: blobs } : {}) });
    const heldBack = result.heldBack ? { heldBack: result.heldBack } : {};
    if (result.tooManyResources) {
      const exceeded = resourcesExceeded(result.tooManyResources, allowance, limits.limits);
      const error = limitMessage(pkg, exceeded, limits);
      await reportRender(ctx.port, { pkg, sha: head.sha, findings: [], error, limit: exceeded.name });
      ctx.log.info({ branch: input.branch, sha: head.sha, ...exceeded }, "package over a limit");
      return { kind: "failed", headSha: head.sha, error };
    }
    if (!result.ok) {
      const error = result.error ?? "the pipeline failed";
      await reportRender(ctx.port, { pkg, sha: head.sha, findings: result.findings, error });
      ctx.log.info({ branch: input.branch, sha: head.sha }, "render failed");
      return { kind: "failed", headSha: head.sha, error };
    }
    const scope = await infoScope(ctx.port, { sha: head.sha, pkg, tree });
    const infoOn = scope ? { infoScope: scope } : {};
    if (treesEqual(result.tree, tree)) {
      await reportRender(ctx.port, { pkg, sha: head.sha, findings: result.findings, ...heldBack, ...infoOn });
      return { kind: "clean", headSha: head.sha, ...heldBack };
    }
    const pushed = await pushRender(ctx.port, {
      branch: input.branch,
      pkg,
      headSha: head.sha,
      tree: result.tree,
      author: ctx.bot.author,
    });
    if (!pushed.ok && pushed.reason === "non-fast-forward") {
      ctx.log.info({ branch: input.branch, attempt }, "render push lost a race; rendering the new head");
      continue;
    }
    if (!pushed.ok) {
      await reportRender(ctx.port, { pkg, sha: head.sha, findings: result.findings, ...heldBack, ...infoOn });
      return { kind: "clean", headSha: head.sha, ...heldBack };
    }
    // The bot's commit is the head a reviewer sees: its check annotates what the push and the render changed.
    const widened = widenScope(scope, tree, result.tree);
    await reportRender(ctx.port, {
      pkg,
      sha: pushed.sha,
      findings: result.findings,
      renderedFrom: head.sha,
      ...heldBack,
      ...(widened ? { infoScope: widened } : {}),
    });
    await reportRender(ctx.port, {
      pkg,
      sha: head.sha,
      findings: result.findings,
      pushedAs: pushed.sha,
      ...heldBack,
      ...infoOn,
    });
    ctx.log.info({ branch: input.branch, from: head.sha, commit: pushed.sha }, "render pushed");
    // The bot's commit is the next push's input: the renderer keeps what renders it.
    await ctx.renderer.committed?.(result.tree, options).catch((e: unknown) => {
      ctx.log.warn({ err: e, branch: input.branch, commit: pushed.sha }, "rendering the bot's commit failed");
    });
    return { kind: "pushed", headSha: head.sha, commitSha: pushed.sha, ...heldBack };
  }
  return {
    kind: "failed",
    headSha: "",
    error: `the branch ${input.branch} kept moving while porchlight rendered it; push again to retry`,
  };
}
