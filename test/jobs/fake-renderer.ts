import type { Guardrail, Runtime } from "../../src/config/schema.js";
import type { Renderer, RenderFinding, RenderOptions, RenderResult } from "../../src/jobs/renderer.js";
import type { FileTree } from "../../src/kpt/tree.js";

const MARK = "# rendered\n";

/**
 * A render engine for job tests: "rendering" appends `# rendered` to every YAML file that lacks it
 * (so a second render changes nothing), reports one info result per file at line 1, and fails when
 * the Kptfile says `fail: true`. Guardrails fail on any file containing `forbidden`.
 */
export class FakeRenderer implements Renderer {
  renders = 0;
  validations = 0;
  lastRuntimes: readonly Runtime[] = [];

  async render(tree: FileTree, options: RenderOptions): Promise<RenderResult> {
    this.renders++;
    this.lastRuntimes = options.runtimes;
    const kptfile = tree.get("Kptfile")?.toString("utf8") ?? "";
    if (kptfile.includes("fail: true")) {
      return {
        ok: false,
        tree,
        findings: [{ function: "set-labels", severity: "error", message: "boom", file: "Kptfile", line: 2 }],
        error: "set-labels failed: boom",
      };
    }
    const out: FileTree = new Map();
    const findings: RenderFinding[] = [];
    for (const [path, bytes] of tree) {
      const text = bytes.toString("utf8");
      if (path.endsWith(".yaml") && !text.endsWith(MARK)) out.set(path, Buffer.from(text + MARK));
      else out.set(path, bytes);
      if (path.endsWith(".yaml"))
        findings.push({
          function: "set-labels",
          severity: "info",
          message: `saw ${path}`,
          file: path,
          line: 1,
        });
    }
    return { ok: true, tree: out, findings };
  }

  async validate(
    tree: FileTree,
    guardrails: readonly Guardrail[],
    _configs: ReadonlyMap<string, string>,
    _options: RenderOptions,
  ): Promise<RenderResult> {
    this.validations++;
    const findings: RenderFinding[] = [];
    for (const g of guardrails) {
      for (const [path, bytes] of tree) {
        if (bytes.toString("utf8").includes("forbidden")) {
          findings.push({
            function: g.name ?? g.image,
            severity: "error",
            message: "forbidden value",
            file: path,
            line: 1,
          });
        }
      }
    }
    const ok = findings.length === 0;
    return ok ? { ok, tree, findings } : { ok, tree, findings, error: "a guardrail failed" };
  }

  runtimesNeeded(tree: FileTree): Runtime[] {
    return tree.get("Kptfile")?.toString("utf8").includes("exec:") ? ["builtin", "exec"] : ["builtin"];
  }
}
