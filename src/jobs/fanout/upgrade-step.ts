import { type Catalog, upgradePath } from "../../catalog/index.js";

/** A channel follower's way to the channel head, when it takes more than one step. */
export interface UpgradeStep {
  channel: string;
  /** The upgrade path, deployed revision first, channel head last. */
  path: string[];
}

/**
 * A variant following a channel moves along the channel's upgrade graph as operator-registry resolves it:
 * from the revision it is deployed on, one step to an entry that replaces or skips it, the shortest way to
 * the head. A skipped revision is never a step, so `skips` steer which revisions downstreams get. Returns
 * the path when the head is more than one step away; undefined when the next step is the head, or when
 * the deployed revision is not in the channel (the follower goes straight to the head).
 */
export function upgradeStep(
  catalog: Catalog | undefined,
  pkg: string,
  channel: string,
  deployed: string | undefined,
): UpgradeStep | undefined {
  if (!catalog || !deployed) return undefined;
  const found = upgradePath(catalog, pkg, deployed, channel);
  return found.ok && found.path.length > 2 ? { channel, path: found.path } : undefined;
}

/** The sentence a pull request taking one step of several carries. */
export function upgradeStepNote(step: UpgradeStep): string {
  return `Upgrade path in channel \`${step.channel}\`: ${step.path.join(" → ")}. This pull request takes the first step; once it is merged, fan-out proposes the next.`;
}
