import { basename } from "node:path/posix";
import { generatePackageContext } from "../../kpt/package-context.js";
import { subtree } from "../../kpt/tree.js";
import { clonedPackage } from "../../merge/index.js";
import type { FanoutAction, PackageVariant } from "../../variants/index.js";
import type { FanoutContext } from "./context.js";
import { injectableResources } from "./injectables.js";
import { mutateAndRender } from "./mutate-render.js";
import type { PackageContent, UpstreamSource } from "./update.js";

type CloneAction = Extract<FanoutAction, { kind: "clone" }>;

/**
 * A downstream that does not exist yet: the upstream revision as `kpt pkg get` writes it (upstream and
 * upstreamLock naming the upstream tag and commit) — with `--for-deployment` in a deployment repository,
 * as Porch's clone task there: its package context names the downstream package —, the variant applied (labels and annotations too, as
 * Porch sets them only on creation), rendered.
 */
export async function buildClone(
  ctx: FanoutContext,
  input: {
    action: CloneAction;
    variant: PackageVariant;
    upstream: UpstreamSource;
    downstreamTree: Map<string, Buffer>;
    /** The downstream is a deployment repository: the package context is generated anew (Porch's clone). */
    deployment?: boolean;
  },
): Promise<PackageContent> {
  const { action, upstream } = input;
  const cloned = clonedPackage(await upstream.target(), upstream.lock, basename(action.downstream.package));
  const tree = input.deployment ? generatePackageContext(cloned) : cloned;
  const finished = await mutateAndRender(ctx, {
    tree,
    variant: input.variant,
    mode: "clone",
    injectable: injectableResources(input.downstreamTree, input.variant),
    where: `${action.downstream.repo}/${action.downstream.package}`,
  });
  return {
    tree: finished.tree,
    conflicts: [],
    merged: [...finished.tree.keys()]
      .sort()
      .map((file) => ({ file: `${action.downstream.package}/${file}`, change: "added" as const })),
    variantChanges: finished.variantChanges,
    findings: finished.findings,
    previous: subtree(input.downstreamTree, action.downstream.package),
  };
}
