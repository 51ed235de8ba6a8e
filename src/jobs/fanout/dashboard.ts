import type { RepoConversation } from "../../github/port.js";
import {
  DASHBOARD_MARKER,
  DASHBOARD_TITLE,
  type FanoutAction,
  type PackageVariant,
  type RolloutStatus,
  renderDashboard,
  type VariantProblem,
} from "../../variants/index.js";
import { DASHBOARD_LABEL } from "./context.js";

/**
 * The dashboard issue of the management (by default the upstream) repository, edited in place: one row
 * per downstream as this run left it, the Mermaid graph, the problems in the variant files. An unchanged
 * dashboard is not written.
 */
export async function writeDashboard(
  port: RepoConversation,
  input: {
    variants: readonly PackageVariant[];
    actions: readonly FanoutAction[];
    problems: readonly VariantProblem[];
    owners: ReadonlyMap<string, string>;
    /** Repositories of other installations holding downstreams, for the next run (a hidden marker). */
    elsewhere?: readonly string[];
    /** A downstream package's own latest revision, from its repository's tags as this run read them. */
    published?: (repo: string, pkg: string) => string | undefined;
    rollouts?: readonly RolloutStatus[];
  },
): Promise<{ number: number; action: "created" | "updated" | "unchanged" }> {
  const body = renderDashboard({
    variants: input.variants,
    plan: { actions: [...input.actions] },
    problems: input.problems,
    pullRequestLink: (repo, n) => `${input.owners.get(repo) ?? repo}#${n}`,
    published: (repo, pkg) => input.published?.(repo, pkg),
    ...(input.rollouts ? { rollouts: input.rollouts } : {}),
    ...(input.elsewhere ? { elsewhere: input.elsewhere } : {}),
  });
  return port.ensureIssue({
    marker: DASHBOARD_MARKER,
    label: DASHBOARD_LABEL,
    title: DASHBOARD_TITLE,
    body,
  });
}
