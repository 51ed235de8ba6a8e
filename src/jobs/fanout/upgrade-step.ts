import { type Catalog, upgradePath } from "../../catalog/index.js";

/** A channel follower's way to the channel head, when it crosses revisions in between. */
export interface UpgradeStep {
  channel: string;
  /** The upgrade path, deployed revision first, channel head last. */
  path: string[];
}

/**
 * A variant following a channel goes to the channel's head; the way there along the channel's upgrade
 * graph, as operator-registry resolves it (from the deployed revision, each step to an entry that replaces
 * or skips the previous one or whose skipRange covers it, onto a skipped entry only when nothing else leads
 * on), is what its pull request crosses. Returns the path
 * when it passes revisions between the deployed one and the head; undefined otherwise (or when the
 * deployed revision is not in the channel).
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
  const crossed = step.path.slice(1, -1).join(", ");
  return `Upgrade path in channel \`${step.channel}\`: ${step.path.join(" → ")}. This pull request goes to the head, taking in ${crossed} on the way.`;
}
