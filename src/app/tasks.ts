import { z } from "zod";
import type { ConfigProblem } from "../config/problem.js";
import { formatProblem } from "../config/problem.js";
import type { PullRequest, RepoPort } from "../github/port.js";
import { checkProposedConfig } from "../jobs/check-config/index.js";
import { checkProposal } from "../jobs/check-proposal/index.js";
import { answerCommands } from "../jobs/commands/answer.js";
import { replyMarker } from "../jobs/commands/reply.js";
import type { JobContext } from "../jobs/context.js";
import { onChecksFinished } from "../jobs/fanout/checks-finished.js";
import { fanoutAfterPublish, fanoutNow, sweepFanout } from "../jobs/fanout/jobs.js";
import { resumeVariantPull } from "../jobs/fanout/resume.js";
import { checkVariantFiles } from "../jobs/fanout/variants-check.js";
import type { PublishedEvent } from "../jobs/outbox.js";
import { publishMergedPull } from "../jobs/publish/on-merge.js";
import { onReview } from "../jobs/publish/on-review.js";
import { reconcileRepo } from "../jobs/reconcile.js";
import { renderDraft } from "../jobs/render-draft/index.js";
import { reportConfigOk } from "./config.js";

/** One kind of work a job does, from its arguments: plain data, so a job can wait in Redis. */
interface Task<A> {
  /** The arguments' shape: a job read back from Redis (queued by any replica, of any version) is checked against it. */
  args: z.ZodType<A>;
  work(ctx: JobContext, args: A): Promise<unknown>;
  /** Besides the failing check: how to tell the user the configuration is broken (a command's reply). */
  onBadConfig?(port: RepoPort, problems: ConfigProblem[], args: A): Promise<void>;
}

/**
 * The pull request or issue whose commands to answer, and the comment whose event queued the job. A
 * job queued by an older version also carries the comment's body and author: they are not read, the
 * job reads the comments as they are when it runs.
 */
const commandArgs = z.looseObject({ issue: z.number().int(), commentId: z.number().int() });
type CommandArgs = z.infer<typeof commandArgs>;

const none = z.object({});
const pull = z.looseObject({ pull: z.number().int() });
const sha = z.looseObject({ sha: z.string() });
/**
 * The pull request as the event that queued the job carried it (pullOfEvent): a job trusts it where a
 * change since cannot mislead it, and reads the pull request where it can. A job queued without it (an
 * older version's, the sweep's) reads it.
 */
const eventPull: z.ZodType<PullRequest> = z.object({
  number: z.number().int(),
  title: z.string(),
  body: z.string(),
  state: z.enum(["open", "closed"]),
  merged: z.boolean(),
  draft: z.boolean(),
  headRef: z.string(),
  headSha: z.string(),
  headRepo: z.string().nullable(),
  baseRef: z.string(),
  baseSha: z.string(),
  labels: z.array(z.string()),
  author: z.string(),
  mergeCommitSha: z.string().nullable(),
  mergedBy: z.string().optional(),
  url: z.string(),
  createdAt: z.string().optional(),
  mergeable: z.boolean().nullable().optional(),
});
const publishedEvent: z.ZodType<PublishedEvent> = z.looseObject({
  repo: z.looseObject({ owner: z.string(), repo: z.string() }),
  package: z.string(),
  revision: z.number().int(),
  tag: z.string(),
  commit: z.string(),
  management: z.string().optional(),
});

/**
 * Every job's work, by name. A job names its task and carries the task's arguments as JSON-safe data
 * (numbers, strings, the published event), never a closure: in the distributed mode the replica that
 * runs a job is not the one that received its webhook (docs/scaling.md).
 */
