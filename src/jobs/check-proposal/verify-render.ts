import { forkRuntimeProblem } from "../../commands/authorize.js";
import type { FileTree } from "../../kpt/tree.js";
import { heldBackText, type RenderPlan } from "../adopted-trust.js";
import { findingAnnotations, scopedFindings } from "../check-report.js";
import { allowedRuntimes, type JobContext } from "../context.js";
import { differingPaths } from "../packages.js";
import type { PackageCheck } from "./package-check.js";

/**
 * `porchlight/render` for one package of a proposal: the committed files must equal what the
 * pipeline renders from them. A fork's pipeline that needs exec or container functions never runs.
 */
export async function verifyRender(
  ctx: JobContext,
  input: {
    pkg: string;
    tree: FileTree;
    deletion: boolean;
    isFork: boolean;
    maxResources?: number;
    /** What may run (an adopted fork's content: builtins only); absent: the repository's runtimes. */
    plan?: RenderPlan;
    /** The files whose info results are annotated (check-report.ts changeScope); absent: every file's. */
    infoScope?: ReadonlySet<string>;
    /** The files' git blob ids, where read (the renderer answers a tree it rendered before from them). */
    blobIds?: ReadonlyMap<string, string>;
  },
): Promise<PackageCheck> {
  const { pkg } = input;
  if (input.deletion)
    return { pkg, ok: true, line: `\`${pkg}\`: removed, nothing to render`, annotations: [] };
  if (!input.tree.has("Kptfile")) {
    return { pkg, ok: false, line: `\`${pkg}\`: no Kptfile, so this is not a package`, annotations: [] };
  }
  const fork = forkRuntimeProblem({
    isFork: input.isFork,
    runtimesNeeded: ctx.renderer.runtimesNeeded(input.tree),
  });
  if (fork) return { pkg, ok: false, line: `\`${pkg}\`: ${fork}`, annotations: [] };
  const result = await ctx.renderer.render(input.tree, {
    runtimes: input.plan?.runtimes ?? allowedRuntimes(ctx),
    ...(input.plan?.holdBack.length ? { holdBack: input.plan.holdBack } : {}),
    ...(input.maxResources !== undefined ? { maxResources: input.maxResources } : {}),
    ...(input.blobIds ? { blobIds: input.blobIds } : {}),
  });
  if (result.tooManyResources) {
    return { pkg, ok: false, line: "", annotations: [], tooManyResources: result.tooManyResources };
  }
  const { shown, elsewhere } = scopedFindings(result.findings, input.infoScope);
  const annotations = findingAnnotations(pkg, shown);
  const counted = result.resources !== undefined ? { resources: result.resources } : {};
  const unshown =
    elsewhere === 0
      ? ""
      : ` (${elsewhere.toLocaleString("en-US")} info ${elsewhere === 1 ? "result" : "results"} on files this proposal does not change, not annotated)`;
  if (!result.ok) {
    return {
      pkg,
      ok: false,
      line: result.tookTooLong
        ? `\`${pkg}\`: ${result.error ?? "the render took too long"}`
        : `\`${pkg}\`: the pipeline failed: ${result.error ?? ""}`,
      annotations,
      ...counted,
    };
  }
  const differing = differingPaths(input.tree, result.tree);
  if (differing.length === 0 && result.heldBack) {
    return {
      pkg,
      ok: false,
      pending: true,
      line: `\`${pkg}\`: the committed files are its builtin functions' output${unshown}. ${heldBackText(result.heldBack)}`,
      annotations,
      ...counted,
    };
  }
  if (differing.length === 0) {
    return {
      pkg,
      ok: true,
      line: `\`${pkg}\`: the committed files are the rendered output${unshown}`,
      annotations,
      ...counted,
    };
  }
  for (const file of differing) {
    annotations.push({
      path: `${pkg}/${file}`,
      start_line: 1,
      end_line: 1,
      annotation_level: "failure",
      title: "not rendered",
      message:
        "This file differs from the pipeline's output. Push the change to a draft branch (porchlight renders it) or run `kpt fn render` and commit the result.",
    });
  }
  return {
    pkg,
    ok: false,
    line: `\`${pkg}\`: ${differing.length} ${differing.length === 1 ? "file differs" : "files differ"} from the rendered output: ${differing.map((f) => `\`${f}\``).join(", ")}${unshown}`,
    annotations,
    ...counted,
  };
}
