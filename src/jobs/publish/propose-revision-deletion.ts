import type { CommitAuthor, PullRequest, RepoPort } from "../../github/port.js";
import { DELETION_LABEL } from "../../lifecycle/labels.js";
import {
  formatDeletionBranch,
  formatDeletionProposal,
  type RevisionDeletion,
} from "../../lifecycle/revision-deletion.js";
import { formatRevisionTag } from "../../lifecycle/revision-tag.js";

/** What proposing a published revision's deletion came to. */
export type ProposedRevisionDeletion =
  | { kind: "proposed"; pull: PullRequest; branch: string; tag: string }
  /** Another request pushed the branch first (it did not exist when asked). */
  | { kind: "raced"; branch: string };

/**
 * The proposal to delete one published revision (lifecycle/revision-deletion.ts), as `rpkg
 * propose-delete` and `/propose-delete v2` both make it: branch `deletionProposed/<package>/<ws>`, one
 * empty commit on the tagged commit (pushed only if no other request pushes it first), and a pull
 * request from it into the base branch, labelled `porchlight/deletion`, naming the tag and its commit.
 * `branchExists`: the branch is there already (Porch's own proposal, or a run that crashed before its
 * pull request), and the pull request is opened from it as it is. Approved, the publish job deletes the
 * tag (delete-revision.ts).
 */
export async function proposeRevisionDeletion(
  port: Pick<RepoPort, "readTree" | "commitTree" | "createPull" | "addLabels">,
  input: RevisionDeletion & {
    baseBranch: string;
    author: CommitAuthor;
    branchExists?: boolean;
    /** A last paragraph for the pull request's body (where the proposal came from). */
    note?: string;
  },
): Promise<ProposedRevisionDeletion> {
  const tag = formatRevisionTag(input);
  const branch = formatDeletionBranch(input);
  if (!input.branchExists) {
    const { tree } = await port.readTree(input.commit, input.package);
    const pushed = await port.commitTree({
      branch,
      parent: input.commit,
      dir: input.package,
      tree,
      allowEmpty: true,
      message: `Propose deleting revision ${tag}`,
      author: input.author,
      exclusive: true,
    });
    if (!pushed.ok) return { kind: "raced", branch };
  }
  const proposal = formatDeletionProposal(input);
  const body = input.note ? `${proposal.body}\n\n${input.note}` : proposal.body;
  const pull = await port.createPull({ head: branch, base: input.baseBranch, title: proposal.title, body });
  await port.addLabels(pull.number, [DELETION_LABEL]);
  return { kind: "proposed", pull, branch, tag };
}
