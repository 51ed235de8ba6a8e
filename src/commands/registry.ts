import type { Permission } from "../api/permission.js";
import type { Parsed } from "../lifecycle/result.js";
import {
  type CommandArgs,
  noArgs,
  parsePromoteArgs,
  parseProposeDeleteArgs,
  parseRolloutArgs,
  parseUpdateArgs,
  type Verb,
} from "./args.js";
import { parseDeprecateArgs, revisionVerb } from "./catalog-args.js";

/** One slash-command verb: everything the parser, the permission check and `/help` need to know. */
export interface CommandSpec {
  verb: Verb;
  /** How the arguments are written, for `/help`: `[revision|channel]`, `<channel>`. */
  usage: string;
  /** The least permission on the repository someone needs to run it. */
  permission: Permission;
  /** One line for `/help`. */
  help: string;
  parseArgs(args: readonly string[]): Parsed<CommandArgs>;
}

/** The slash-command verbs, in the order `/help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  {
    verb: "approve",
    usage: "",
    permission: "write",
    help: "Publish this proposal: merge the reviewed head and tag the package's next revision.",
    parseArgs: noArgs("approve"),
  },
  {
    verb: "reject",
    usage: "",
    permission: "write",
    help: "Return this proposal to draft: close the pull request and keep its branch.",
    parseArgs: noArgs("reject"),
  },
  {
    verb: "render",
    usage: "",
    permission: "write",
    help: "Run the package's function pipeline again and commit what changes.",
    parseArgs: noArgs("render"),
  },
  {
    verb: "update",
    usage: "[revision|channel]",
    permission: "write",
    help: "Update the draft to a newer upstream revision: `v3`, the newest on a channel, or (by default) the newest.",
    parseArgs: parseUpdateArgs,
  },
  {
    verb: "propose-delete",
    usage: "[revision]",
    permission: "write",
    help: "Propose deleting a published revision alone (`v2`, or its tag `basens/v2`): approving the proposal deletes its tag, the other revisions stay. Without one, the whole package: approving removes it from the base branch (its tags stay).",
    parseArgs: parseProposeDeleteArgs,
  },
  {
    verb: "promote",
    usage: "[channel]",
    permission: "write",
    help: "Add the published revision to a channel of the catalog, like `stable` (none: the package's default channel).",
    parseArgs: parsePromoteArgs,
  },
  {
    verb: "skip",
    usage: "[revision]",
    permission: "write",
    help: "Skip a published revision in the catalog (this one, `v2`, or `basens/v2` in an issue): downstreams jump over it and it is never offered again.",
    parseArgs: revisionVerb("skip"),
  },
  {
    verb: "deprecate",
    usage: "[revision|channel <name>|package] [message]",
    permission: "write",
    help: "Deprecate a revision, a channel or the package in the catalog, with a message for its users; it stays installable.",
    parseArgs: parseDeprecateArgs,
  },
  {
    verb: "remove",
    usage: "[revision]",
    permission: "maintain",
    help: "Remove a published revision from the catalog (its tag stays; downstreams on it still upgrade). Refused for a channel head.",
    parseArgs: revisionVerb("remove"),
  },
  {
    verb: "rollback",
    usage: "[revision]",
    permission: "write",
    help: "Propose a new revision whose content is an earlier one's (by default the one before the latest); approve it to publish.",
    parseArgs: revisionVerb("rollback"),
  },
  {
    verb: "fanout",
    usage: "",
    permission: "write",
    help: "Update the package's downstream variants now instead of at the next sweep.",
    parseArgs: noArgs("fanout"),
  },
  {
    verb: "adopt",
    usage: "",
    permission: "write",
    help: "Copy a fork's pull request into a draft of this repository (one per package) and propose it, so it can be checked and approved.",
    parseArgs: noArgs("adopt"),
  },
  {
    verb: "rollout",
    usage: "resume|hold",
    permission: "write",
    help: "On the fan-out dashboard issue: `hold` stops the progressive rollout from opening or automerging pull requests; `resume` goes on after a failed step, a manual gate, a schedule or a freeze.",
    parseArgs: parseRolloutArgs,
  },
  {
    verb: "help",
    usage: "",
    permission: "read",
    help: "List these commands.",
    parseArgs: noArgs("help"),
  },
];

export function knownVerbs(registry: readonly CommandSpec[] = COMMANDS): string[] {
  return registry.map((c) => c.verb);
}

/** The spec of a verb, or undefined; `lookupCommand` in parse.ts adds the "did you mean" for users. */
function findCommand(verb: string, registry: readonly CommandSpec[] = COMMANDS): CommandSpec | undefined {
  return registry.find((c) => c.verb === verb);
}

/** For code that names a verb itself: an unknown one is a programming error, listed with the known ones. */
export function getCommand(verb: string, registry: readonly CommandSpec[] = COMMANDS): CommandSpec {
  const spec = findCommand(verb, registry);
  if (!spec)
    throw new Error(`unknown slash-command "${verb}"; known commands: ${knownVerbs(registry).join(", ")}`);
  return spec;
}
