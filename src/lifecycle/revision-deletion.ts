import { DELETION_LABEL } from "./labels.js";
import { packagePathProblem } from "./package-path.js";
import { parsePorchBranch } from "./porch-branch.js";
import { type Parsed, parsed, rejected } from "./result.js";
import { formatRevisionTag, parseRevisionTag } from "./revision-tag.js";
import { workspaceProblem } from "./workspace.js";

/**
 * A proposal to delete one published revision: its tag, reviewed on GitHub. The branch is Porch's own
 * `deletionProposed/<package>/<workspace>` (so Porch, reading the repository, sees the revision
 * DeletionProposed too), one empty commit on the tagged commit: a pull request from it into the base
 * branch changes no file, is labelled `porchlight/deletion`, and its body names the tag and the commit
 * it must still point at (a hidden marker). Approving it deletes the tag — only if it still points
 * there — then the branch, then closes the pull request unmerged; rejecting it closes the pull request
 * and deletes the branch. Each step is done only if missing, so a crash or a second delivery ends in
 * the same place.
 */
export interface RevisionDeletion {
  package: string;
  workspace: string;
  /** The published revision number: the tag is `<package>/v<revision>`. */
  revision: number;
  /** The commit the tag points at when the deletion was proposed. */
  commit: string;
}

const DELETION_BRANCH_PREFIX = "deletionProposed/";
const MARKER = /<!-- porchlight:delete-revision tag=(\S+) commit=([0-9a-f]{40}) -->/;

/** The branch of a published revision's deletion proposal: `deletionProposed/<package>/<workspace>`. */
export function formatDeletionBranch(rev: Pick<RevisionDeletion, "package" | "workspace">): string {
  const problem = packagePathProblem(rev.package) ?? workspaceProblem(rev.workspace);
  if (problem) throw new Error(`cannot name a deletion proposal's branch: ${problem}`);
  return `${DELETION_BRANCH_PREFIX}${rev.package}/${rev.workspace}`;
}

/** The package and workspace a `deletionProposed/…` branch names. */
export function parseDeletionBranch(branch: string): Parsed<{ package: string; workspace: string }> {
  const porch = parsePorchBranch(branch);
  if (!porch.ok) return porch;
  if (porch.value.kind !== "DeletionProposed")
    return rejected(`"${branch}" is no deletionProposed/<package>/<workspace> branch`);
  return parsed({ package: porch.value.package, workspace: porch.value.workspace });
}

/** The deletion proposal's pull request: title and body, the body ending in the marker parsed back. */
export function formatDeletionProposal(rev: RevisionDeletion): { title: string; body: string } {
  const tag = formatRevisionTag(rev);
  return {
    title: `Delete revision ${tag} (${rev.workspace})`,
    body: [
      `Proposes deleting the published revision \`${tag}\` of package \`${rev.package}\` (workspace \`${rev.workspace}\`): its tag, and nothing else. The package's other revisions and the base branch stay as they are; this pull request changes no file and is never merged.`,
      "",
      "Approve it (an approving review, `/approve`, or `porchlight rpkg approve`/`del`) to delete the tag; `/reject` or closing it keeps the revision.",
      "",
      `<!-- porchlight:delete-revision tag=${tag} commit=${rev.commit} -->`,
    ].join("\n"),
  };
}

/** The revision a deletion proposal names, from its branch and body; undefined for any other pull request. */
export function parseDeletionProposal(pr: {
  headRef: string;
  body: string | null;
  labels: readonly string[];
}): RevisionDeletion | undefined {
  if (!pr.labels.includes(DELETION_LABEL)) return undefined;
  const branch = parseDeletionBranch(pr.headRef);
  const marker = MARKER.exec(pr.body ?? "");
  if (!branch.ok || !marker?.[1] || !marker[2]) return undefined;
  const tag = parseRevisionTag(marker[1]);
  if (!tag.ok || tag.value.package !== branch.value.package) return undefined;
  return { ...branch.value, revision: tag.value.revision, commit: marker[2] };
}
