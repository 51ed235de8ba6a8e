import type { Context } from "probot";
import { parseCommands } from "../commands/parse.js";
import { CONFIG_PATH } from "../config/parse.js";
import { formatProblem } from "../config/problem.js";
import {
  type AuthenticatedOctokit,
  installationPort,
  type RestRepository,
  repositoryOf,
} from "../github/installation.js";
import type { InstallationPort, InstallationRepository } from "../github/port.js";
import { checkProposedConfig } from "../jobs/check-config/index.js";
import { checkProposal } from "../jobs/check-proposal/index.js";
import { runCommands } from "../jobs/commands/index.js";
import { replyMarker } from "../jobs/commands/reply.js";
import { resumeVariantPull } from "../jobs/fanout/resume.js";
import { checkVariantFiles } from "../jobs/fanout/variants-check.js";
import { onReview } from "../jobs/publish/on-review.js";
import { reconcileRepo } from "../jobs/reconcile.js";
import { renderDraft } from "../jobs/render-draft/index.js";
import { parsePackageBranch } from "../lifecycle/package-branch.js";
import { reportConfigOk } from "./config.js";
import type { AppDeps } from "./deps.js";
import { enqueueJob } from "./run-job.js";

/**
 * What every job an event starts shares: the event's installation (a fresh door per job, on the
 * Octokit probot authenticated for the event) and its repository.
 */
function fromEvent(
  deps: AppDeps,
  context: { id: string; octokit: AuthenticatedOctokit; payload: { repository: RestRepository } },
): { connect: () => Promise<InstallationPort>; repository: InstallationRepository; deliveryId: string } {
  return {
    connect: async () => installationPort(context.octokit, deps.cacheDir),
    repository: repositoryOf(context.payload.repository),
    deliveryId: context.id,
  };
}

/**
 * push → render the draft's package. A push to the default branch that changes the config → check it;
 * when it is valid (again), the repository is reconciled at once: whatever porchlight left undone
 * while the configuration was broken is done now, without waiting for the periodic sweep.
 */
export async function onPush(deps: AppDeps, context: Context<"push">): Promise<void> {
  const p = context.payload;
  if (p.deleted || !p.ref.startsWith("refs/heads/")) return;
  const branch = p.ref.slice("refs/heads/".length);
  const bot = await deps.identity();
  const common = { ...fromEvent(deps, context), headSha: p.after };
  if (parsePackageBranch(branch).ok) {
    // The bot's own render commit already carries its check: reacting to it would only loop.
    if (p.sender?.login === bot.login) return;
    enqueueJob(deps, { ...common, kind: "render", key: branch, work: (ctx) => renderDraft(ctx, { branch }) });
    return;
  }
  const touchedConfig = p.commits.some((c) =>
    [...(c.added ?? []), ...(c.modified ?? [])].includes(CONFIG_PATH),
  );
  if (branch === p.repository.default_branch && touchedConfig) {
    enqueueJob(deps, {
      ...common,
      kind: "config",
      key: p.after,
      work: async (ctx) => {
        await reportConfigOk(ctx.port, p.after);
        return reconcileRepo(ctx);
      },
    });
  }
}

/** A proposal opened or updated → its checks and summary. */
export async function onPullRequest(deps: AppDeps, context: Context<"pull_request">): Promise<void> {
  const pr = context.payload.pull_request;
  const event = fromEvent(deps, context);
  enqueueJob(deps, {
    ...event,
    kind: "check",
    key: String(pr.number),
    headSha: pr.head.sha,
    work: (ctx) => checkProposal(ctx, { pull: pr.number }),
  });
  // The configuration it proposes, validated only (what runs keeps the default branch's). Queued
  // after the proposal's check, which reports a broken default-branch configuration on the same head.
  enqueueJob(deps, {
    ...event,
    kind: "config-proposal",
    key: String(pr.number),
    needsConfig: false,
    work: (ctx) =>
      checkProposedConfig(ctx, { pull: pr.number, defaultBranch: context.payload.repository.default_branch }),
  });
  // Fan-out's own branches never change variant files; reopened, one is fan-out's to update again.
  if (pr.head.ref.startsWith("porchlight/variant/")) {
    if (context.payload.action === "reopened") {
      enqueueJob(deps, {
        ...event,
        kind: "fanout",
        key: `reopened:${pr.number}`,
        work: (ctx) => resumeVariantPull(ctx, { pull: pr.number }),
      });
    }
    return;
  }
  enqueueJob(deps, {
    ...event,
    kind: "variants",
    key: String(pr.number),
    work: (ctx) =>
      ctx.installation ? checkVariantFiles(ctx, ctx.installation, { pull: pr.number }) : Promise.resolve(),
  });
}

/** An approving review → publish (the job checks who approved and what). */
export async function onReviewSubmitted(
  deps: AppDeps,
  context: Context<"pull_request_review.submitted">,
): Promise<void> {
  const { review, pull_request: pr } = context.payload;
  if (review.state.toLowerCase() !== "approved") return;
  enqueueJob(deps, {
    ...fromEvent(deps, context),
    kind: "publish",
    key: String(review.id),
    headSha: pr.head.sha,
    work: (ctx) =>
      onReview(ctx, {
        pull: pr.number,
        reviewId: review.id,
        user: review.user?.login ?? "",
        state: review.state,
        commitId: review.commit_id,
      }),
  });
}

/** A comment with slash-commands → 👀 at once, then the commands in the repository's queue. */
export async function onComment(deps: AppDeps, context: Context<"issue_comment.created">): Promise<void> {
  const { comment, issue } = context.payload;
  if (comment.user?.type === "Bot" || parseCommands(comment.body ?? "").length === 0) return;
  const event = fromEvent(deps, context);
  await (await event.connect()).repo(event.repository).react(comment.id, "eyes");
  enqueueJob(deps, {
    ...event,
    kind: "command",
    key: String(comment.id),
    onBadConfig: async (port, problems) => {
      await port.ensureComment(
        issue.number,
        replyMarker(comment.id),
        `${replyMarker(comment.id)}\nporchlight does nothing on this repository until its configuration is fixed:\n\n${problems.map((p) => `- ${formatProblem(p)}`).join("\n")}\n`,
      );
    },
    work: (ctx) =>
      runCommands(ctx, {
        issue: issue.number,
        commentId: comment.id,
        body: comment.body ?? "",
        author: comment.user?.login ?? "",
      }),
  });
}
