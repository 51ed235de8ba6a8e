import { parseCommands } from "./parse.js";
import { parseReplyMarker } from "./reply.js";

/** A comment as the pending-command reader needs it (the github layer's `IssueComment` fits). */
export interface CommentRecord {
  id: number;
  author: string;
  bot: boolean;
  body: string;
  /** ISO 8601 (GitHub's, to the second). */
  createdAt: string;
  updatedAt: string;
}

/** One author's comments of a group: their commands run once, as that author. */
interface AuthorComments {
  author: string;
  /** The comment whose text is carried out (the author's first of the group). */
  first: CommentRecord;
  ids: number[];
}

/**
 * Comments with the same commands, in the order written (`/approve` ×200): carried out once per author
 * and answered by one reply naming every comment.
 */
export interface CommandGroup {
  /** The commands as written in the group's first comment, one per line. */
  commands: string[];
  authors: AuthorComments[];
  /** Every comment of the group, oldest first. */
  ids: number[];
}

export interface PendingCommands {
  groups: CommandGroup[];
  /** Commands edited after they were written: never carried out, answered as such. */
  edited: CommentRecord[];
}

/** A command older than this is not carried out any more (the sweep never runs a command from long ago). */
export const COMMAND_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
/** Comments one reply names at most: its hidden marker stays far below GitHub's 65,536 characters. */
export const MAX_IDS_PER_REPLY = 1000;

/**
 * The commands of an issue or pull request still to answer, from its comments alone: a comment with
 * slash-commands by someone other than the bot, that no reply of the bot names, written less than
 * `COMMAND_MAX_AGE_MS` before `now`. One edited since it was written is set apart (what it says now is
 * not what was asked when it was written); the others are grouped by their commands, in order of
 * their first comment, at most `MAX_IDS_PER_REPLY` comments a group.
 */
export function pendingCommands(
  comments: readonly CommentRecord[],
  botLogin: string,
  now: Date,
): PendingCommands {
  const answered = new Set<number>();
  for (const c of comments) {
    if (c.author === botLogin) for (const id of parseReplyMarker(c.body)) answered.add(id);
  }
  const open = new Map<string, CommandGroup>();
  const groups: CommandGroup[] = [];
  const edited: CommentRecord[] = [];
  for (const c of comments) {
    if (c.bot || c.author === botLogin || answered.has(c.id)) continue;
    if (now.getTime() - Date.parse(c.createdAt) > COMMAND_MAX_AGE_MS) continue;
    const commands = parseCommands(c.body).map((p) => p.text);
    if (commands.length === 0) continue;
    if (Date.parse(c.updatedAt) > Date.parse(c.createdAt)) {
      edited.push(c);
      continue;
    }
    const key = commands.join("\n");
    let group = open.get(key);
    // A full group: the next comments of these commands start one of their own (a reply of their own).
    if (!group || group.ids.length >= MAX_IDS_PER_REPLY) {
      group = { commands, authors: [], ids: [] };
      open.set(key, group);
      groups.push(group);
    }
    group.ids.push(c.id);
    const mine = group.authors.find((a) => a.author === c.author);
    if (mine) mine.ids.push(c.id);
    else group.authors.push({ author: c.author, first: c, ids: [c.id] });
  }
  return { groups, edited };
}
