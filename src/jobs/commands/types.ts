import type { CommandArgs } from "../../commands/args.js";
import type { Actor } from "../../commands/authorize.js";
import type { CommandOutcome } from "../../commands/outcome.js";
import type { PullRequest } from "../../github/port.js";
import type { JobContext } from "../context.js";

/** One command to carry out: the pull request it was written on, who wrote it, its arguments. */
interface CommandInput {
  pr: PullRequest;
  actor: Actor;
  args: CommandArgs;
  commentId: number;
}

/** What a verb's handler answers: a standard outcome, or a deletion that was published. */
export type HandlerResult =
  | CommandOutcome
  | { kind: "deleted"; package: string; mergeSha: string; tag?: string };

export type VerbHandler = (ctx: JobContext, input: CommandInput) => Promise<HandlerResult>;

/**
 * A command that also works in an issue (the catalog's: the revision is named by its tag there): `pr` is
 * null in an issue, and for a fork's pull request, whose branch names nothing of this repository.
 */
interface AnywhereCommandInput extends Omit<CommandInput, "pr"> {
  pr: PullRequest | null;
  issue: number;
}

export type AnywhereVerbHandler = (ctx: JobContext, input: AnywhereCommandInput) => Promise<HandlerResult>;
