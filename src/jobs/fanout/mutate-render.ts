import type { FileTree } from "../../kpt/tree.js";
import {
  type InjectableResource,
  type MutationResult,
  type PackageVariant,
  type VariantChange,
  VariantMutationError,
} from "../../variants/index.js";
import { WorkerStopped, WorkTookTooLong } from "../bounded/errors.js";
import { limitMessage, resourceAllowance, resourcesExceeded } from "../limits.js";
import { inProcessEngine } from "../package-engine.js";
import type { RenderFinding } from "../renderer.js";
import { fanoutLimits } from "./admit.js";
import { type FanoutContext, FanoutStepError } from "./context.js";

export interface FinishedPackage {
  tree: FileTree;
  variantChanges: VariantChange[];
  /** The pipeline's results on the rendered package (what `porchlight/render` shows). */
  findings: readonly RenderFinding[];
}

/**
 * The last two steps of every clone and update: the variant's mutations (package context, pipeline,
 * injection, tracking annotations), then the package's pipeline with the renderer the bot uses. A bad
 * package or a failing render throws FanoutStepError; nothing is pushed then.
 */
export async function mutateAndRender(
  ctx: FanoutContext,
  input: {
    tree: FileTree;
    variant: PackageVariant;
    mode: "clone" | "update";
    injectable: readonly InjectableResource[];
    where: string;
  },
): Promise<FinishedPackage> {
  const texts = new Map<string, string>();
  const binary: FileTree = new Map();
  for (const [path, bytes] of input.tree) {
    if (bytes.includes(0)) binary.set(path, bytes);
    else texts.set(path, bytes.toString("utf8"));
  }
  let mutated: MutationResult;
  try {
    mutated = await (ctx.engine ?? inProcessEngine).mutate(texts, input.variant, input.injectable, {
      mode: input.mode,
    });
  } catch (e) {
    if (e instanceof VariantMutationError || e instanceof WorkTookTooLong || e instanceof WorkerStopped)
      throw new FanoutStepError(
        `applying variant ${input.variant.metadata.name} to ${input.where}: ${e.message}`,
      );
    throw e;
  }
  const tree: FileTree = new Map(binary);
  for (const [path, text] of mutated.files) tree.set(path, Buffer.from(text));
  // The resources are counted as the draft render counts them: past the limit no function runs.
  const limits = fanoutLimits(ctx);
  const allowance = resourceAllowance(limits.limits);
  const rendered = await ctx.renderer.render(tree, { runtimes: ctx.runtimes, maxResources: allowance.max });
  if (rendered.tooManyResources) {
    const over = resourcesExceeded(rendered.tooManyResources, allowance, limits.limits);
    throw new FanoutStepError(
      `rendering ${input.where}: ${limitMessage(input.where, over, limits)}; nothing was pushed`,
    );
  }
  if (!rendered.ok) {
    const where = rendered.findings
      .filter((f) => f.severity === "error")
      .slice(0, 3)
      .map((f) => `${input.where}/${f.file ?? "Kptfile"}${f.line ? `:${f.line}` : ""}: ${f.message}`);
    throw new FanoutStepError(
      `rendering ${input.where} failed, nothing was pushed: ${rendered.error ?? "a function failed"}${where.length ? ` (${where.join("; ")})` : ""}`,
    );
  }
  return { tree: rendered.tree, variantChanges: mutated.changes, findings: rendered.findings };
}