const TASKS = {
  render: task({ args: z.looseObject({ branch: z.string() }), work: (ctx, a) => renderDraft(ctx, a) }),
  /** The default branch's configuration is valid (again): say so, and do what was left undone. */
  "config-ok": task({
    args: sha,
    work: async (ctx, a) => {
      await reportConfigOk(ctx.port, a.sha);
      return reconcileRepo(ctx);
    },
  }),
  check: task({
    args: z.looseObject({
      pull: z.number().int(),
      openedAt: z.string().optional(),
      seen: eventPull.optional(),
    }),
    work: (ctx, a) => checkProposal(ctx, a),
  }),
  "config-proposal": task({
    args: z.looseObject({
      pull: z.number().int(),
      defaultBranch: z.string(),
      baseSha: z.string().optional(),
      headSha: z.string().optional(),
    }),
    work: (ctx, a) => checkProposedConfig(ctx, a),
  }),
  "resume-variant": task({ args: pull, work: (ctx, a) => resumeVariantPull(ctx, a) }),
  /** A proposal merged on GitHub (not by the bot): published now rather than at the next sweep. */
  merged: task({
    args: z.looseObject({
      pull: z.number().int(),
      ownMerge: z.looseObject({ headRef: z.string(), headSha: z.string() }).optional(),
      seen: eventPull.optional(),
    }),
    work: (ctx, a) => publishMergedPull(ctx, a),
  }),
  variants: task({
    args: z.looseObject({
      pull: z.number().int(),
      baseSha: z.string().optional(),
      headSha: z.string().optional(),
    }),
    work: (ctx, a) => checkVariantFiles(ctx, ctx.installation, a),
  }),
  publish: task({
    args: z.looseObject({
      pull: z.number().int(),
      reviewId: z.number().int(),
      user: z.string(),
      state: z.string(),
      commitId: z.string(),
      seen: eventPull.optional(),
    }),
    work: (ctx, a) => onReview(ctx, a),
  }),
  command: task<CommandArgs>({
    args: commandArgs,
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
  "checks-finished": task({ args: sha, work: (ctx, a) => onChecksFinished(ctx, a) }),
  /** The repository's own fan-out, now (checks finished on one of its downstreams). */
  "fanout-wanted": task({
    args: none,
    work: (ctx) => fanoutNow(ctx, ctx.installation),
  }),
  reconcile: task({ args: none, work: (ctx) => reconcileRepo(ctx) }),
  "fanout-sweep": task({
    args: none,
    work: (ctx) => sweepFanout(ctx, ctx.installation),
  }),
  "fanout-published": task({
    args: publishedEvent,
    work: (ctx, a) => fanoutAfterPublish(ctx, ctx.installation, a),
  }),
};

export type TaskName = keyof typeof TASKS;
export type TaskArgs<T extends TaskName> = (typeof TASKS)[T] extends Task<infer A> ? A : never;

function task<A>(t: Task<A>): Task<A> {
  return t;
}

/**
 * A job as a queue in Redis gave it back (queued by any replica, of this version or another): its
 * envelope and its task's arguments checked, or an error naming the field and what was expected.
 */
export function readJobData(raw: unknown): JobDataRead {
  const envelope = jobEnvelope.safeParse(raw);
  if (!envelope.success)
    throw new Error(`a queued job is not one this version reads: ${issueText(envelope.error)}`);
  const args = taskOf(envelope.data.task).args.safeParse(envelope.data.args);
  if (!args.success)
    throw new Error(
      `a queued ${envelope.data.task} job's arguments are not what this version reads: ${issueText(args.error)}`,
    );
  return { ...envelope.data, args: args.data } as JobDataRead;
}

function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  return `${issue?.path.length ? issue.path.join(".") : "the job"}: ${issue?.message ?? "invalid"}`;
}

/** A job's data as checked by readJobData (src/app/run-job.ts's JobData, every task). */
export type JobDataRead = z.infer<typeof jobEnvelope> & { task: TaskName; args: TaskArgs<TaskName> };

const jobEnvelope = z.looseObject({
  kind: z.string(),
  key: z.string(),
  origin: z.enum(["event", "sweep"]).optional(),
  task: z.string(),
  args: z.unknown(),
  repository: z.looseObject({
    id: z.looseObject({ owner: z.string(), repo: z.string() }),
    fullName: z.string(),
    topics: z.array(z.string()),
    defaultBranch: z.string(),
    cloneUrl: z.string(),
    archived: z.boolean(),
  }),
  installationId: z.number().int().optional(),
  deliveryId: z.string().optional(),
  headSha: z.string().optional(),
  needsConfig: z.boolean().optional(),
});

/** The task of a name read back from a queue; a name this build does not know is an error naming the known ones. */
export function taskOf(name: string): Task<unknown> {
  const task = (TASKS as Record<string, Task<unknown>>)[name];
  if (!task)
    throw new Error(
      `unknown job task "${name}" (a replica of another version queued it?); known: ${Object.keys(TASKS).join(", ")}`,
    );
  return task;
}
