import { forkRuntimeProblem } from "../../commands/authorize.js";
import { guardrailName, guardrailsFor } from "../../config/guardrails.js";
import type { FileTree } from "../../kpt/tree.js";
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
  const fork = forkRuntimeProblem({
    isFork: input.isFork,
    runtimesNeeded: guardrails.some(
      (g) => !ctx.renderer.runtimesNeeded(guardrailTree(g.image)).every((r) => r === "builtin"),
    )
      ? ["container"]
      : [],
  });
  if (fork) return { pkg, ok: false, line: `\`${pkg}\`: ${fork}`, annotations: [] };
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
