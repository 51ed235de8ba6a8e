import type { Context } from "probot";
import { parseCommands } from "../commands/parse.js";
import { CONFIG_PATH } from "../config/parse.js";
import { installationPort, repositoryOf } from "../github/installation.js";
import { pullOfEvent, type RestClient } from "../github/octokit-repo.js";
import { APP_MARKER } from "../github/own-comments.js";
import type { InstallationPort, InstallationRepository } from "../github/port.js";
import type { RestRepository } from "../github/responses.js";
import { DRAFT_PREFIX } from "../lifecycle/draft-branch.js";
import { parsePackageBranch } from "../lifecycle/package-branch.js";
import { VARIANT_PREFIX } from "../lifecycle/variant-branch.js";
import { VARIANTS_DIR } from "../variants/index.js";
import type { AppDeps } from "./deps.js";
import { enqueueJob } from "./run-job.js";

/**
 * What every job an event starts shares: the event's installation (a fresh door per job, on the
 * Octokit probot authenticated for the event) and its repository.
 */
function fromEvent(
  deps: AppDeps,
  context: {
    id: string;
    octokit: RestClient;
    payload: { repository: RestRepository; installation?: { id: number } };
  },
): {
  connect: () => Promise<InstallationPort>;
  repository: InstallationRepository;
  deliveryId: string;
  installationId?: number;
} {
  const installationId = context.payload.installation?.id;
  return {
    connect: async () =>
      installationPort(context.octokit, deps.cacheDir, deps.blobs, false, deps.gate, deps.files, deps.own),
    repository: repositoryOf(context.payload.repository),
    deliveryId: context.id,
    ...(installationId !== undefined ? { installationId } : {}),
  };
}

/**
 * push → render the draft's package. A push to the default branch that changes the config → check it;
 * when it is valid (again), the repository is reconciled at once: whatever porchlight left undone
 * while the configuration was broken is done now, without waiting for the periodic sweep. One that
 * changes `.porchlight/variants/` → the repository's fan-out, now.
 */
export async function onPush(deps: AppDeps, context: Context<"push">): Promise<void> {
  const p = context.payload;
  if (p.deleted || !p.ref.startsWith("refs/heads/")) return;
  const branch = p.ref.slice("refs/heads/".length);
  const bot = await deps.identity();
  const common = { ...fromEvent(deps, context), headSha: p.after };
  // a branch under drafts/ whose name is refused is rendered too: its job reports the rule it breaks
  if (parsePackageBranch(branch).ok || branch.startsWith(DRAFT_PREFIX)) {
    // The bot's own render commit already carries its check: reacting to it would only loop.
    if (p.sender?.login === bot.login) return;
    await enqueueJob(deps, { ...common, kind: "render", key: branch, task: "render", args: { branch } });
    return;
  }
  const touchedConfig = p.commits.some((c) =>
    [...(c.added ?? []), ...(c.modified ?? [])].includes(CONFIG_PATH),
  );
  // A variant added, edited or removed on the default branch (by git, or through Porch's API, which
  // commits there) fans out now, as a publish does; the sweep only catches what this missed.
  if (branch === p.repository.default_branch && touchesVariants(p.commits)) {
    await enqueueJob(deps, {
      ...common,
      kind: "fanout",
      key: `variants:${p.after}`,
      task: "fanout-wanted",
      args: {},
    });
  }
  if (branch === p.repository.default_branch && touchedConfig) {
    await enqueueJob(deps, {
      ...common,
      kind: "config",
      key: p.after,
      task: "config-ok",
      args: { sha: p.after },
    });
  }
}

/**
 * GitHub lists at most 2,048 commits of a push (and a forced push may list none of what changed): a
 * push at that bound is taken as touching the variant files, since fan-out finding nothing to do costs
 * only a read.
 */
const LISTED_COMMITS = 2048;

function touchesVariants(
  commits: readonly {
    added?: string[] | undefined;
    modified?: string[] | undefined;
    removed?: string[] | undefined;
  }[],
): boolean {
  if (commits.length >= LISTED_COMMITS) return true;
  return commits.some((c) =>
    [...(c.added ?? []), ...(c.modified ?? []), ...(c.removed ?? [])].some((f) =>
      f.startsWith(`${VARIANTS_DIR}/`),
    ),
  );
}

