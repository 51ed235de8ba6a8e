import type { Permission } from "../api/permission.js";
import type { Parsed } from "../lifecycle/result.js";
import {
  noArgs,
  parsePromoteArgs,
  parseProposeDeleteArgs,
  parseRolloutArgs,
  parseUpdateArgs,
} from "./args.js";
import { parseDeprecateArgs, revisionVerb } from "./catalog-args.js";

/**
 * Where a verb works, and so what its handler (src/jobs/commands/handlers.ts) is given:
 * - `pull-request`: a pull request of the repository; in an issue it is refused. The handler gets it.
 * - `pull-request-or-issue`: a pull request, or an issue when the revision is named by its tag (the
 *   catalog's verbs). The handler gets the pull request, or null in an issue and on a fork's pull
 *   request (whose branch names nothing of this repository), and the number.
 * - `issue`: any issue or pull request; the handler gets its number and reads what it needs.
 */
export type Scope = "pull-request" | "pull-request-or-issue" | "issue";

/**
 * What a verb does to the pull request it is written on: `none`; `draft`: takes its branch for a draft
 * of this repository (renders, updates, proposes, promotes it), so it is refused on a fork's pull
 * request; `closes`: as `draft`, and merges or closes the pull request, so the comment's next command
 * reads it again.
 */
type PullRequestChange = "none" | "draft" | "closes";

/** One slash-command verb: everything the parser, the permission check, `/help` and the dispatch need. */
interface Spec<V extends string, S extends Scope, A> {
  verb: V;
  /** How the arguments are written, for `/help`: `[revision|channel]`, `<channel>`. */
  usage: string;
  /** The least permission on the repository someone needs to run it. */
  permission: Permission;
  scope: S;
  changes: PullRequestChange;
  /** One line for `/help`. */
  help: string;
  parseArgs(args: readonly string[]): Parsed<A>;
}

/** The table's entries are specs of the verb they are filed under (the compiler checks the names agree). */
function verbTable<const T extends { [V in keyof T & string]: Spec<V, Scope, { verb: V }> }>(table: T): T {
  return table;
}

/**
 * The slash-command verbs, each declared once, in the order `/help` lists them. Adding one here makes
 * the compiler ask for its handler in src/jobs/commands/handlers.ts, taking the arguments its parser
 * returns and what its scope gives.
 */
