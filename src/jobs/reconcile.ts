import { parsePackageBranch } from "../lifecycle/package-branch.js";
import { indexRefs } from "../lifecycle/refs.js";
import { checkProposal } from "./check-proposal/index.js";
import { answerCommands } from "./commands/answer.js";
import { type JobContext, withDeferred } from "./context.js";
import { answerPublishRequests } from "./publish/answer-requests.js";
import { finishRevisionDeletions } from "./publish/delete-revision.js";
import { resumePublish } from "./publish/finish.js";
import { unfinishedPublishes } from "./publish/merged-drafts.js";
import { renderDraft } from "./render-draft/index.js";

export interface SweepResult {
  drafts: number;
  proposals: number;
  /** Drafts rendered now (a render check posted, or a render commit pushed): each had not been. */
  rendered?: number;
  /** Proposals whose checks or summary were written now: each was not up to date. */
  checked?: number;
  /** Merged proposals whose publish a crash left unfinished, finished now (`#<number>`); always set. */
  resumed?: string[];
  /** Requests (`/approve` comments, approving reviews) of those publishes answered now. */
  answered?: number;
  /** Command comments on open proposals that no reply answered, answered now (a crash lost their job). */
  commands?: number;
  failures: { what: string; error: string }[];
}

/**
 * The periodic sweep of one repository: every unfinished revision deletion finished, every unfinished
 * publish finished (a draft branch still at its merged head, or a recent merge without its tag and not
 * labelled deleted: tag, event, branch deleted) and the requests
 * that asked for it answered, every other draft branch rendered, every open proposal checked and its
 * unanswered commands answered (a crash loses the queued job, never the comment), each brought one
 * step toward its desired state. Jobs skip what is already done,
 * so a sweep over a settled repository only reads. Webhooks make porchlight fast; this makes it
 * correct after a missed delivery or a crash. (The catalog and fan-out catch up in the fan-out
 * sweep, jobs/fanout/jobs.ts `sweepFanout`, from the tags.)
 */
export async function reconcileRepo(ctx: JobContext): Promise<SweepResult> {
  const [refs, pulls] = await Promise.all([ctx.port.listRefs(), ctx.port.listOpenPulls()]);
  const resumed: string[] = [];
  const result: SweepResult = { drafts: 0, proposals: 0, resumed, failures: [] };
  const attempt = async (what: string, step: () => Promise<unknown>) => {
    try {
      await step();
    } catch (e) {
      result.failures.push({ what, error: e instanceof Error ? e.message : String(e) });
      ctx.log.warn({ err: e, what }, "reconcile step failed");
    }
  };
  const { branches } = indexRefs(refs);
  const merged = new Set<string>();
  // Before the publishes: a deletion finished here labels its publish deleted, which that look then skips.
  await attempt("unfinished revision deletions", async () => {
    const finished = await finishRevisionDeletions(ctx, { refs, openPulls: pulls });
    if (finished > 0) resumed.push(`${finished} revision deletion(s)`);
  });
  await attempt("unfinished publishes", async () => {
    for (const pr of await unfinishedPublishes(ctx.port, {
      refs,
      openPulls: pulls,
      baseBranch: ctx.baseBranch,
    })) {
      // Its branch, still at the merged head, is no draft to render; one that moved since is.
      if (branches.get(pr.headRef) === pr.headSha) merged.add(pr.headRef);
      // The draft branch goes only once the requests are answered (withDeferred): a failed answer
      // leaves the publish unfinished, for the next sweep.
      await attempt(`#${pr.number}`, () =>
        withDeferred(ctx, async (scoped) => {
          const outcome = await resumePublish(scoped, pr);
          if (outcome && outcome.kind !== "refused") {
            resumed.push(`#${pr.number}`);
            result.answered = (result.answered ?? 0) + (await answerPublishRequests(scoped, pr));
          }
        }),
      );
    }
  });
  for (const branch of branches.keys()) {
    if (!parsePackageBranch(branch).ok || merged.has(branch)) continue;
    result.drafts++;
    await attempt(branch, async () => {
      if ((await renderDraft(ctx, { branch })).kind !== "skipped")
        result.rendered = (result.rendered ?? 0) + 1;
    });
  }
  for (const pr of pulls) {
    if (pr.baseRef !== ctx.baseBranch) continue;
    result.proposals++;
    await attempt(`#${pr.number}`, async () => {
      if ((await checkProposal(ctx, { pull: pr.number })).kind === "checked")
        result.checked = (result.checked ?? 0) + 1;
    });
  }
  // After the checks, so that an `/approve` a crash left unanswered sees them.
  for (const pr of pulls) {
    await attempt(`commands on #${pr.number}`, async () => {
      const { answered } = await answerCommands(ctx, { issue: pr.number });
      if (answered) result.commands = (result.commands ?? 0) + answered;
    });
  }
  return result;
}
