import type { MergeMethod } from "../api/merge-method.js";
import { hasPermission, type Permission } from "../api/permission.js";
import { passes, SUPERSEDED_CHECK } from "./check-run.js";
import { DELETION_LABEL } from "./labels.js";
import { formatRevisionTag } from "./revision-tag.js";

/** The check runs a proposal needs green before it is published. */
export const REQUIRED_CHECKS = ["porchlight/render", "porchlight/guardrails"] as const;

export interface ReviewInfo {
  user: string;
  state: "APPROVED" | "CHANGES_REQUESTED" | "COMMENTED" | "DISMISSED" | "PENDING";
  /** The head commit the review was given on. */
  commitId: string;
  /** The reviewer's permission on the repository. */
  permission: Permission;
}

export interface CheckRunInfo {
  /** GitHub's id: with several runs of one name on a commit, the highest (newest) counts. */
  id: number;
  name: string;
  headSha: string;
  status: "queued" | "in_progress" | "completed";
  conclusion: string | null;
  /** What the run checked, as the bot marked it; a head passed over for a newer one (SUPERSEDED_CHECK) was never checked. */
  externalId?: string | null;
}

/** What started the publish: an approving review, or `/approve` (with the head its author saw, if known). */
export type PublishTrigger =
  | { kind: "review"; user: string; permission: Permission; commitId: string }
  | {
      kind: "command";
      user: string;
      permission: Permission;
      seenSha?: string;
      /** Porch's approve (`rpkg approve`): the caller's approval counts, the author's too. */
      callerApproves?: boolean;
    };

export interface PublishInput {
  package: string;
  pullRequest: {
    number: number;
    author: string;
    state: "open" | "closed";
    merged: boolean;
    draft: boolean;
    labels: readonly string[];
    headSha: string;
  };
  trigger: PublishTrigger;
  /** All reviews of the pull request, oldest first. */
  reviews: readonly ReviewInfo[];
  checkRuns: readonly CheckRunInfo[];
  requiredApprovals: number;
  mergeMethod: MergeMethod;
  /** The revision number the package would publish as (nextRevision over the repository's refs). */
  nextRevision: number;
  /**
   * The published revision a deletion proposal deletes (revision-deletion.ts): its tag and the commit
   * the tag must still point at. Its pull request changes no file, so no check needs to run on it.
   */
  deletesRevision?: { tag: string; commit: string };
}

export type PublishDecision =
  | {
      kind: "publish";
      /** Merge with this head SHA only: what was reviewed is what gets published. */
      mergeSha: string;
      mergeMethod: MergeMethod;
      tag: string;
      revision: number;
      approvedBy: string[];
    }
  | { kind: "delete"; mergeSha: string; mergeMethod: MergeMethod; approvedBy: string[] }
  /** Delete the tag, only while it points at `commit`; the pull request is closed, never merged. */
  | { kind: "delete-revision"; tag: string; commit: string; approvedBy: string[] }
  | { kind: "refuse"; reasons: string[]; message: string };

const short = (sha: string) => sha.slice(0, 7);

/**
 * Whether approving a proposal publishes it now. Porch's rule: only a Proposed revision is published,
 * by someone allowed to approve. Here that means an open, ready pull request; an approver with write
 * permission; the head that was reviewed still the head; `porchlight/render` and
 * `porchlight/guardrails` green on that head; enough approvals of that head from people with write
 * permission other than the author; and no one with write permission asking for changes. A refusal
 * lists every reason at once, written for the person who tried.
 */
