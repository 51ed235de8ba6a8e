import type { FileTree } from "../kpt/tree.js";
import { PorchError } from "./errors.js";
import { nameOf } from "./names.js";
import { packageRevisionObject } from "./objects.js";
import { revisionOf } from "./open.js";
import type { Repository } from "./repository.js";
import { REVISION_METADATA_FILE, revisionMetadata } from "./resources.js";
import type { OpEnv } from "./steps.js";

/**
 * Reads a revision's files, as Porch's PackageRevisionResources hold them, with `.KptRevisionMetadata`
 * naming the version they were read at (which a push from them must find the draft still at). Answers
 * the revision's name and its files.
 */
export async function pull(
  env: OpEnv,
  args: { repository: string | Repository; name: string },
): Promise<{ name: string; tree: FileTree }> {
  const { repo, rev } = await revisionOf(env, args.repository, "pull", args.name);
  const name = nameOf(repo, rev);
  const step = env.progress.step(`Reading ${name}`);
  const { tree } = await repo.conn.port.readTree(rev.sha, repo.packageDir(rev.package));
  if (tree.size === 0) {
    step.fail();
    throw new PorchError(
      "bad-request",
      `${name} has no files at ${repo.packageDir(rev.package)} on ${rev.ref} in ${repo.full}`,
    );
  }
  const meta = packageRevisionObject(repo, rev).metadata;
  tree.set(REVISION_METADATA_FILE, Buffer.from(revisionMetadata({ ...meta, resourceVersion: rev.sha })));
  step.done(`${tree.size - 1} files`);
  return { name, tree };
}
