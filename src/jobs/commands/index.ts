import type { Verb } from "../../commands/args.js";
import { type Actor, forkNotDraft } from "../../commands/authorize.js";
import { decideCommands } from "../../commands/decide.js";
import { parseCommands } from "../../commands/parse.js";
import { parseReplyMarker } from "../../commands/reply.js";
import { GitHubError } from "../../github/errors.js";
import type { IssueComment, PullRequest } from "../../github/port.js";
import { fromFork, type JobContext } from "../context.js";
import { adopt } from "./adopt.js";
import { approve } from "./approve.js";
import { deprecate, remove, skip } from "./catalog.js";
import { fanout } from "./fanout.js";
import { promote } from "./promote.js";
import { proposeDelete } from "./propose-delete.js";
import { reject } from "./reject.js";
import { render } from "./render.js";
import { formatCommandReply, replyMarker } from "./reply.js";
import { rollback } from "./rollback.js";
import { rolloutCommand } from "./rollout.js";
import type { AnywhereVerbHandler, HandlerResult, VerbHandler } from "./types.js";
import { update } from "./update.js";

/** Verbs that also run in an issue, and on a fork's pull request: the catalog's, naming a revision by its tag. */
const ANYWHERE_VERBS = ["skip", "deprecate", "remove", "rollback"] as const;
type AnywhereVerb = (typeof ANYWHERE_VERBS)[number];

/** The verbs this installation carries out; fan-out and catalog plug theirs in here. */
export type VerbHandlers = Record<Exclude<Verb, "help" | "rollout" | AnywhereVerb>, VerbHandler> &
  Record<AnywhereVerb, AnywhereVerbHandler>;

function isAnywhere(verb: Verb): verb is AnywhereVerb {
  return (ANYWHERE_VERBS as readonly Verb[]).includes(verb);
}

function defaultHandlers(): VerbHandlers {
  return {
    approve,
    reject,
    render,
    "propose-delete": proposeDelete,
    update,
    promote,
    fanout,
    adopt,
    skip,
    deprecate,
    remove,
    rollback,
  };
}

/** Verbs that treat the pull request's branch as a draft: never carried out on a fork's branch. */
const DRAFT_VERBS: ReadonlySet<Verb> = new Set([
  "approve",
  "reject",
  "render",
  "update",
  "propose-delete",
  "promote",
]);

export type RunCommandsOutcome =
  | { kind: "none" }
  | { kind: "already-answered" }
  | { kind: "answered"; replyId: number; results: HandlerResult[] };

/** One command of a comment and what came of it. */
export interface CommandEntry {
  command: string;
  result: HandlerResult;
}

export interface CommentCommands {
  issue: number;
  commentId: number;
  body: string;
  author: string;
  handlers?: VerbHandlers;
}

/**
 * A comment with slash-commands → one reply. Runs each command in order (unknown verbs, bad arguments
 * and missing permission answered at once, with why); a comment already answered (the same delivery
 * again, or a re-run) is left alone, so nothing runs twice.
 */
export async function runCommands(ctx: JobContext, input: CommentCommands): Promise<RunCommandsOutcome> {
  if (parseCommands(input.body).length === 0) return { kind: "none" };
  if (answeredIds(await ctx.port.listComments(input.issue), ctx.bot.login).has(input.commentId))
    return { kind: "already-answered" };
  const entries = await executeCommands(ctx, input);
  const reply = await ctx.port.ensureComment(
    input.issue,
    replyMarker(input.commentId),
    formatCommandReply(input.commentId, entries),
  );
  return { kind: "answered", replyId: reply.id, results: entries.map((e) => e.result) };
}

/** The comments some reply of the bot names (read back from the replies' hidden markers). */
function answeredIds(comments: readonly IssueComment[], botLogin: string): Set<number> {
  const ids = new Set<number>();
  for (const c of comments) if (c.author === botLogin) for (const id of parseReplyMarker(c.body)) ids.add(id);
  return ids;
}

/** Carries out a comment's commands in order, as its author; what each came to. Writes no reply. */
export async function executeCommands(ctx: JobContext, input: CommentCommands): Promise<CommandEntry[]> {
  const parsed = parseCommands(input.body);
  const actor: Actor = { login: input.author, permission: await ctx.port.permissionOf(input.author) };
  const handlers = input.handlers ?? defaultHandlers();
  const entries: CommandEntry[] = [];
  let pr: PullRequest | null | undefined;
  for (const decision of decideCommands(parsed, actor)) {
    if (decision.kind === "answer") {
      entries.push({ command: decision.text, result: decision.outcome });
      continue;
    }
    if (decision.args.verb === "rollout") {
      entries.push({
        command: decision.text,
        result: await rolloutCommand(ctx, { issue: input.issue, action: decision.args.action }).catch(
          (e: unknown) => ({
            kind: "refused" as const,
            reason: `\`/rollout\` failed: ${e instanceof Error ? e.message : String(e)}. Try again.`,
          }),
        ),
      });
      continue;
    }
    pr ??= await pullOrNull(ctx, input.issue);
    const verb = decision.args.verb as Exclude<Verb, "help" | "rollout">;
    if (isAnywhere(verb)) {
      // A fork's branch names nothing of this repository: there the revision is named by its tag, as in an issue.
      const here = pr && !fromFork(ctx, pr) ? pr : null;
      const handler = handlers[verb];
      entries.push({
        command: decision.text,
        result: await runOne(ctx, decision.args.verb, pr?.number ?? input.issue, () =>
          handler(ctx, {
            pr: here,
            issue: input.issue,
            actor,
            args: decision.args,
            commentId: input.commentId,
          }),
        ),
      });
      continue;
    }
    if (!pr) {
      entries.push({
        command: decision.text,
        result: {
          kind: "refused",
          reason: `\`/${decision.spec.verb}\` works in a pull request, not in an issue.`,
        },
      });
      continue;
    }
    if (DRAFT_VERBS.has(verb) && fromFork(ctx, pr)) {
      entries.push({
        command: decision.text,
        result: { kind: "refused", reason: forkNotDraft(verb, pr.number, pr.headRepo) },
      });
      continue;
    }
    entries.push({
      command: decision.text,
      result: await runOne(ctx, verb, pr.number, () =>
        handlers[verb](ctx, {
          pr: pr as PullRequest,
          actor,
          args: decision.args,
          commentId: input.commentId,
        }),
      ),
    });
    if (verb === "approve" || verb === "reject") pr = undefined;
  }
  return entries;
}

async function runOne(
  ctx: JobContext,
  verb: string,
  issue: number,
  handle: () => Promise<HandlerResult>,
): Promise<HandlerResult> {
  try {
    return await handle();
  } catch (e) {
    ctx.log.error({ err: e, verb, pr: issue }, "command failed");
    const why = e instanceof Error ? e.message : String(e);
    return {
      kind: "refused",
      reason: `\`/${verb}\` failed: ${why}. Try again; if it keeps failing, tell the repository's admins.`,
    };
  }
}

async function pullOrNull(ctx: JobContext, issue: number): Promise<PullRequest | null> {
  try {
    return await ctx.port.getPull(issue);
  } catch (e) {
    if (e instanceof GitHubError && e.kind === "not-found") return null;
    throw e;
  }
}
