import type { PullRequest, RepoFiles } from "../../github/port.js";
import { DELETED_LABEL, DELETION_LABEL } from "../../lifecycle/labels.js";
import { parsePackageBranch } from "../../lifecycle/package-branch.js";
import { indexRefs, type RefInfo } from "../../lifecycle/refs.js";
import { formatRevisionTag, parseRevisionTag } from "../../lifecycle/revision-tag.js";
import { conflictMarkers } from "../../merge/index.js";
import { parseVariantPullRequestBody } from "../../variants/index.js";
import { recordDeleted } from "../catalog/withdraw.js";
import { afterAnswer, type JobContext } from "../context.js";
import { isDeletedPublish } from "./deleted-mark.js";
import { ensureRevisionTag } from "./tag.js";

export type FinishedPublish =
  | {
      kind: "published";
      package: string;
      revision: number;
      tag: string;
      mergeSha: string;
      /** The pull request was merged before this job's merge (a run again, the bot, another approve). */
      alreadyMerged?: boolean;
    }
  /** A package removed from the base branch (merged), or with `tag` one published revision deleted. */
  | { kind: "deleted"; package: string; mergeSha: string; tag?: string }
  | { kind: "refused"; message: string };

/**
 * What follows the merge of a proposal, each step done only if missing, so a run after a crash
 * finishes the job: the revision tag on the merge commit, the fan-out job recorded in the job's outbox,
 * then the draft branch deleted, as Porch's published revision has no draft left (GitHub's "delete
 * branch on merge") — once the job has answered and its follow-ups are queued (`afterAnswer`,
 * withDeferred). The branch is the marker of an unfinished publish, answer and fan-out included: while
 * it still points at the merged head, the fan-out is recorded again (the fan-out job is idempotent), so
 * a crash between tagging and queueing loses nothing. A branch that moved after the merge holds new
 * work: it stays, a draft again.
 *
 * A merge labelled `porchlight/deleted` whose tag is gone is never tagged again: its revision was
 * deleted on purpose (deleted-mark.ts), and a draft branch left at its head is deleted.
 *
 * Without `refs` (a run after the merge, not the one that merged), an untagged merge older than the
 * package's latest revision is not tagged: a later publish already contains it, and a higher number
 * on older content would roll the package back. Nor is a merge whose package holds conflict markers
 * (merged past the failing check): markers never reach a published revision.
 */