const TABLE = verbTable({
  approve: {
    verb: "approve",
    usage: "",
    permission: "write",
    scope: "pull-request",
    changes: "closes",
    help: "Publish this proposal: merge the reviewed head and tag the package's next revision.",
    parseArgs: noArgs("approve"),
  },
  reject: {
    verb: "reject",
    usage: "",
    permission: "write",
    scope: "pull-request",
    changes: "closes",
    help: "Return this proposal to draft: close the pull request and keep its branch.",
    parseArgs: noArgs("reject"),
  },
  render: {
    verb: "render",
    usage: "",
    permission: "write",
    scope: "pull-request",
    changes: "draft",
    help: "Run the package's function pipeline again and commit what changes.",
    parseArgs: noArgs("render"),
  },
  update: {
    verb: "update",
    usage: "[revision|channel]",
    permission: "write",
    scope: "pull-request",
    changes: "draft",
    help: "Update the draft to a newer upstream revision: `v3`, the newest on a channel, or (by default) the newest.",
    parseArgs: parseUpdateArgs,
  },
  "propose-delete": {
    verb: "propose-delete",
    usage: "[revision]",
    permission: "write",
    scope: "pull-request",
    changes: "draft",
    help: "Propose deleting a published revision alone (`v2`, or its tag `basens/v2`): approving the proposal deletes its tag, the other revisions stay. Without one, the whole package: approving removes it from the base branch (its tags stay).",
    parseArgs: parseProposeDeleteArgs,
  },
  promote: {
    verb: "promote",
    usage: "[channel]",
    permission: "write",
    scope: "pull-request",
    changes: "draft",
    help: "Add the published revision to a channel of the catalog, like `stable` (none: the package's default channel).",
    parseArgs: parsePromoteArgs,
  },
  skip: {
    verb: "skip",
    usage: "[revision]",
    permission: "write",
    scope: "pull-request-or-issue",
    changes: "none",
    help: "Skip a published revision in the catalog (this one, `v2`, or `basens/v2` in an issue): downstreams jump over it and it is never offered again.",
    parseArgs: revisionVerb("skip"),
  },
  deprecate: {
    verb: "deprecate",
    usage: "[revision|channel <name>|package] [message]",
    permission: "write",
    scope: "pull-request-or-issue",
    changes: "none",
    help: "Deprecate a revision, a channel or the package in the catalog, with a message for its users; it stays installable.",
    parseArgs: parseDeprecateArgs,
  },
  remove: {
    verb: "remove",
    usage: "[revision]",
    permission: "maintain",
    scope: "pull-request-or-issue",
    changes: "none",
    help: "Remove a published revision from the catalog (its tag stays; downstreams on it still upgrade). Refused for a channel head.",
    parseArgs: revisionVerb("remove"),
  },
  rollback: {
    verb: "rollback",
    usage: "[revision]",
    permission: "write",
    scope: "pull-request-or-issue",
    changes: "none",
    help: "Propose a new revision whose content is an earlier one's (by default the one before the latest); approve it to publish.",
    parseArgs: revisionVerb("rollback"),
  },
  fanout: {
    verb: "fanout",
    usage: "",
    permission: "write",
    scope: "pull-request",
    changes: "none",
    help: "Update the package's downstream variants now instead of at the next sweep.",
    parseArgs: noArgs("fanout"),
  },
  adopt: {
    verb: "adopt",
    usage: "",
    permission: "write",
    scope: "pull-request",
    changes: "none",
    help: "Copy a fork's pull request into a draft of this repository (one per package) and propose it, so it can be checked and approved.",
    parseArgs: noArgs("adopt"),
  },
  rollout: {
    verb: "rollout",
    usage: "resume|hold",
    permission: "write",
    scope: "issue",
    changes: "none",
    help: "On the fan-out dashboard issue: `hold` stops the progressive rollout from opening or automerging pull requests; `resume` goes on after a failed step, a manual gate, a schedule or a freeze.",
    parseArgs: parseRolloutArgs,
  },
  help: {
    verb: "help",
    usage: "",
    permission: "read",
    scope: "issue",
    changes: "none",
    help: "List these commands.",
    parseArgs: noArgs("help"),
  },
});

type Table = typeof TABLE;
export type Verb = keyof Table;
type ArgsMap = {
  [V in Verb]: Table[V]["parseArgs"] extends (args: readonly string[]) => Parsed<infer A> ? A : never;
};
type ScopeMap = { [V in Verb]: Table[V]["scope"] };
/** What the parser of `V` returns. */
export type ArgsOf<V extends Verb> = ArgsMap[V];
/** The scope of `V`. */
export type ScopeOf<V extends Verb> = ScopeMap[V];
/** Any verb's arguments, as parsed. */
export type CommandArgs = ArgsMap[Verb];
/** The spec of verb `V`, its arguments' type and scope known. */
export type VerbSpec<V extends Verb> = Spec<V, ScopeMap[V], ArgsMap[V]>;
export type CommandSpec = VerbSpec<Verb>;

/** The table by verb, typed so that `VERBS[verb]` for a generic `verb` knows its arguments and scope. */
export const VERBS: { readonly [V in Verb]: VerbSpec<V> } = TABLE;

/** The verbs' specs, in the table's order. */
export const COMMANDS: readonly CommandSpec[] = Object.values(VERBS);

export function knownVerbs(): string[] {
  return COMMANDS.map((c) => c.verb);
}

/** For code that names a verb itself: an unknown one is a programming error, listed with the known ones. */
export function getCommand(verb: string): CommandSpec {
  const spec = COMMANDS.find((c) => c.verb === verb);
  if (!spec) throw new Error(`unknown slash-command "${verb}"; known commands: ${knownVerbs().join(", ")}`);
  return spec;
}