export function decidePublish(input: PublishInput): PublishDecision {
  const { pullRequest: pr, trigger } = input;
  if (pr.merged) return refuse([`this proposal is already merged; ${input.package} is published`]);
  if (pr.state !== "open") return closedRefusal();
  if (pr.draft) {
    return refuse(["this pull request is a draft: mark it ready for review to propose the revision first"]);
  }
  if (!hasPermission(trigger.permission, "write")) {
    const have = trigger.permission === "none" ? "no permission" : `${trigger.permission} permission`;
    return refuse([
      `@${trigger.user}, publishing needs write permission on this repository; you have ${have}`,
    ]);
  }

  const reasons: string[] = [];
  const seen = trigger.kind === "review" ? trigger.commitId : trigger.seenSha;
  if (seen !== undefined && seen !== pr.headSha) {
    reasons.push(
      `a newer push (${short(pr.headSha)}) arrived after the review of ${short(seen)}; review again`,
    );
  }
  if (!input.deletesRevision) reasons.push(...checkProblems(input.checkRuns, pr.headSha));

  const { approvers, blockers } = tallyReviews(input.reviews, pr.headSha, pr.author);
  const callerCounts =
    trigger.user !== pr.author || (trigger.kind === "command" && trigger.callerApproves === true);
  if (callerCounts && (seen === undefined || seen === pr.headSha)) approvers.add(trigger.user);
  for (const user of blockers) {
    if (!approvers.has(user))
      reasons.push(`@${user} requested changes; they need to approve, or their review dismissed`);
  }
  if (approvers.size < input.requiredApprovals) {
    const who =
      approvers.size === 0
        ? "none yet"
        : `${approvers.size}: ${[...approvers].map((u) => `@${u}`).join(", ")}`;
    const needed = input.requiredApprovals === 1 ? "1 approval" : `${input.requiredApprovals} approvals`;
    reasons.push(
      `needs ${needed} of ${short(pr.headSha)} from people with write permission other than the author (${who})`,
    );
  }
  if (reasons.length > 0) return refuse(reasons);

  const approvedBy = [...approvers].sort();
  if (input.deletesRevision) return { kind: "delete-revision", ...input.deletesRevision, approvedBy };
  if (pr.labels.includes(DELETION_LABEL)) {
    return { kind: "delete", mergeSha: pr.headSha, mergeMethod: input.mergeMethod, approvedBy };
  }
  return {
    kind: "publish",
    mergeSha: pr.headSha,
    mergeMethod: input.mergeMethod,
    tag: formatRevisionTag({ package: input.package, revision: input.nextRevision }),
    revision: input.nextRevision,
    approvedBy,
  };
}

/** The refusal of a closed pull request's publish (found closed by the decision, or by the merge after it). */
export function closedRefusal(): PublishDecision & { kind: "refuse" } {
  return refuse(["this pull request is closed; reopen it to propose the revision again"]);
}

function refuse(reasons: string[]): PublishDecision & { kind: "refuse" } {
  const message =
    reasons.length === 1
      ? `Not published: ${reasons[0]}.`
      : `Not published:\n${reasons.map((r) => `- ${r}`).join("\n")}`;
  return { kind: "refuse", reasons, message };
}

/** The required checks that are not green on the head, each with what is wrong. */
function checkProblems(runs: readonly CheckRunInfo[], headSha: string): string[] {
  const problems: string[] = [];
  for (const name of REQUIRED_CHECKS) {
    const latest = runs
      .filter((r) => r.name === name && r.headSha === headSha)
      .reduce<CheckRunInfo | undefined>((a, b) => (!a || b.id > a.id ? b : a), undefined);
    if (!latest || latest.externalId === SUPERSEDED_CHECK)
      problems.push(`${name} has not run on ${short(headSha)} yet`);
    else if (latest.status !== "completed") problems.push(`${name} is still running`);
    else if (!passes(latest.conclusion))
      problems.push(`${name} is not green (${latest.conclusion ?? "no conclusion"})`);
  }
  return problems;
}

/**
 * Each reviewer's latest approving or change-requesting review counts, as on GitHub. Approvals count
 * only on the current head and from people with write permission other than the author.
 */
function tallyReviews(
  reviews: readonly ReviewInfo[],
  headSha: string,
  author: string,
): { approvers: Set<string>; blockers: Set<string> } {
  const latest = new Map<string, ReviewInfo>();
  for (const r of reviews) {
    if (r.state === "APPROVED" || r.state === "CHANGES_REQUESTED" || r.state === "DISMISSED")
      latest.set(r.user, r);
  }
  const approvers = new Set<string>();
  const blockers = new Set<string>();
  for (const r of latest.values()) {
    if (r.user === author || !hasPermission(r.permission, "write")) continue;
    if (r.state === "APPROVED" && r.commitId === headSha) approvers.add(r.user);
    if (r.state === "CHANGES_REQUESTED") blockers.add(r.user);
  }
  return { approvers, blockers };
}