/** A proposal opened or updated → its checks and summary. */
export async function onPullRequest(deps: AppDeps, context: Context<"pull_request">): Promise<void> {
  const pr = context.payload.pull_request;
  const event = fromEvent(deps, context);
  // what the event says the proposal changes (its base and head): a job whose files it leaves alone is
  // told so by git, without reading the pull request again
  const named = { baseSha: pr.base.sha, headSha: pr.head.sha };
  // the pull request as the event carried it: the check trusts it while its branch is at that head
  const seen = pullOfEvent(pr);
  await enqueueJob(deps, {
    ...event,
    kind: "check",
    key: String(pr.number),
    headSha: pr.head.sha,
    task: "check",
    // the head a proposal is opened with is its first: no head of it was passed over below that one
    args: {
      pull: pr.number,
      ...(context.payload.action === "opened" ? { openedAt: pr.head.sha } : {}),
      ...(seen ? { seen } : {}),
    },
  });
  // The configuration it proposes, validated only (what runs keeps the default branch's). Queued
  // after the proposal's check, which reports a broken default-branch configuration on the same head.
  await enqueueJob(deps, {
    ...event,
    kind: "config-proposal",
    key: String(pr.number),
    needsConfig: false,
    task: "config-proposal",
    args: {
      pull: pr.number,
      defaultBranch: context.payload.repository.default_branch,
      ...named,
    },
  });
  // Fan-out's own branches never change variant files; reopened, one is fan-out's to update again.
  if (pr.head.ref.startsWith("porchlight/variant/")) {
    if (context.payload.action === "reopened") {
      await enqueueJob(deps, {
        ...event,
        kind: "fanout",
        key: `reopened:${pr.number}`,
        task: "resume-variant",
        args: { pull: pr.number },
      });
    }
    return;
  }
  await enqueueJob(deps, {
    ...event,
    kind: "variants",
    key: String(pr.number),
    task: "variants",
    args: { pull: pr.number, ...named },
  });
}

/**
 * A pull request merged on GitHub → its publish finished now (tag, catalog, fan-out), as the sweep would
 * later; closed without merging → nothing, but for a check of it still waiting (closedWhileChecking).
 * The job decides what counts (a draft branch of this repository into the default branch) and skips a
 * publish the bot's own `/approve` already finished.
 */
export async function onPullClosed(deps: AppDeps, context: Context<"pull_request.closed">): Promise<void> {
  const pr = context.payload.pull_request;
  if (!pr.merged) return closedWhileChecking(deps, context);
  if (!parsePackageBranch(pr.head.ref).ok) return;
  // The bot's own merge: a publish job that merged finishes the publish itself (its job is told so, and
  // looks at the draft branch by git before it reads anything more)
  const ownMerge = pr.merged_by?.login === (await deps.identity()).login;
  // merged: what the event says of the pull request stays true, so the job does not read it again
  const seen = pullOfEvent(pr);
  await enqueueJob(deps, {
    ...fromEvent(deps, context),
    kind: "publish",
    key: `merged:${pr.number}`,
    headSha: pr.head.sha,
    task: "merged",
    args: {
      pull: pr.number,
      ...(ownMerge ? { ownMerge: { headRef: pr.head.ref, headSha: pr.head.sha } } : {}),
      ...(seen ? { seen } : {}),
    },
  });
}

/**
 * A proposal closed unmerged (rejected, closed by hand) while its check waits in this process's queue:
 * that check trusts the pull request its event carried (open then, its branch still at that head, which
 * a rejected proposal's draft keeps), so it is replaced by one that reads the pull request, finds it
 * closed and writes nothing — no summary lands on a closed proposal. A check already running is as a
 * check that read the pull request an instant before it closed; a fleet's queue (Redis) is not asked.
 */
async function closedWhileChecking(deps: AppDeps, context: Context<"pull_request.closed">): Promise<void> {
  const event = fromEvent(deps, context);
  const pull = context.payload.pull_request.number;
  if (deps.distributed || !deps.queues.isWaiting(event.repository.fullName, `check:${pull}`)) return;
  await enqueueJob(deps, { ...event, kind: "check", key: String(pull), task: "check", args: { pull } });
}

/** An approving review → publish (the job checks who approved and what). */
export async function onReviewSubmitted(
  deps: AppDeps,
  context: Context<"pull_request_review.submitted">,
): Promise<void> {
  const { review, pull_request: pr } = context.payload;
  if (review.state.toLowerCase() !== "approved") return;
  // the pull request as the review saw it: the publish decides on it where the merge guards it
  const seen = pullOfEvent(pr);
  await enqueueJob(deps, {
    ...fromEvent(deps, context),
    kind: "publish",
    key: String(review.id),
    headSha: pr.head.sha,
    task: "publish",
    args: {
      pull: pr.number,
      reviewId: review.id,
      user: review.user?.login ?? "",
      state: review.state,
      commitId: review.commit_id,
      ...(seen ? { seen } : {}),
    },
  });
}

