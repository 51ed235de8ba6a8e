import { formatOutcome } from "../../commands/outcome.js";
import type { HandlerResult } from "./types.js";

/** The hidden marker naming the comment a reply answers (as src/commands/reply.ts writes it). */
export function replyMarker(commentId: number): string {
  return `<!-- porchlight:reply comment=${commentId} -->`;
}

export function resultText(result: HandlerResult): string {
  if (result.kind === "deleted") {
    return `Deleted **${result.package}** (merge ${result.mergeSha.slice(0, 7)}). Its published revisions keep their tags.`;
  }
  return formatOutcome(result);
}

/** One reply per comment: the outcome of a single command, or one line per command in order. */
export function formatCommandReply(
  commentId: number,
  entries: readonly { command: string; result: HandlerResult }[],
): string {
  const marker = replyMarker(commentId);
  if (entries.length === 1)
    return `${marker}\n${resultText((entries[0] as { result: HandlerResult }).result)}\n`;
  const lines = entries.map((e) => {
    const text = resultText(e.result);
    return text.includes("\n") ? `- \`${e.command}\`:\n\n${indent(text)}` : `- \`${e.command}\`: ${text}`;
  });
  return `${marker}\n${lines.join("\n")}\n`;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => (l === "" ? l : `  ${l}`))
    .join("\n");
}
