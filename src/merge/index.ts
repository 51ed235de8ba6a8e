import type { FileTree } from "../kpt/tree.js";
import { formatKptfile } from "./kptfile.js";
import { KPTFILE } from "./layout.js";
import { normalizedFiles, readKptfile } from "./package-merge.js";
import { copyMerge, fastForward, forceDeleteReplace } from "./strategies/replace.js";
import { resourceMerge } from "./strategies/resource-merge.js";
import {
  MergeError,
  type MergeInput,
  type MergeResult,
  STRATEGIES,
  type StrategyResult,
  type UpdateStrategy,
} from "./types.js";

export { clonedPackage } from "./clone.js";
export { diffFileTrees, formatDiff, type PackageDiff } from "./diff.js";
export { conflictMarkers, conflictRegions } from "./markers.js";
export { mergeText } from "./text3.js";
export * from "./types.js";
export {
  type UpstreamInfo,
  upstreamOf,
} from "./upstream.js";

import { recordUpstream } from "./upstream.js";

const STRATEGY_TABLE: Record<UpdateStrategy, (input: MergeInput) => StrategyResult> = {
  "resource-merge": resourceMerge,
  "fast-forward": fastForward,
  "force-delete-replace": forceDeleteReplace,
  "copy-merge": copyMerge,
};

export function isStrategy(name: string): name is UpdateStrategy {
  return (STRATEGIES as readonly string[]).includes(name);
}

/**
 * `kpt pkg update` as a pure function of three package trees (paths relative to the package root):
 * the original upstream the local copy was cloned from, the new upstream, and the local package.
 * Returns the new local tree, the conflicts (non-KRM files changed on both sides; their text carries
 * conflict markers) and what changed. Throws MergeError where kpt refuses.
 */
export function mergePackage(input: MergeInput): MergeResult {
  if (!input.local.has(KPTFILE)) {
    throw new MergeError(
      "the local package has no Kptfile; only a package fetched with pkg get can be updated",
    );
  }
  const strategy = input.strategy ?? "resource-merge";
  const run = STRATEGY_TABLE[strategy];
  if (!run) throw new MergeError(`unknown update strategy "${strategy}"; known: ${STRATEGIES.join(", ")}`);
  const { formatted, ...result } = run(input);
  const tree = withMergeComments(result.tree, formatted);
  if (input.lock) {
    const kf = readKptfile(tree, KPTFILE);
    recordUpstream(kf, input.lock);
    tree.set(KPTFILE, Buffer.from(formatKptfile(kf)));
  }
  return { ...result, tree };
}

/** kpt's last step of every update: every resource file rewritten with its merge comments. */
function withMergeComments(tree: FileTree, formatted: ReadonlySet<string> = new Set()): FileTree {
  const rest: FileTree = new Map([...tree].filter(([p]) => !formatted.has(p)));
  const normalized = normalizedFiles(rest);
  const out: FileTree = new Map();
  for (const [p, b] of tree) {
    const t = normalized.get(p);
    out.set(p, t !== undefined && t !== b.toString("utf8") ? Buffer.from(t) : b);
  }
  return out;
}
