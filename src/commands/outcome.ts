import type { UpdateTarget } from "./args.js";

/** What came of one command, for the reply. The github layer fills it in after acting. */
export type CommandOutcome =
  | { kind: "published"; package: string; revision: number; tag: string; mergeSha: string }
  | { kind: "returned-to-draft"; branch: string }
  | { kind: "deletion-rejected" }
  | { kind: "rendered"; commitSha?: string }
  | { kind: "updated"; package: string; target: UpdateTarget; revision: number; commitSha?: string }
  | { kind: "deletion-proposed"; package: string; revision: number }
  /** One published revision's deletion proposed (its tag), in pull request `pull`; `existing`: asked before. */
  | { kind: "revision-deletion-proposed"; tag: string; pull: number; existing: boolean }
  | { kind: "promoted"; package: string; revision: number; channel: string }
  | ({ kind: "fanout" } & FanoutCounts)
  | { kind: "rollout"; action: "resume" | "hold" }
  | {
      kind: "adopted";
      /** Each draft, and the functions its render held back (the fork's exec and container ones). */
      drafts: { package: string; branch: string; pull: number; heldBack?: string[] }[];
    }
  | {
      kind: "cataloged";
      verb: "skip" | "remove" | "deprecate";
      package: string;
      /** What was edited: `v2`, `channel beta`, `the package`. */
      what: string;
      /** False when the catalog said so already (the same command again): nothing was written. */
      changed: boolean;
      message?: string;
    }
  | {
      kind: "rollback-proposed";
      package: string;
      revision: number;
      branch: string;
      pull: number;
      /** An earlier run (or comment) opened it already. */
      existing: boolean;
    }
  | { kind: "help"; text: string }
  | { kind: "unknown"; verb: string; suggestion?: string; known: readonly string[] }
  | { kind: "invalid"; reason: string }
  | { kind: "refused"; reason: string };

const short = (sha: string) => sha.slice(0, 7);

/** The sentence (or block, for `/help`) that answers one command. */
export function formatOutcome(outcome: CommandOutcome): string {
  switch (outcome.kind) {
    case "published":
      return `Published **${outcome.package}** as \`${outcome.tag}\` (revision ${outcome.revision}, merge ${short(outcome.mergeSha)}).`;
    case "returned-to-draft":
      return `Returned to draft: the pull request is closed and the branch \`${outcome.branch}\` stays for more changes.`;
    case "deletion-rejected":
      return "Deletion rejected: the pull request is closed and its branch removed; the revision stays Published.";
    case "rendered":
      return outcome.commitSha
        ? `Rendered the package and pushed the result as ${short(outcome.commitSha)}.`
        : "Rendered the package: the committed files are already up to date.";
    case "updated": {
      const what = outcome.target.kind === "channel" ? ` (newest on \`${outcome.target.channel}\`)` : "";
      const pushed = outcome.commitSha ? `, pushed as ${short(outcome.commitSha)}` : "";
      return `Updated **${outcome.package}** to upstream revision v${outcome.revision}${what}${pushed}.`;
    }
    case "deletion-proposed":
      return `Proposed deleting **${outcome.package}**, the whole package: revision v${outcome.revision} is now DeletionProposed. Approve to remove the package from the base branch (its tags stay), or close to keep it. To delete one revision alone, name it: \`/propose-delete v${outcome.revision}\`.`;
    case "revision-deletion-proposed":
      return `${outcome.existing ? "Already proposed" : "Proposed"} deleting revision **${outcome.tag}** alone in #${outcome.pull}: it is now DeletionProposed. Approve #${outcome.pull} to delete its tag (the package's other revisions stay), or \`/reject\` it to keep it.`;
    case "promoted":
      return `Added **${outcome.package}** v${outcome.revision} to the \`${outcome.channel}\` channel.`;
    case "fanout":
      return formatFanout(outcome);
    case "rollout":
      return outcome.action === "hold"
        ? "Rollout on hold: no pull request opens or automerges until `/rollout resume`."
        : "Rollout resumed: manual gates, schedules and freezes are overridden until every step is done; a step that still fails stops it again.";
    case "adopted":
      return `Copied the package changes into ${outcome.drafts
        .map((d) => `draft \`${d.branch}\` (proposed in #${d.pull})`)
        .join(", ")}: review and approve there; this pull request stays as it is.${outcome.drafts
        .filter((d) => d.heldBack?.length)
        .map(
          (d) =>
            `\n\n#${d.pull} was rendered with builtin functions only: ${(d.heldBack ?? []).map((f) => `\`${f}\``).join(", ")} did not run, since porchlight runs no exec or container function of a fork's before a maintainer vouches for it. Review the files, then approve #${d.pull} in a review (or push to \`${d.branch}\`): that runs them, and the checks say what they changed.`,
        )
        .join("")}`;
    case "cataloged":
      return formatCataloged(outcome);
    case "rollback-proposed":
      return `${outcome.existing ? "Already proposed" : "Proposed"} rolling **${outcome.package}** back to the content of v${outcome.revision} in #${outcome.pull} (draft \`${outcome.branch}\`): approving it publishes that content as the next revision, which fan-out takes to downstreams like any other.`;
    case "help":
      return outcome.text;
    case "unknown": {
      const hint = outcome.suggestion
        ? ` — did you mean \`/${outcome.suggestion}\`?`
        : `; known commands: ${outcome.known.map((v) => `\`/${v}\``).join(", ")}`;
      return `Unknown command \`/${outcome.verb}\`${hint}`;
    }
    case "invalid":
    case "refused":
      return outcome.reason;
  }
}

