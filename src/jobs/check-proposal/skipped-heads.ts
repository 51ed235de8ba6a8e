import type { CheckRunInput, PullRequest } from "../../github/port.js";
import { SUPERSEDED_CHECK } from "../../lifecycle/check-run.js";
import { CHECK, type JobContext } from "../context.js";

/**
 * The most commits below a proposal's head looked at for heads no check reached: a burst of pushes
 * larger than this leaves its oldest heads without a status (and says so in the log), rather than
 * spending a write per commit of a long history.
 */
const SKIPPED_HEADS_LOOKED_AT = 30;

const NAMES = [CHECK.render, CHECK.guardrails] as const;

/**
 * The heads of a proposal that no check reached get a neutral `porchlight/render` and
 * `porchlight/guardrails` naming the head that was checked. Pushes that come while a proposal's check
 * waits are taken by that waiting job (it checks the newest head once), so the heads in between were
 * never checked; a restart loses the waiting jobs, and the sweep checks only the head. Both are read
 * from git and the checks present, so nothing needs to be remembered: walking down from the head's
 * parent, every commit of the proposal lacking either check gets it, until a commit that has both (the
 * last head checked, or passed over before). Returns the commits marked, newest first.
 */
export async function markSkippedHeads(
  ctx: Pick<JobContext, "port" | "log">,
  pr: Pick<PullRequest, "number" | "baseSha" | "headSha" | "url">,
): Promise<string[]> {
  const commits = (await ctx.port.listCommits(pr.baseSha, pr.headSha)).filter((c) => c.sha !== pr.headSha);
  const marked: string[] = [];
  for (const [i, commit] of commits.entries()) {
    if (i === SKIPPED_HEADS_LOOKED_AT) {
      ctx.log.info(
        { pull: pr.number, left: commits.length - i },
        "skipped heads past the limit left without a status",
      );
      break;
    }
    const runs = await ctx.port.listCheckRuns(commit.sha);
    const missing = NAMES.filter((name) => !runs.some((r) => r.name === name));
    if (missing.length === 0) break;
    for (const name of missing) await ctx.port.upsertCheckRun(passedOver(name, commit.sha, pr));
    marked.push(commit.sha);
  }
  if (marked.length > 0) ctx.log.info({ pull: pr.number, heads: marked.length }, "marked skipped heads");
  return marked;
}

/** The neutral check of `sha`, which a newer head of the proposal replaced before it was checked. */
function passedOver(name: string, sha: string, pr: Pick<PullRequest, "headSha" | "url">): CheckRunInput {
  const checked = `[${pr.headSha.slice(0, 7)}](${commitUrl(pr.url, pr.headSha)})`;
  return {
    name,
    headSha: sha,
    status: "completed",
    conclusion: "neutral",
    externalId: SUPERSEDED_CHECK,
    title: `Not checked: ${pr.headSha.slice(0, 7)} was checked instead`,
    summary: `porchlight did not check this commit: a newer push came while its check waited, and porchlight checked the newer head, ${checked} (${pr.headSha}). See ${name} there; it is what approving the proposal publishes.`,
    annotations: [],
  };
}

/** A commit's page, from its pull request's (`…/owner/repo/pull/7` → `…/owner/repo/commit/<sha>`). */
function commitUrl(pullUrl: string, sha: string): string {
  return `${pullUrl.replace(/\/pull\/\d+\/?$/, "")}/commit/${sha}`;
}
