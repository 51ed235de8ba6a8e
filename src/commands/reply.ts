import { type CommandOutcome, formatOutcome } from "./outcome.js";

/** The bot's first answer to a comment with commands, before it does anything else. */
export const ACK_REACTION = "eyes";

const MARKER = /<!-- porchlight:reply comment=(\d+(?:,\d+)*) -->/;

/**
 * The hidden marker of a reply: it names every comment the reply answers (a flood of the same command
 * is answered once, naming each of its comments), so that whether a comment was answered is read from
 * the comments alone, after a crash or on another replica. `parseReplyMarker` reads it back.
 */
export function replyMarker(commentIds: readonly number[]): string {
  return `<!-- porchlight:reply comment=${commentIds.join(",")} -->`;
}

export interface ReplyEntry {
  /** The command line as written, e.g. `/update stable`. */
  command: string;
  outcome: CommandOutcome;
}

/**
 * The reply to one comment: its outcome for a single command, or one line per command in order. A
 * hidden marker names the comment answered, so a job that runs twice finds its reply instead of
 * answering again.
 */
export function formatReply(commentId: number, entries: readonly ReplyEntry[]): string {
  const marker = replyMarker([commentId]);
  if (entries.length === 1) {
    const [only] = entries as [ReplyEntry];
    return `${marker}\n${formatOutcome(only.outcome)}\n`;
  }
  const lines = entries.map((e) => {
    const text = formatOutcome(e.outcome);
    return e.outcome.kind === "help"
      ? `- \`${e.command}\`:\n\n${indent(text)}`
      : `- \`${e.command}\`: ${text}`;
  });
  return `${marker}\n${lines.join("\n")}\n`;
}

/** The ids of the comments a reply answers; none when the body is not a porchlight reply. */
export function parseReplyMarker(body: string): number[] {
  const match = MARKER.exec(body);
  return match?.[1] ? match[1].split(",").map(Number) : [];
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => (l === "" ? l : `  ${l}`))
    .join("\n");
}