export async function finishPublish(
  ctx: JobContext,
  input: {
    pr: PullRequest;
    package: string;
    mergeSha: string;
    deletion: boolean;
    refs?: RefInfo[];
    /**
     * Announce the publish even when another hand tagged the merge and deleted the draft first (`rpkg
     * approve`, a person): the merge's own event, delivered once, is where that publish is announced.
     */
    announce?: boolean;
  },
): Promise<FinishedPublish> {
  const { pr, package: pkg, mergeSha } = input;
  const refs = input.refs ?? (await ctx.port.listRefs());
  const branchLeft = indexRefs(refs).branches.get(pr.headRef) === pr.headSha;
  const deleteDraft = () => ctx.port.deleteBranch(pr.headRef);
  const draftKey = `delete-draft:${pr.headRef}`;
  if (input.deletion) {
    // The catalog says so at once: its followers (fan-out, `catalog list`) learn no revision will come.
    const recorded = await recordDeleted(ctx.port, {
      package: pkg,
      pullRequest: pr.number,
      commit: mergeSha,
      author: ctx.bot.author,
    });
    if (recorded.kind === "refused")
      ctx.log.warn(
        { pr: pr.number, package: pkg, why: recorded.message },
        "deletion not recorded in the catalog",
      );
    if (branchLeft) await afterAnswer(ctx, draftKey, deleteDraft);
    return { kind: "deleted", package: pkg, mergeSha };
  }
  // Published once and deleted since (deleted-mark.ts): never tagged again, by any door.
  if (isDeletedPublish(pr) && !tagOn(pkg, mergeSha, refs)) {
    if (branchLeft) await afterAnswer(ctx, draftKey, deleteDraft);
    ctx.log.debug({ pr: pr.number, commit: mergeSha }, "merged proposal's revision deleted; not tagged");
    return {
      kind: "refused",
      message: `Not published: #${pr.number} published a revision that was deleted since (the pull request is labelled \`${DELETED_LABEL}\`). To publish this content again, remove the label and approve again, or propose it anew.`,
    };
  }
  if (!input.refs) {
    const later = await laterRevision(ctx.port, pkg, mergeSha, refs);
    if (later) {
      if (branchLeft) await afterAnswer(ctx, draftKey, deleteDraft);
      ctx.log.warn({ pr: pr.number, later, commit: mergeSha }, "merged proposal superseded; not tagged");
      return {
        kind: "refused",
        message: `Not published: #${pr.number} was merged, but \`${later}\` was published after it and already contains it.`,
      };
    }
    // Merged by someone past a failing check (GitHub's merge button): conflict markers never get a tag.
    const markers = conflictMarkers((await ctx.port.readTree(mergeSha, pkg)).tree);
    if (markers.length > 0 && !tagOn(pkg, mergeSha, refs)) {
      const where = markers.map((m) => `\`${pkg}/${m.file}\` line ${m.startLine}`).slice(0, 10);
      ctx.log.warn(
        { pr: pr.number, commit: mergeSha, markers: markers.length },
        "merge holds conflict markers; not tagged",
      );
      return {
        kind: "refused",
        message: `Not published: #${pr.number} was merged with unresolved conflict markers (${where.join(", ")}${markers.length > where.length ? ", …" : ""}); remove them in a new proposal and publish that.`,
      };
    }
  }
  // Where nothing defers (the command line, Porch's API: no queue, no outbox to wait for), the draft
  // goes in the tag's own push: one git push, none of the caller's REST budget.
  const dropping = branchLeft && !ctx.defer ? { branch: pr.headRef, at: pr.headSha } : undefined;
  const tag = await ensureRevisionTag(ctx.port, pkg, mergeSha, refs, dropping);
  // The first finish of this publish in the job (answering it again within the job finds the branch
  // still there: its deletion is already queued, and the fan-out already recorded).
  const finishing = branchLeft && (ctx.defer ? ctx.defer(draftKey, deleteDraft) : true);
  if (tag.created || finishing || input.announce) {
    ctx.log.info({ pr: pr.number, tag: tag.tag, commit: mergeSha, again: !tag.created }, "published");
    ctx.outbox.add({
      task: "fanout-published",
      target: { kind: "here" },
      event: {
        repo: ctx.port.id,
        package: pkg,
        revision: tag.revision,
        tag: tag.tag,
        commit: mergeSha,
        ...managementOf(pr),
      },
    });
  }
  if (finishing && !ctx.defer && !tag.created) await deleteDraft();
  return { kind: "published", package: pkg, revision: tag.revision, tag: tag.tag, mergeSha };
}

/**
 * The package's latest revision tag when it is newer than `mergeSha` (it has commits the merge has
 * not) and `mergeSha` carries no tag of the package; else undefined.
 */
async function laterRevision(
  port: RepoFiles,
  pkg: string,
  mergeSha: string,
  refs: readonly RefInfo[],
): Promise<string | undefined> {
  let latest: { revision: number; sha: string } | undefined;
  for (const [tag, sha] of indexRefs(refs).tags) {
    const parsed = parseRevisionTag(tag);
    if (!parsed.ok || parsed.value.package !== pkg) continue;
    if (sha === mergeSha) return undefined;
    if (!latest || parsed.value.revision > latest.revision) latest = { revision: parsed.value.revision, sha };
  }
  if (!latest) return undefined;
  const ahead = await port.listCommits(mergeSha, latest.sha);
  return ahead.length > 0 ? formatRevisionTag({ package: pkg, revision: latest.revision }) : undefined;
}

/** The management repository a fan-out pull request's marker names (a source upstream's), if any. */
export function managementOf(pr: Pick<PullRequest, "body">): { management?: string } {
  const management = parseVariantPullRequestBody(pr.body)?.management;
  return management ? { management } : {};
}

/** A merged proposal whose publish a crash left unfinished → finished (see finishPublish). */
export async function resumePublish(
  ctx: JobContext,
  pr: PullRequest,
  announce = false,
): Promise<FinishedPublish | undefined> {
  const draft = parsePackageBranch(pr.headRef);
  if (!draft.ok || !pr.merged || !pr.mergeCommitSha) return undefined;
  return finishPublish(ctx, {
    pr,
    package: draft.value.package,
    mergeSha: pr.mergeCommitSha,
    deletion: pr.labels.includes(DELETION_LABEL),
    announce,
  });
}

/** Whether `commit` already carries a revision tag of `pkg` (published before; nothing to refuse). */
export function tagOn(pkg: string, commit: string, refs: readonly RefInfo[]): boolean {
  for (const [tag, sha] of indexRefs(refs).tags) {
    const parsed = parseRevisionTag(tag);
    if (sha === commit && parsed.ok && parsed.value.package === pkg) return true;
  }
  return false;
}
