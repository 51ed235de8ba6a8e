import type { Actor } from "../api/permission.js";
import { hasPermission } from "../api/permission.js";
import type { PullRequestInfo } from "./discover.js";
import { formatDraftBranch } from "./draft-branch.js";
import { DELETION_LABEL } from "./labels.js";
import { parsePackageBranch } from "./package-branch.js";
import { indexRefs, type RefInfo } from "./refs.js";
import { parseDeletionBranch } from "./revision-deletion.js";
import { parseRevisionTag } from "./revision-tag.js";
import { freeWorkspace } from "./rollback.js";

export interface OpenProposal {
  number: number;
  state: "open" | "closed";
  merged: boolean;
  headRef: string;
  labels: readonly string[];
}

export type RejectDecision =
  | {
      kind: "close";
      pullRequest: number;
      /** The draft branch that stays, so the revision is a Draft again (Porch's reject). */
      keepBranch: string;
    }
  | {
      /** A rejected deletion proposal: its branch only carried the proposal, so it goes; the revision stays Published. */
      kind: "close-deletion";
      pullRequest: number;
      deleteBranch: string;
    }
  | { kind: "refuse"; reason: string };

/**
 * `/reject`: a Proposed revision returns to Draft (the pull request closes, its branch stays); a
 * DeletionProposed one returns to Published (the deletion's pull request closes, its branch goes).
 */
export function decideReject(pr: OpenProposal, actor: Actor): RejectDecision {
  if (!hasPermission(actor.permission, "write")) {
    return {
      kind: "refuse",
      reason: `@${actor.login}, \`/reject\` needs write permission on this repository.`,
    };
  }
  if (pr.merged)
    return {
      kind: "refuse",
      reason: "This proposal is already published; a published revision cannot return to draft.",
    };
  if (pr.state !== "open") return { kind: "refuse", reason: "This pull request is already closed." };
  const draft = parsePackageBranch(pr.headRef);
  // A deletion proposal (of a published revision, or of the package on the base branch): its branch
  // goes, the revision stays Published.
  if (pr.labels.includes(DELETION_LABEL) && (draft.ok || parseDeletionBranch(pr.headRef).ok))
    return { kind: "close-deletion", pullRequest: pr.number, deleteBranch: pr.headRef };
  if (!draft.ok) {
    return {
      kind: "refuse",
      reason: `This pull request is not a package proposal: its branch \`${pr.headRef}\` is not a draft (${draft.reason}).`,
    };
  }
  return { kind: "close", pullRequest: pr.number, keepBranch: pr.headRef };
}

export type DeletionPlan =
  | {
      kind: "propose-deletion";
      package: string;
      /** The latest published revision, which becomes DeletionProposed. */
      revision: number;
      /** The branch to create from the base branch, with one commit removing the package directory. */
      branch: string;
      label: typeof DELETION_LABEL;
      title: string;
    }
  | { kind: "refuse"; reason: string };

/**
 * `/propose-delete`: plan the pull request that removes a published package. `onBaseBranch`: the package
 * is on the base branch (its `.<branch>` revision), which is there to remove even when none of its
 * revisions is tagged any more (each deleted on its own, as Porch deletes them).
 */
export function planDeletionProposal(input: {
  package: string;
  refs: readonly RefInfo[];
  pullRequests: readonly PullRequestInfo[];
  onBaseBranch?: boolean;
}): DeletionPlan {
  const { branches, tags } = indexRefs(input.refs);
  let latest = 0;
  for (const tag of tags.keys()) {
    const t = parseRevisionTag(tag);
    if (t.ok && t.value.package === input.package) latest = Math.max(latest, t.value.revision);
  }
  if (latest === 0 && !input.onBaseBranch) {
    return {
      kind: "refuse",
      reason: `${input.package} has no published revision to delete; close its draft instead.`,
    };
  }
  for (const pr of input.pullRequests) {
    const draft = parsePackageBranch(pr.headRef);
    if (draft.ok && draft.value.package === input.package && pr.labels.includes(DELETION_LABEL)) {
      return { kind: "refuse", reason: `Deleting ${input.package} is already proposed in #${pr.number}.` };
    }
  }
  const workspace = freeWorkspace(
    input.package,
    latest === 0 ? "delete" : `delete-v${latest}`,
    branches.keys(),
  );
  return {
    kind: "propose-deletion",
    package: input.package,
    revision: latest,
    branch: formatDraftBranch({ package: input.package, workspace }),
    label: DELETION_LABEL,
    title: `Delete package ${input.package}`,
  };
}
