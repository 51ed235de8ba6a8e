import type { Verb } from "./verb.js";

/**
 * A verb as `porchlight rpkg --help` lists it, and its module, loaded only when the verb runs: `rpkg
 * get` does not load what `approve` publishes with, nor `--help` any of them. Name and summary are the
 * verb's own (its module's), repeated here so that listing them loads nothing; a test holds the two
 * together. The aliases are this table's alone.
 */
export interface VerbEntry {
  name: string;
  /**
   * The other names porchctl's cobra command gives the verb (its `Aliases`, at Porch's main:
   * nephio-project/porch pkg/cli/commands/rpkg/<verb>/command.go), each running the verb.
   */
  aliases?: readonly string[];
  summary: string;
  load(): Promise<Verb>;
}

/** Every rpkg verb, in the order `porchlight rpkg --help` lists them. */
export const VERBS: readonly VerbEntry[] = [
  {
    name: "get",
    aliases: ["list"],
    summary: "List package revisions (table, or PackageRevision objects with -o yaml|json).",
    load: async () => (await import("./get.js")).getVerb,
  },
  {
    name: "init",
    summary: "Create a new package as a draft.",
    load: async () => (await import("./init.js")).initVerb,
  },
  {
    name: "copy",
    aliases: ["edit"],
    summary: "Create a new draft revision of a package from a published one.",
    load: async () => (await import("./copy.js")).copyVerb,
  },
  {
    name: "pull",
    aliases: ["source", "read"],
    summary: "Read a revision's files into a directory, or as a ResourceList on stdout.",
    load: async () => (await import("./pull.js")).pullVerb,
  },
  {
    name: "push",
    aliases: ["sink", "write"],
    summary: "Replace a draft's files from a directory or a ResourceList on stdin.",
    load: async () => (await import("./push.js")).pushVerb,
  },
  {
    name: "del",
    aliases: ["delete"],
    summary: "Delete draft or proposed revisions (published ones: propose-delete first).",
    load: async () => (await import("./del.js")).delVerb,
  },
  {
    name: "propose",
    summary: "Propose drafts for publishing (open their pull requests).",
    load: async () => (await import("./propose.js")).proposeVerb,
  },
  {
    name: "approve",
    summary: "Approve proposals: publish them (or carry out a deletion).",
    load: async () => (await import("./approve.js")).approveVerb,
  },
  {
    name: "reject",
    summary: "Reject a proposal to publish or delete (back to Draft, or stays Published).",
    load: async () => (await import("./reject.js")).rejectVerb,
  },
  {
    name: "propose-delete",
    aliases: ["propose-del"],
    summary: "Propose deleting a published revision (a pull request, label porchlight/deletion).",
    load: async () => (await import("./propose-delete.js")).proposeDeleteVerb,
  },
  {
    name: "clone",
    summary: "Create a new package cloned from a package revision or a git repository.",
    load: async () => (await import("./clone.js")).cloneVerb,
  },
  {
    name: "upgrade",
    summary: "New draft of a downstream package, 3-way merged to a newer upstream revision.",
    load: async () => (await import("./upgrade.js")).upgradeVerb,
  },
  {
    name: "rollback",
    summary: "Propose a new revision with an earlier published revision's content.",
    load: async () => (await import("./rollback.js")).rollbackVerb,
  },
  {
    name: "annotate",
    summary: "Set or remove annotations of a package revision.",
    load: async () => (await import("./annotate.js")).annotateVerb,
  },
  {
    name: "label",
    summary: "Set or remove labels of a package revision.",
    load: async () => (await import("./annotate.js")).labelVerb,
  },
];
