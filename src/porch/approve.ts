import { GitHubError } from "../github/errors.js";
import { type PublishOutcome, type PublishRequest, publishProposal } from "../jobs/publish/index.js";
import { type CheckRunInfo, REQUIRED_CHECKS } from "../lifecycle/publish.js";
import { parseDeletionProposal } from "../lifecycle/revision-deletion.js";
import type { SpentBudget } from "../queue/parked.js";
import { PorchError, revisionConflict } from "./errors.js";
import { jobContext } from "./job-context.js";
import { nameOf, type ProposalRevision } from "./names.js";
import type { Repository } from "./repository.js";
import type { OpEnv } from "./steps.js";

/**
 * Approves a proposal (Proposed → Published, or DeletionProposed → deleted) as publish does for every
 * door: the review, the checks waited for, the bot's publish job. Readiness gates are the client's to
 * hold to (readiness.ts requireReady: porchctl's, rpkg's), as Porch's server leaves them. Answers the revision's name (Porch's
 * for life) and what publishing did.
 */
export async function approve(
  env: OpEnv,
  { repo, rev, wait }: { repo: Repository; rev: ProposalRevision; wait: CheckWait },
): Promise<{ name: string; outcome: Exclude<PublishOutcome, { kind: "refused" }> }> {
  const name = nameOf(repo, rev);
  const step = env.progress.step(`Publishing #${rev.pullRequest} (${name})`);
  try {
    const outcome = await approveAndPublish(repo, rev.pullRequest, wait, name);
    // The name stays the revision's (Porch's name for life); the tag and revision go with progress.
    step.done(
      outcome.kind === "published"
        ? `revision ${outcome.revision}, tag ${outcome.tag}`
        : `package ${outcome.package} deleted`,
    );
    return { name, outcome };
  } catch (e) {
    step.fail();
    throw e;
  }
}

/** How long approve waits for the proposal head's checks, and how often it looks. */
export interface CheckWait {
  timeoutMs: number;
  pollMs: number;
  /**
   * Where the bot runs beside this process (`porchlight serve`): whether its jobs for `owner`'s
   * repositories are parked because the installation's GitHub budget is spent (docs/operations.md,
   * "GitHub rate limits"); then the checks cannot run before the reset, and approve says so at once.
   */
  botParked?: (owner: string) => SpentBudget | undefined;
}

export const DEFAULT_WAIT: CheckWait = { timeoutMs: 5 * 60_000, pollMs: 1000 };

/**
 * Porch's approve is synchronous: right after `propose`, the bot's render and guardrail checks of the
 * head may not have run yet. Waits until each required check has completed on `sha` (whatever its
 * conclusion: publish then decides, and names a failed one), at most `timeoutMs`; past that, publish
 * refuses naming the checks that have not run. Ctrl-C ends the wait as it ends the command. Answers
 * whether it waited, and the runs of `sha` as last read when they were complete (none past the wait:
 * publish reads them once more, and names those that have not run).
 */
async function waitForChecks(
  repo: Repository,
  sha: string,
  wait: CheckWait,
  name: string,
): Promise<{ runs: CheckRunInfo[] | undefined; waited: boolean }> {
  const deadline = Date.now() + wait.timeoutMs;
  for (let waited = false; ; waited = true) {
    const runs = await repo.conn.port.listCheckRuns(sha);
    const pending = REQUIRED_CHECKS.filter(
      (check) => !runs.some((r) => r.name === check && r.headSha === sha && r.status === "completed"),
    );
    if (pending.length === 0) return { runs, waited };
    const parked = wait.botParked?.(repo.full.split("/")[0] ?? "");
    if (parked) throw checksParked(repo, { name, sha, pending, parked });
    if (Date.now() + wait.pollMs > deadline) return { runs: undefined, waited };
    await new Promise((done) => setTimeout(done, wait.pollMs));
  }
}

/**
 * The approval of a proposal whose checks the bot cannot run before GitHub's rate limit resets: said at
 * once (Kubernetes' TooManyRequests), naming the checks, the installation, the reset and what to do,
 * where waiting would end only in "has not run" after the whole wait.
 */
function checksParked(
  repo: Repository,
  at: { name: string; sha: string; pending: readonly string[]; parked: SpentBudget },
): PorchError {
  const { parked } = at;
  const until = new Date(parked.until).toISOString();
  const checks = at.pending.join(" and ");
  const jobs = `${parked.jobs} job${parked.jobs === 1 ? "" : "s"} of the bot parked until then`;
  return new PorchError(
    "rate-limited",
    `cannot approve ${at.name}: ${checks} ${at.pending.length === 1 ? "has" : "have"} not run on ${at.sha.slice(0, 7)} (${repo.full}) and cannot before ${until}: the porchlight app's GitHub rate limit for installation ${parked.installation} is spent until then (${jobs}; GitHub said: ${parked.reason}). The checks run by themselves once it resets: approve again after ${until}, or have the installation spend less (docs/operations.md, "GitHub rate limits")`,
    undefined,
    undefined,
    { retryAfter: Math.max(1, Math.ceil((parked.until - Date.now()) / 1000)) },
  );
}

