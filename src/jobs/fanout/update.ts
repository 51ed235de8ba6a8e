import { type FileTree, subtree } from "../../kpt/tree.js";
import {
  isStrategy,
  MergeError,
  type MergeResult,
  type UpstreamLock,
  upstreamOf,
} from "../../merge/index.js";
import {
  type FanoutAction,
  type PackageVariant,
  revisionLabel,
  type VariantChange,
  type VariantPullRequest,
} from "../../variants/index.js";
import { WorkerStopped, WorkTookTooLong } from "../bounded/errors.js";
import { inProcessEngine } from "../package-engine.js";
import type { RenderFinding } from "../renderer.js";
import { type FanoutContext, FanoutStepError } from "./context.js";
import { injectableResources } from "./injectables.js";
import { mutateAndRender } from "./mutate-render.js";

type UpdateAction = Extract<FanoutAction, { kind: "update" }>;

/**
 * Where a clone or update reads its upstream: a tag of a repository of the installation, or an OCI image
 * by digest (package-relative trees, cached per run by the executor).
 */
export interface UpstreamSource {
  /** The package at the action's target revision or digest. */
  target(): Promise<FileTree>;
  /** The package the downstream `local` was fetched from, by its Kptfile's lock (empty when it names none). */
  original(local: FileTree, where: string): Promise<FileTree>;
  /** What the downstream Kptfile records of the target. */
  lock: UpstreamLock;
}

/** The new content of a downstream package and what the pull request says about it. */
export interface PackageContent {
  tree: FileTree;
  conflicts: NonNullable<VariantPullRequest["conflicts"]>;
  merged: NonNullable<VariantPullRequest["merged"]>;
  variantChanges: VariantChange[];
  /** Fields where upstream's value replaced a local edit (updates only). */
  replacedLocal?: NonNullable<VariantPullRequest["replacedLocal"]>;
  /** The package as it is on the base branch. */
  previous: FileTree;
  /** The pipeline's results on the package as rendered for the branch. */
  findings: readonly RenderFinding[];
}

/**
 * An existing downstream: the new upstream revision 3-way merged into it (kpt's resource-merge, or the
 * strategy its Kptfile records) against the revision it was cloned from, the variant applied again,
 * rendered. Conflicts in non-KRM files stay in the files with markers and are listed with file and lines.
 */
export async function buildUpdate(
  ctx: FanoutContext,
  input: {
    action: UpdateAction;
    variant: PackageVariant;
    upstream: UpstreamSource;
    downstreamTree: FileTree;
  },
): Promise<PackageContent> {
  const { action, upstream } = input;
  const where = `${action.downstream.repo}/${action.downstream.package}`;
  const local = subtree(input.downstreamTree, action.downstream.package);
  let result: MergeResult;
  try {
    const recorded = upstreamOf(local, where).strategy ?? "resource-merge";
    result = await (ctx.engine ?? inProcessEngine).merge({
      original: await upstream.original(local, where),
      updated: await upstream.target(),
      local,
      strategy: isStrategy(recorded) ? recorded : "resource-merge",
      lock: upstream.lock,
    });
  } catch (e) {
    if (e instanceof MergeError || e instanceof WorkTookTooLong || e instanceof WorkerStopped)
      throw new FanoutStepError(`merging ${revisionLabel(action.to)} into ${where}: ${e.message}`);
    throw e;
  }
  const finished = await mutateAndRender(ctx, {
    tree: result.tree,
    variant: input.variant,
    mode: "update",
    injectable: injectableResources(input.downstreamTree, input.variant),
    where,
  });
  const pkg = action.downstream.package;
  const merged = new Map<string, "added" | "modified" | "removed">();
  for (const c of result.changes) {
    if (c.action === "kept") continue;
    const change = c.action === "added" || c.action === "removed" ? c.action : "modified";
    if (!merged.has(c.file) || change !== "modified") merged.set(c.file, change);
  }
  return {
    tree: finished.tree,
    conflicts: result.conflicts.map((c) => ({
      file: `${pkg}/${c.file}`,
      startLine: c.lines[0],
      endLine: c.lines[1],
      detail: c.message,
    })),
    merged: [...merged]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([file, change]) => ({ file: `${pkg}/${file}`, change })),
    variantChanges: finished.variantChanges,
    findings: finished.findings,
    replacedLocal: result.changes.flatMap((c) =>
      (c.replacedLocal ?? []).map((field) => ({
        file: `${pkg}/${c.file}`,
        field,
        ...(c.resource ? { resource: c.resource } : {}),
      })),
    ),
    previous: local,
  };
}
