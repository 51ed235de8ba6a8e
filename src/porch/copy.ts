import { createDraft, newDraftBranch } from "./drafts.js";
import { PorchError } from "./errors.js";
import { nameOf, refNameOf, refusePlaceholder } from "./names.js";
import { revisionOf } from "./open.js";
import type { Repository } from "./repository.js";
import type { OpEnv } from "./steps.js";

/**
 * Creates a new revision of a package from a published one, as Porch's edit task (`rpkg copy`): a draft
 * of the source's package in `workspace` whose files are the source revision's. `source` is the revision
 * as the caller named it (their words in a refusal). Answers the new revision's name.
 */
export async function copy(
  env: OpEnv,
  args: { repository: string | Repository; source: string; workspace: string },
): Promise<{ name: string }> {
  const { source, workspace } = args;
  const { repo, state, rev } = await revisionOf(env, args.repository, "copy", source);
  // Porch's copy is an edit task; its source is never the placeholder
  refusePlaceholder("source revision", repo, rev);
  if (rev.lifecycle !== "Published" && rev.lifecycle !== "DeletionProposed") {
    throw new PorchError(
      "bad-request",
      `${source} is ${rev.lifecycle}: only a published revision can be copied; publish it first (\`porchlight rpkg propose\`, then \`approve\`) or keep editing the draft`,
    );
  }
  const branch = newDraftBranch(repo, state, rev.package, workspace);
  const step = env.progress.step(`Copying ${refNameOf(rev)} to ${branch}`);
  const { tree } = await repo.conn.port.readTree(rev.sha, repo.packageDir(rev.package));
  await createDraft(repo, state, {
    branch,
    pkg: rev.package,
    tree,
    message: `Copy ${rev.package} ${refNameOf(rev)} to workspace ${workspace}`,
    // Porch's copy is an edit task naming its source
    task: { type: "edit", edit: { sourceRef: { name: nameOf(repo, rev) } } },
  });
  step.done();
  return { name: nameOf(repo, { package: rev.package, workspace }) };
}