/**
 * A comment with slash-commands → the pull request's (or issue's) command job in the repository's
 * queue, and 👀 at once. One job per pull request: while one waits, it absorbs the next comments' (it
 * reads every unanswered command when it runs), so a flood of comments is one job and one reply; a
 * comment whose request was absorbed gets no 👀 of its own, so that a flood does not spend the
 * installation's paced writes (shared with its other repositories) on reactions.
 */
export async function onComment(deps: AppDeps, context: Context<"issue_comment.created">): Promise<void> {
  const { comment, issue } = context.payload;
  if (comment.body?.includes(APP_MARKER)) await othersChanged(deps, context);
  if (comment.user?.type === "Bot" || parseCommands(comment.body ?? "").length === 0) return;
  const event = fromEvent(deps, context);
  const enqueued = await enqueueJob(deps, {
    ...event,
    kind: "command",
    key: String(issue.number),
    task: "command",
    args: { issue: issue.number, commentId: comment.id },
  });
  if (enqueued === "queued") await (await event.connect()).repo(event.repository).react(comment.id, "eyes");
}

/**
 * A comment edited or deleted: when not by the app (whose own writes are known as it makes them), the
 * app's comments of that pull request kept in this process (own-comments.ts) are let go, so the next
 * job finds its answers as GitHub lists them — an answer a person edited, or a person's comment that
 * holds one of the app's markers, counts as it would have when read.
 */
export async function onCommentChanged(
  deps: AppDeps,
  context: Context<"issue_comment.edited" | "issue_comment.deleted">,
): Promise<void> {
  await othersChanged(deps, context);
}

/** The app's comments kept for the event's pull request let go, unless the app itself sent the event. */
async function othersChanged(
  deps: AppDeps,
  context: {
    payload: { repository: RestRepository; issue: { number: number }; sender?: { login: string } | null };
  },
): Promise<void> {
  const own = deps.own?.comments;
  if (!own || context.payload.sender?.login === (await deps.identity()).login) return;
  own.forget(repositoryOf(context.payload.repository).id, context.payload.issue.number);
}

/**
 * Whether a finished check or status may move a fan-out: its commit is on a fan-out branch (its pull
 * request's automerge) or on the default branch (a rollout step verifies it after a merge). Decided from
 * the payload alone, so CI finishing on drafts, proposals and other branches queues nothing; a commit
 * whose branch the payload does not name (`head_branch` null) is looked at by the job.
 */
function mayMoveFanout(
  defaultBranch: string,
  branches: readonly (string | null | undefined)[],
  pulls: readonly { head: { ref: string } }[],
): boolean {
  if (pulls.some((p) => p.head.ref.startsWith(VARIANT_PREFIX))) return true;
  return branches.some(
    (b) => b === null || b === undefined || b === defaultBranch || b.startsWith(VARIANT_PREFIX),
  );
}

/** A finished check or status → the repository's `checks-finished` job for the commit (one per commit while waiting). */
async function checksFinished(
  deps: AppDeps,
  context: Parameters<typeof fromEvent>[1],
  sha: string,
): Promise<void> {
  await enqueueJob(deps, {
    ...fromEvent(deps, context),
    kind: "checks",
    key: sha,
    task: "checks-finished",
    args: { sha },
  });
}

/** A check run completed (any app's, CI's included) → a fan-out pull request's automerge, a rollout's next wave. */
export async function onCheckRunCompleted(
  deps: AppDeps,
  context: Context<"check_run.completed">,
): Promise<void> {
  const run = context.payload.check_run;
  const branch = run.check_suite?.head_branch;
  if (!mayMoveFanout(context.payload.repository.default_branch, [branch], run.pull_requests)) return;
  await checksFinished(deps, context, run.head_sha);
}

/** A check suite completed (every run of one app on a commit) → as a completed run. */
export async function onCheckSuiteCompleted(
  deps: AppDeps,
  context: Context<"check_suite.completed">,
): Promise<void> {
  const suite = context.payload.check_suite;
  if (!mayMoveFanout(context.payload.repository.default_branch, [suite.head_branch], suite.pull_requests))
    return;
  await checksFinished(deps, context, suite.head_sha);
}

/** A commit status that passed or failed (CI reporting statuses) → as a completed run; pending ones change nothing. */
export async function onStatus(deps: AppDeps, context: Context<"status">): Promise<void> {
  const p = context.payload;
  if (p.state === "pending") return;
  const branches = p.branches.map((b) => b.name);
  if (branches.length === 0 || !mayMoveFanout(p.repository.default_branch, branches, [])) return;
  await checksFinished(deps, context, p.sha);
}
