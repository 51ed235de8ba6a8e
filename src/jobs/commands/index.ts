import { type Actor, forkNotDraft } from "../../commands/authorize.js";
import { decideCommands } from "../../commands/decide.js";
import { parseCommands } from "../../commands/parse.js";
import { type ArgsOf, type CommandSpec, type Scope, VERBS, type Verb } from "../../commands/registry.js";
import { parseReplyMarker } from "../../commands/reply.js";
import { GitHubError } from "../../github/errors.js";
import type { IssueComment, PullRequest } from "../../github/port.js";
import { type Parsed, parsed, rejected } from "../../lifecycle/result.js";
import { fromFork, type JobContext } from "../context.js";
import { HANDLERS } from "./handlers.js";
import { formatCommandReply, replyMarker } from "./reply.js";
import type { Given, HandlerResult } from "./types.js";

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
  const commands = parseCommands(input.body);
  const actor: Actor = { login: input.author, permission: await ctx.port.permissionOf(input.author) };
  const thread = threadOf(ctx, input.issue);
  const entries: CommandEntry[] = [];
  for (const decision of decideCommands(commands, actor)) {
    if (decision.kind === "answer") {
      entries.push({ command: decision.text, result: decision.outcome });
      continue;
    }
    const { args } = decision;
    entries.push({
      command: decision.text,
      result: await carryOut(ctx, thread, { verb: args.verb, args, actor, commentId: input.commentId }),
    });
  }
  return entries;
}

/** The issue or pull request a comment's commands were written on; the pull request read when first needed. */
interface Thread {
  issue: number;
  /** The pull request, or null in an issue. */
  pull(): Promise<PullRequest | null>;
  /** Read it again when next needed (a command merged or closed it). */
  forget(): void;
}

function threadOf(ctx: JobContext, issue: number): Thread {
  let pr: PullRequest | null | undefined;
  return {
    issue,
    pull: async () => (pr ??= await pullOrNull(ctx, issue)),
    forget: () => {
      pr = undefined;
    },
  };
}

/** What a verb of each scope is given, or why it does not run here (src/commands/registry.ts `Scope`). */
const GIVE: {
  readonly [S in Scope]: (ctx: JobContext, thread: Thread, spec: CommandSpec) => Promise<Parsed<Given[S]>>;
} = {
  "pull-request": async (ctx, thread, spec) => {
    const pr = await thread.pull();
    if (!pr) return rejected(`\`/${spec.verb}\` works in a pull request, not in an issue.`);
    if (spec.changes !== "none" && fromFork(ctx, pr))
      return rejected(forkNotDraft(spec.verb, pr.number, pr.headRepo));
    return parsed({ pr });
  },
  "pull-request-or-issue": async (ctx, thread) => {
    const pr = await thread.pull();
    return parsed({ pr: pr && !fromFork(ctx, pr) ? pr : null, issue: thread.issue });
  },
  issue: async (_ctx, thread) => parsed({ issue: thread.issue }),
};

/**
 * One command, by its verb's table entry: what its scope gives it (or the refusal), then its handler;
 * a verb that closes the pull request has the next command read it again.
 */
async function carryOut<V extends Verb>(
  ctx: JobContext,
  thread: Thread,
  command: { verb: V; args: ArgsOf<V>; actor: Actor; commentId: number },
): Promise<HandlerResult> {
  const { verb, args, actor, commentId } = command;
  const spec = VERBS[verb];
  const given = await GIVE[spec.scope](ctx, thread, spec);
  if (!given.ok) return { kind: "refused", reason: given.reason };
  const result = await runOne(ctx, verb, thread.issue, () =>
    HANDLERS[verb](ctx, { ...given.value, actor, args, commentId }),
  );
  if (spec.changes === "closes") thread.forget();
  return result;
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
