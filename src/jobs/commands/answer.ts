import { parseCommands } from "../../commands/parse.js";
import { type CommandGroup, pendingCommands } from "../../commands/pending.js";
import { replyMarker } from "../../commands/reply.js";
import type { JobContext } from "../context.js";
import { type CommandEntry, executeCommands } from "./index.js";
import { formatEditedReply, formatGroupReply } from "./reply.js";

export interface AnswerCommandsResult {
  /** Comments answered now (each named by exactly one reply of the bot). */
  answered: number;
  /** Replies written now: one per group of comments with the same commands, one per edited comment. */
  replies: number;
  /** Comments edited after they were written, answered without being carried out. */
  edited: number;
}

/**
 * Every command of an issue or pull request not yet answered, answered now, from what GitHub holds
 * when the job runs (never from what a webhook carried): comments with the same commands are carried
 * out once per author and answered by one reply naming them all (`/approve` ×200 from @bob); a comment
 * edited since it was written is answered without being carried out; a deleted one is gone, and with
 * it its command. The comment job of a pull request and the sweep both call this: whichever runs
 * first answers, the other finds the reply's marker and does nothing, so each comment is answered
 * once, after a crash too. `commentId` (the comment whose event queued the job) is logged when it is
 * gone by then.
 */
export async function answerCommands(
  ctx: JobContext,
  input: { issue: number; commentId?: number },
): Promise<AnswerCommandsResult> {
  const comments = await ctx.port.listComments(input.issue);
  if (input.commentId !== undefined && !comments.some((c) => c.id === input.commentId))
    ctx.log.info({ issue: input.issue, comment: input.commentId }, "command comment deleted before it ran");
  const { groups, edited } = pendingCommands(comments, ctx.bot.login, ctx.now?.() ?? new Date());
  const result: AnswerCommandsResult = { answered: 0, replies: 0, edited: 0 };
  for (const c of edited) {
    const commands = parseCommands(c.body).map((p) => p.text);
    await ctx.port.ensureComment(input.issue, replyMarker([c.id]), formatEditedReply(c.id, commands));
    ctx.log.info(
      { issue: input.issue, comment: c.id },
      "command comment edited since written; not carried out",
    );
    result.edited++;
    result.answered++;
    result.replies++;
  }
  for (const group of groups) {
    await answerGroup(ctx, input, group);
    result.answered += group.ids.length;
    result.replies++;
  }
  if (result.answered > 1) ctx.log.info({ issue: input.issue, ...result }, "commands answered");
  return result;
}

/** One group: its commands carried out once per author (each as that author), then its one reply. */
async function answerGroup(ctx: JobContext, input: { issue: number }, group: CommandGroup): Promise<void> {
  const authors: { author: string; count: number; entries: CommandEntry[] }[] = [];
  for (const a of group.authors) {
    const entries = await executeCommands(ctx, {
      issue: input.issue,
      commentId: a.first.id,
      body: a.first.body,
      author: a.author,
    });
    authors.push({ author: a.author, count: a.ids.length, entries });
  }
  await ctx.port.ensureComment(
    input.issue,
    replyMarker(group.ids),
    formatGroupReply(group.commands, authors, group.ids),
  );
}