/**
 * An approving review of the head as the token's user, then the bot's publish job. GitHub refuses a
 * review of one's own pull request; the job then decides as for `/approve` by the author (it counts no
 * approval from the author). If the bot published first (it reacts to the review too), the job finds
 * the merged pull request and only reports its tag.
 */
export async function approveAndPublish(
  repo: Repository,
  pull: number,
  wait: CheckWait = DEFAULT_WAIT,
  name = `#${pull}`,
): Promise<Exclude<PublishOutcome, { kind: "refused" }>> {
  // the token's user asked beside the pull request (a conditional request, free when unchanged): GitHub
  // refuses a review of one's own pull request, and that refusal would cost a counted request each time
  const [pr, caller] = await Promise.all([
    repo.conn.port.getPull(pull),
    repo.whoami().catch(() => undefined),
  ]);
  let request: PublishRequest;
  try {
    if (caller && caller.login.toLowerCase() === pr.author.toLowerCase())
      request = { kind: "command", user: caller.login, porchApprove: true };
    else request = await reviewed(repo, pull, pr);
  } catch (e) {
    if (!(e instanceof GitHubError) || e.kind !== "validation") throw e;
    const me = await repo.whoami();
    if (!me) {
      throw new PorchError(
        "forbidden",
        `GitHub refused your approval of #${pull} in ${repo.full} (${e.message}); you cannot approve your own proposal: someone else with write permission must approve it`,
      );
    }
    request = { kind: "command", user: me.login, porchApprove: true };
  }
  // A revision's deletion proposal changes no file: no check runs on it, none is waited for.
  const deletion = parseDeletionProposal(pr) !== undefined;
  const checks = deletion ? { runs: [], waited: false } : await waitForChecks(repo, pr.headSha, wait, name);
  const ctx = await jobContext(repo);
  // Nothing waited: the pull request and its checks, read an instant ago, are not asked again. After a
  // wait the pull request is (the head may have moved meanwhile, a comment or a review come); where its
  // head is still the one waited for, the check runs the wait read last are that head's as they are now.
  const now = checks.waited ? await repo.conn.port.getPull(pull) : pr;
  let outcome = await publishProposal(ctx, {
    pull,
    request,
    ...(checks.runs && now.headSha === pr.headSha ? { read: { pr: now, checkRuns: checks.runs } } : {}),
  });
  if (outcome.kind === "refused" && (await repo.conn.port.getPull(pull)).merged) {
    outcome = await publishProposal(ctx, { pull, request });
  }
  if (outcome.kind === "refused")
    throw new PorchError("bad-request", `${outcome.message} (#${pull} in ${repo.full})`);
  if (outcome.kind === "published" && outcome.alreadyMerged)
    await refuseIfAnotherApproved(repo, pull, name, request.kind === "review");
  return outcome;
}

/** An approving review of the head as the token's user: the record of the approval. */
async function reviewed(
  repo: Repository,
  pull: number,
  pr: { headSha: string; author: string },
): Promise<PublishRequest> {
  const user = await repo.conn.approvePull(pull, pr.headSha, "Approved with `porchlight rpkg approve`.");
  // the approval is the caller's, as Porch's approve (their own proposal's too, unless the repository's
  // configuration sets requiredApprovals)
  return user.toLowerCase() === pr.author.toLowerCase()
    ? { kind: "command", user, porchApprove: true }
    : { kind: "review", user, commitId: pr.headSha };
}

/**
 * Of two approvals at once exactly one publishes, as Porch's lock lets one request through: a proposal
 * merged by someone other than this command — another approve, a person — while it approved is that
 * request's, and this one gets Porch's conflict. The bot's merge is this approval's when it answers this
 * command's own review (`reviewed`); without one (an author approving their own proposal) it answered
 * another's.
 */
async function refuseIfAnotherApproved(
  repo: Repository,
  pull: number,
  name: string,
  reviewed: boolean,
): Promise<void> {
  const by = (await repo.conn.port.getPull(pull)).mergedBy;
  if (by === undefined || (reviewed && by.endsWith("[bot]"))) return;
  throw revisionConflict(
    repo.namespace,
    name,
    `#${pull} in ${repo.full} was merged by ${by} while this approve ran: another approval published it`,
  );
}
