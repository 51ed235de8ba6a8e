import { formatOutcome } from "../../commands/outcome.js";
import { replyMarker as markerOf } from "../../commands/reply.js";
import { deletedText } from "../publish/delete-revision.js";
import type { HandlerResult } from "./types.js";

/** The hidden marker naming the comment a reply answers (as src/commands/reply.ts writes it). */
export function replyMarker(commentId: number): string {
  return markerOf([commentId]);
}

function resultText(result: HandlerResult): string {
  if (result.kind === "deleted") return deletedText(result);
  return formatOutcome(result);
}

type Entries = readonly { command: string; result: HandlerResult }[];

/** One reply per comment: the outcome of a single command, or one line per command in order. */
export function formatCommandReply(commentId: number, entries: Entries): string {
  return `${replyMarker(commentId)}\n${entriesText(entries)}\n`;
}

/**
 * One reply for comments with the same commands (a flood): how many, from whom, and what came of
 * them, once per author; its marker names every comment. A group of one comment reads as the reply
 * to a single comment.
 */
export function formatGroupReply(
  commands: readonly string[],
  authors: readonly { author: string; count: number; entries: Entries }[],
  ids: readonly number[],
): string {
  const marker = markerOf(ids);
  const [only] = authors;
  if (ids.length === 1 && only) return `${marker}\n${entriesText(only.entries)}\n`;
  const what = commands.length === 1 ? `\`${commands[0]}\`` : commands.map((c) => `\`${c}\``).join(" + ");
  const who = authors.map((a) =>
    a.count > 1 && authors.length > 1 ? `@${a.author} ×${a.count}` : `@${a.author}`,
  );
  const head = `${what} ×${ids.length} from ${who.join(", ")}`;
  if (authors.length === 1 && only) {
    const text = entriesText(only.entries);
    return `${marker}\n${head}${text.includes("\n") ? `:\n\n${text}` : `: ${text}`}\n`;
  }
  const parts = authors.map((a) => `- @${a.author}:\n\n${indent(entriesText(a.entries))}`);
  return `${marker}\n${head}:\n\n${parts.join("\n")}\n`;
}

/** The answer to a command edited after it was written: not carried out, and what to do instead. */
export function formatEditedReply(commentId: number, commands: readonly string[]): string {
  const what = commands.map((c) => `\`${c}\``).join(", ");
  return `${replyMarker(commentId)}\nNot carried out: this comment (${what}) was edited after it was written, and porchlight carries out a command only as first written. To run it, write it again in a new comment.\n`;
}

function entriesText(entries: Entries): string {
  if (entries.length === 1) return resultText((entries[0] as { result: HandlerResult }).result);
  const lines = entries.map((e) => {
    const text = resultText(e.result);
    return text.includes("\n") ? `- \`${e.command}\`:\n\n${indent(text)}` : `- \`${e.command}\`: ${text}`;
  });
  return lines.join("\n");
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => (l === "" ? l : `  ${l}`))
    .join("\n");
}
