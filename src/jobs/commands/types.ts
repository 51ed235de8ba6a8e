import type { Actor } from "../../commands/authorize.js";
import type { CommandOutcome } from "../../commands/outcome.js";
import type { ArgsOf, ScopeOf, Verb } from "../../commands/registry.js";
import type { PullRequest } from "../../github/port.js";
import type { JobContext } from "../context.js";

/** What a verb's scope (src/commands/registry.ts) gives its handler: where the command was written. */
export interface Given {
  /** The pull request it was written on. */
  "pull-request": { pr: PullRequest };
  /**
   * The pull request, or null in an issue and on a fork's pull request (whose branch names nothing of
   * this repository, so the revision is named by its tag there, as in an issue); and its number.
   */
  "pull-request-or-issue": { pr: PullRequest | null; issue: number };
  /** The number of the issue or pull request. */
  issue: { issue: number };
}

/** One command to carry out: where it was written (as its scope gives it), who wrote it, its arguments. */
type VerbInput<V extends Verb> = Given[ScopeOf<V>] & {
  actor: Actor;
  args: ArgsOf<V>;
  commentId: number;
};

/** What a verb's handler answers: a standard outcome, or a deletion that was published. */
export type HandlerResult =
  | CommandOutcome
  | { kind: "deleted"; package: string; mergeSha: string; tag?: string };

/** The handler of verb `V`: its arguments as `V`'s parser returns them, and what `V`'s scope gives. */
export type VerbHandler<V extends Verb> = (ctx: JobContext, input: VerbInput<V>) => Promise<HandlerResult>;