function formatCataloged(o: Extract<CommandOutcome, { kind: "cataloged" }>): string {
  const subject = `**${o.package}** ${o.what}`;
  switch (o.verb) {
    case "skip":
      return o.changed
        ? `Skipped ${subject} in the catalog: downstreams on it (or on what it replaced) jump straight to the entry after it, and it is never offered again.`
        : `${subject} is skipped in the catalog already; nothing changed.`;
    case "remove":
      return o.changed
        ? `Removed ${subject} from the catalog: it is no longer listed or offered, its tag \`${o.package}/${o.what}\` stays, and downstreams still on it upgrade to the entry that replaced it.`
        : `${subject} was removed from the catalog already; nothing changed.`;
    case "deprecate":
      return o.changed
        ? `Deprecated ${subject} in the catalog: “${o.message}”. It stays installable and on its upgrade paths; \`porchlight catalog\` shows the message.`
        : `${subject} is deprecated in the catalog already, with that message; nothing changed.`;
  }
}

/** What a `/fanout` did, counted from what happened (jobs/commands/fanout.ts). */
export interface FanoutCounts {
  opened: number;
  updated: number;
  /** Merged and tagged now (automerge, auto-publish). */
  merged: number;
  /** Variants whose pull request or package was already as it should be. */
  unchanged: number;
  failed: { variant: string; error: string }[];
  /** Variants left as they were because their file or plan has a problem (the dashboard lists them). */
  problems: { variant: string; error: string }[];
}

function formatFanout(c: FanoutCounts): string {
  const prs = (n: number) => `${n} pull ${n === 1 ? "request" : "requests"}`;
  const total = c.opened + c.updated + c.merged + c.unchanged + c.failed.length + c.problems.length;
  if (total === 0) return "Fan-out ran: no variant targets this repository's packages; nothing to do.";
  const parts = [`opened ${prs(c.opened)}`, `updated ${c.updated}`];
  if (c.merged > 0) parts.push(`merged ${c.merged}`);
  parts.push(
    `left ${c.unchanged} ${c.unchanged === 1 ? "variant" : "variants"} as ${c.unchanged === 1 ? "it was" : "they were"}`,
  );
  parts.push(`${c.failed.length} failed`);
  if (c.problems.length > 0)
    parts.push(
      `${c.problems.length} ${c.problems.length === 1 ? "variant has a problem" : "variants have problems"}`,
    );
  const failures = c.failed.length
    ? ` Failed: ${c.failed
        .slice(0, 5)
        .map((f) => `\`${f.variant}\`: ${f.error}`)
        .join(
          "; ",
        )}${c.failed.length > 5 ? `; and ${c.failed.length - 5} more` : ""}. The dashboard issue shows every downstream.`
    : "";
  const problems = c.problems.length
    ? ` Problems: ${c.problems
        .slice(0, 5)
        .map((p) => `\`${p.variant}\`: ${p.error}`)
        .join(
          "; ",
        )}${c.problems.length > 5 ? `; and ${c.problems.length - 5} more` : ""}. The dashboard issue lists them all.`
    : "";
  return `Fan-out: ${parts.join(", ")}.${failures}${problems}`;
}
