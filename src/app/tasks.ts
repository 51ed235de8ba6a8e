import type { ConfigProblem } from "../config/problem.js";
import { formatProblem } from "../config/problem.js";
import type { RepoPort } from "../github/port.js";
import { checkProposedConfig } from "../jobs/check-config/index.js";
import { checkProposal } from "../jobs/check-proposal/index.js";
import { answerCommands } from "../jobs/commands/answer.js";
import { replyMarker } from "../jobs/commands/reply.js";
import type { JobContext } from "../jobs/context.js";
import type { PublishedEvent } from "../jobs/events.js";
import { onChecksFinished } from "../jobs/fanout/checks-finished.js";
import { fanoutAfterPublish, fanoutNow, sweepFanout } from "../jobs/fanout/jobs.js";
import { resumeVariantPull } from "../jobs/fanout/resume.js";
import { checkVariantFiles } from "../jobs/fanout/variants-check.js";
import { publishMergedPull } from "../jobs/publish/on-merge.js";
import { onReview } from "../jobs/publish/on-review.js";
import { reconcileRepo } from "../jobs/reconcile.js";
import { renderDraft } from "../jobs/render-draft/index.js";
import { reportConfigOk } from "./config.js";

/** One kind of work a job does, from its arguments: plain data, so a job can wait in Redis. */
interface Task<A> {
  work(ctx: JobContext, args: A): Promise<unknown>;
  /** Besides the failing check: how to tell the user the configuration is broken (a command's reply). */
  onBadConfig?(port: RepoPort, problems: ConfigProblem[], args: A): Promise<void>;
}

/**
 * The pull request or issue whose commands to answer, and the comment whose event queued the job. A
 * job queued by an older version also carries the comment's body and author: they are not read, the
 * job reads the comments as they are when it runs.
 */
interface CommandArgs {
  issue: number;
  commentId: number;
}

/**
 * Every job's work, by name. A job names its task and carries the task's arguments as JSON-safe data
 * (numbers, strings, the published event), never a closure: in the distributed mode the replica that
 * runs a job is not the one that received its webhook (docs/scaling.md).
 */
const TASKS = {
  render: task<{ branch: string }>({ work: (ctx, a) => renderDraft(ctx, a) }),
  /** The default branch's configuration is valid (again): say so, and do what was left undone. */
  "config-ok": task<{ sha: string }>({
    work: async (ctx, a) => {
      await reportConfigOk(ctx.port, a.sha);
      return reconcileRepo(ctx);
    },
  }),
  check: task<{ pull: number }>({ work: (ctx, a) => checkProposal(ctx, a) }),
  "config-proposal": task<{ pull: number; defaultBranch: string }>({
    work: (ctx, a) => checkProposedConfig(ctx, a),
  }),
  "resume-variant": task<{ pull: number }>({ work: (ctx, a) => resumeVariantPull(ctx, a) }),
  /** A proposal merged on GitHub (not by the bot): published now rather than at the next sweep. */
  merged: task<{ pull: number }>({ work: (ctx, a) => publishMergedPull(ctx, a) }),
  variants: task<{ pull: number }>({
    work: (ctx, a) => (ctx.installation ? checkVariantFiles(ctx, ctx.installation, a) : Promise.resolve()),
  }),
  publish: task<{ pull: number; reviewId: number; user: string; state: string; commitId: string }>({
    work: (ctx, a) => onReview(ctx, a),
  }),
  command: task<CommandArgs>({
    work: (ctx, a) => answerCommands(ctx, { issue: a.issue, commentId: a.commentId }),
    onBadConfig: async (port, problems, a) => {
      const marker = replyMarker(a.commentId);
      await port.ensureComment(
        a.issue,
        marker,
        `${marker}\nporchlight does nothing on this repository until its configuration is fixed:\n\n${problems.map((p) => `- ${formatProblem(p)}`).join("\n")}\n`,
      );
    },
  }),
  /** A check run, check suite or commit status finished on `sha`: the fan-out it concerns is asked for. */
  "checks-finished": task<{ sha: string }>({ work: (ctx, a) => onChecksFinished(ctx, a) }),
  /** The repository's own fan-out, now (checks finished on one of its downstreams). */
  "fanout-wanted": task<Record<string, never>>({
    work: (ctx) => (ctx.installation ? fanoutNow(ctx, ctx.installation) : Promise.resolve()),
  }),
  reconcile: task<Record<string, never>>({ work: (ctx) => reconcileRepo(ctx) }),
  "fanout-sweep": task<Record<string, never>>({
    work: (ctx) => (ctx.installation ? sweepFanout(ctx, ctx.installation) : Promise.resolve()),
  }),
  "fanout-published": task<PublishedEvent>({
    work: (ctx, a) => (ctx.installation ? fanoutAfterPublish(ctx, ctx.installation, a) : Promise.resolve()),
  }),
};

export type TaskName = keyof typeof TASKS;
export type TaskArgs<T extends TaskName> = (typeof TASKS)[T] extends Task<infer A> ? A : never;

function task<A>(t: Task<A>): Task<A> {
  return t;
}

/** The task of a name read back from a queue; a name this build does not know is an error naming the known ones. */
export function taskOf(name: string): Task<unknown> {
  const task = (TASKS as Record<string, Task<unknown>>)[name];
  if (!task)
    throw new Error(
      `unknown job task "${name}" (a replica of another version queued it?); known: ${Object.keys(TASKS).join(", ")}`,
    );
  return task;
}
