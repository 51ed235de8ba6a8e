import type { RepoFiles } from "../../github/port.js";
import { publishedWorkspace } from "../../lifecycle/kpt-trailer.js";
import type { PackageBranch } from "../../lifecycle/package-branch.js";
import { indexRefs, type RefInfo } from "../../lifecycle/refs.js";
import { parseRevisionTag } from "../../lifecycle/revision-tag.js";
import { variantWorkspace } from "../../lifecycle/variant-branch.js";

/**
 * The workspace the revision a proposal publishes keeps for life, written into the merge commit's `kpt:`
 * line: a draft's own; a fan-out draft's, its variant's name as the listing names the draft
 * (variantWorkspace, against the workspaces of the package's published revisions: their tagged commits'
 * `kpt:` lines, one read of their messages), so the revision keeps the name it had as a draft.
 */
export async function publishedWorkspaceOf(
  port: Pick<RepoFiles, "commitMessages">,
  refs: readonly RefInfo[],
  draft: PackageBranch,
): Promise<string> {
  if (draft.variant === undefined) return draft.workspace;
  const tags = [...indexRefs(refs).tags].flatMap(([tag, sha]) => {
    const parsed = parseRevisionTag(tag);
    return parsed.ok && parsed.value.package === draft.package
      ? [{ sha, revision: parsed.value.revision }]
      : [];
  });
  const messages = tags.length > 0 ? await port.commitMessages(tags.map((t) => t.sha)) : new Map();
  const taken = tags.map(
    (t) => publishedWorkspace(messages.get(t.sha) ?? "", draft.package) ?? `v${t.revision}`,
  );
  return variantWorkspace(draft.variant, taken);
}
