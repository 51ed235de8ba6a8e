import { type FileTree, subtree } from "../../kpt/tree.js";
import { isStrategy, MergeError, mergePackage, upstreamOf } from "../../merge/index.js";
import { readKptfileFacts } from "../../variants/downstream-state.js";
import type {
  FanoutAction,
  PackageVariant,
  VariantChange,
  VariantPullRequest,
} from "../../variants/index.js";
import type { RenderFinding } from "../renderer.js";
import { type FanoutContext, FanoutStepError } from "./context.js";
import { injectableResources } from "./injectables.js";
import { mutateAndRender } from "./mutate-render.js";

type UpdateAction = Extract<FanoutAction, { kind: "update" }>;

/** Reads an upstream package at a ref (tag or commit), package-relative; cached per run by the executor. */
export interface UpstreamSource {
  /** The clone URL recorded in the downstream Kptfile. */
  url: string;
  read(ref: string, dir: string): Promise<FileTree>;
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
  const dir = action.upstream.package;
  const facts = readKptfileFacts(local.get("Kptfile")?.toString("utf8") ?? "");
  const originalRef = facts.lockedRevision ? `${dir}/${facts.lockedRevision}` : facts.lockedCommit;
  const tag = `${dir}/${action.to}`;
  let result: ReturnType<typeof mergePackage>;
  try {
    const recorded = upstreamOf(local, where).strategy ?? "resource-merge";
    result = mergePackage({
      original: originalRef ? await upstream.read(originalRef, dir) : new Map(),
      updated: await upstream.read(tag, dir),
      local,
      strategy: isStrategy(recorded) ? recorded : "resource-merge",
      lock: { repo: upstream.url, directory: `/${dir}`, ref: tag, resolvedRef: tag, commit: action.toCommit },
    });
  } catch (e) {
    if (e instanceof MergeError)
      throw new FanoutStepError(`merging ${action.to} into ${where}: ${e.message}`);
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
