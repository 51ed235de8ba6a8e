import { readTree } from "../../kpt/tree.js";
import { diffFileTrees, type PackageDiff, upstreamOf } from "../../merge/index.js";
import { openUpstream, type UpstreamOptions } from "../../porch/upstream.js";
import { checkLocalKptfile, upstreamTrees } from "./update.js";

/** `pkg diff`: local changes since the package was fetched, and upstream changes up to `ref`. */
export async function diffPackage(
  dir: string,
  ref?: string,
  opts: UpstreamOptions = {},
): Promise<PackageDiff> {
  const local = await readTree(dir);
  checkLocalKptfile(local, dir);
  const up = upstreamOf(local, dir);
  const target = ref ?? up.ref;
  const upstream = await openUpstream(up.repo, opts);
  try {
    const { original, updated, commit } = await upstreamTrees(upstream, up, target);
    return {
      ref: target,
      commit,
      local: diffFileTrees(original, local, (p) => p === "Kptfile"),
      upstream: diffFileTrees(original, updated, () => false),
    };
  } finally {
    await upstream.close();
  }
}
