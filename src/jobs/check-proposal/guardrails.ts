import { forkRuntimeProblem } from "../../commands/authorize.js";
import { guardrailName, guardrailsFor } from "../../config/guardrails.js";
import type { Runtime } from "../../config/schema.js";
import type { FileTree } from "../../kpt/tree.js";
import { heldBackText } from "../adopted-trust.js";
import { findingAnnotations } from "../check-report.js";
import { allowedRuntimes, type JobContext } from "../context.js";
import type { PackageCheck } from "./package-check.js";

/** `porchlight/guardrails` for one package: the repository's validators that apply to it. */
export async function runGuardrails(
  ctx: JobContext,
  input: {
    pkg: string;
    tree: FileTree;
    deletion: boolean;
    isFork: boolean;
    /** Runtimes held back for an adopted fork's content (guardrails needing them wait); absent: none. */
    holdBack?: readonly Runtime[];
    /** A repository file's text at the proposal's head, or undefined when absent. */
    readConfig: (path: string) => Promise<string | undefined>;
  },
): Promise<PackageCheck> {
  const { pkg } = input;
  if (input.deletion)
    return { pkg, ok: true, line: `\`${pkg}\`: removed, nothing to validate`, annotations: [] };
  const guardrails = guardrailsFor(pkg, ctx.config.guardrails);
  if (guardrails.length === 0)
    return { pkg, ok: true, line: `\`${pkg}\`: no guardrails apply`, annotations: [] };
  const names = guardrails.map(guardrailName).join(", ");
  const beyondBuiltins = guardrails.filter(
    (g) => !ctx.renderer.runtimesNeeded(guardrailTree(g.image)).every((r) => r === "builtin"),
  );
  const fork = forkRuntimeProblem({
    isFork: input.isFork,
    runtimesNeeded: beyondBuiltins.length > 0 ? ["container"] : [],
  });
  if (fork) return { pkg, ok: false, line: `\`${pkg}\`: ${fork}`, annotations: [] };
  if (beyondBuiltins.length > 0 && input.holdBack?.length) {
    const line = `\`${pkg}\`: not validated yet. ${heldBackText(beyondBuiltins.map(guardrailName))}`;
    return { pkg, ok: false, pending: true, line, annotations: [] };
  }
  const configs = new Map<string, string>();
  for (const g of guardrails) {
    if (!g.configPath) continue;
    const text = await input.readConfig(g.configPath);
    if (text === undefined) {
      return {
        pkg,
        ok: false,
        line: `\`${pkg}\`: guardrail ${guardrailName(g)} names \`${g.configPath}\`, which does not exist; fix \`configPath\` in .github/porchlight.yml`,
        annotations: [],
      };
    }
    configs.set(g.configPath, text);
  }
  const result = await ctx.renderer.validate(input.tree, guardrails, configs, {
    runtimes: allowedRuntimes(ctx),
  });
  const annotations = findingAnnotations(pkg, result.findings);
  return result.ok
    ? { pkg, ok: true, line: `\`${pkg}\`: passed ${names}`, annotations }
    : { pkg, ok: false, line: `\`${pkg}\`: ${result.error ?? `failed ${names}`}`, annotations };
}

/** A one-step package naming `image`, to ask the renderer which runtime the image needs. */
function guardrailTree(image: string): FileTree {
  const kptfile = `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: guardrail\npipeline:\n  validators:\n    - image: ${JSON.stringify(image)}\n`;
  return new Map([["Kptfile", Buffer.from(kptfile)]]);
}
