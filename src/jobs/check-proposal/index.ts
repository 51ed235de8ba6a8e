import type { PullRequest } from "../../github/port.js";
import { subtree } from "../../kpt/tree.js";
import { nextRevision } from "../../lifecycle/discover.js";
import { formatSummary, SUMMARY_MARKER } from "../../lifecycle/summary/format.js";
import { summaryNeedsUpdate } from "../../lifecycle/summary/parse.js";
import type { PackageChangeSummary } from "../../lifecycle/summary/types.js";
import { checkCompleted, reportCheck } from "../check-report.js";
import { CHECK, fromFork, type JobContext } from "../context.js";
import { conflictMarkerCheck } from "./conflict-markers.js";
import { forkLinksCheck } from "./fork-links.js";
import { runGuardrails } from "./guardrails.js";
import { combineChecks, type PackageCheck } from "./package-check.js";
import { proposalPackages } from "./proposal-packages.js";
import { summarizePackage } from "./summarize.js";
import { verifyRender } from "./verify-render.js";

export type CheckProposalOutcome =
  | { kind: "skipped"; reason: string }
  | { kind: "checked"; headSha: string; render: boolean; guardrails: boolean; packages: string[] };

/**
 * A proposal opened or updated → `porchlight/render` (committed files equal the rendered output),
 * `porchlight/guardrails` (repository validators, and no package file holding conflict markers) and
 * the one summary comment, edited in place.
 * Level-triggered: when both checks completed on the head and the summary describes it, nothing to do.
 */
export async function checkProposal(
  ctx: JobContext,
  input: { pull: number; force?: boolean },
): Promise<CheckProposalOutcome> {
  const pr = await ctx.port.getPull(input.pull);
  if (pr.state !== "open") return { kind: "skipped", reason: `#${pr.number} is not open` };
  if (pr.baseRef !== ctx.baseBranch) {
    return { kind: "skipped", reason: `#${pr.number} targets ${pr.baseRef}, not ${ctx.baseBranch}` };
  }
  if (!input.force && (await upToDate(ctx, pr))) {
    return { kind: "skipped", reason: `#${pr.number} is already checked at ${pr.headSha.slice(0, 7)}` };
  }
  const [head, base, changed, refs] = await Promise.all([
    ctx.port.readTree(pr.headSha),
    ctx.port.readTree(`refs/heads/${ctx.baseBranch}`),
    ctx.port.changedPaths(pr.baseSha, pr.headSha),
    ctx.port.listRefs(),
  ]);
  const isFork = fromFork(ctx, pr);
  const packages = proposalPackages({
    // A fork's branch name is the fork author's choice: it names no package here.
    pr: isFork ? { headRef: "", labels: pr.labels } : pr,
    changed,
    basePaths: base.tree.keys(),
    headPaths: head.tree.keys(),
  });
  if (packages.length === 0) return { kind: "skipped", reason: `#${pr.number} touches no package` };

  const renders: PackageCheck[] = [];
  const guards: PackageCheck[] = [];
  const summaries: PackageChangeSummary[] = [];
  for (const p of packages) {
    const tree = subtree(head.tree, p.path);
    const common = { pkg: p.path, tree, deletion: p.deletion, isFork };
    const links = isFork ? forkLinksCheck(p.path, within(head.symlinks ?? [], p.path)) : undefined;
    renders.push(links ?? (await verifyRender(ctx, common)));
    // Guardrail policies come from the base branch for a fork: its author cannot loosen them.
    guards.push(links ?? (await runGuardrails(ctx, { ...common, repoTree: isFork ? base.tree : head.tree })));
    const markers = p.deletion ? undefined : conflictMarkerCheck(p.path, tree);
    if (markers) guards.push(markers);
    summaries.push(
      summarizePackage({
        package: p.path,
        base: subtree(base.tree, p.path),
        head: tree,
        revision: nextRevision(p.path, refs),
        deletion: p.deletion,
      }),
    );
  }
  const render = combineChecks("Render", renders);
  const guardrails = combineChecks("Guardrails", guards);
  await reportCheck(ctx.port, { name: CHECK.render, headSha: pr.headSha, ...render });
  await reportCheck(ctx.port, { name: CHECK.guardrails, headSha: pr.headSha, ...guardrails });
  await ctx.port.ensureComment(
    pr.number,
    SUMMARY_MARKER,
    formatSummary({ headSha: pr.headSha, packages: summaries }),
  );
  return {
    kind: "checked",
    headSha: pr.headSha,
    render: render.conclusion === "success",
    guardrails: guardrails.conclusion === "success",
    packages: packages.map((p) => p.path),
  };
}

/** The paths of `paths` below directory `dir`, relative to it. */
function within(paths: readonly string[], dir: string): string[] {
  return paths.filter((p) => p.startsWith(`${dir}/`)).map((p) => p.slice(dir.length + 1));
}

async function upToDate(ctx: JobContext, pr: PullRequest): Promise<boolean> {
  if (!(await checkCompleted(ctx.port, pr.headSha, [CHECK.render, CHECK.guardrails]))) return false;
  const summary = await ctx.port.findComment(pr.number, SUMMARY_MARKER);
  return !summaryNeedsUpdate(summary?.body, pr.headSha);
}
