import type { RepoFiles } from "../../github/port.js";
import { publishedWorkspace } from "../../lifecycle/kpt-trailer.js";
import type { PackageBranch } from "../../lifecycle/package-branch.js";
import { indexRefs, type RefInfo } from "../../lifecycle/refs.js";
import { parseRevisionTag } from "../../lifecycle/revision-tag.js";
import { variantWorkspace } from "../../lifecycle/variant-branch.js";

/**
 * Each published revision of `pkg` (its tag `pkg/vN`) with the workspace it is named by: its tagged
 * commit's `kpt:` line (publishedWorkspace; one read of the commits' messages), else `v<N>`.
 */
export async function publishedRevisionsOf(
  port: Pick<RepoFiles, "commitMessages">,
  refs: readonly RefInfo[],
  pkg: string,
): Promise<{ sha: string; workspace: string }[]> {
  const tags = [...indexRefs(refs).tags].flatMap(([tag, sha]) => {
    const parsed = parseRevisionTag(tag);
    return parsed.ok && parsed.value.package === pkg ? [{ sha, revision: parsed.value.revision }] : [];
  });
  const messages = tags.length > 0 ? await port.commitMessages(tags.map((t) => t.sha)) : new Map();
  return tags.map((t) => ({
    sha: t.sha,
    workspace: publishedWorkspace(messages.get(t.sha) ?? "", pkg) ?? `v${t.revision}`,
  }));
}

/**
 * The workspace the revision a proposal publishes keeps for life, written into the merge commit's `kpt:`
 * line: a draft's own; a fan-out draft's, its variant's name as the listing names the draft
 * (variantWorkspace, against the workspaces of the package's published revisions), so the revision keeps
 * the name it had as a draft.
 */
export async function publishedWorkspaceOf(
  port: Pick<RepoFiles, "commitMessages">,
  refs: readonly RefInfo[],
  draft: PackageBranch,
): Promise<string> {
  if (draft.variant === undefined) return draft.workspace;
  const published = await publishedRevisionsOf(port, refs, draft.package);
  return variantWorkspace(
    draft.variant,
    published.map((r) => r.workspace),
  );
}
