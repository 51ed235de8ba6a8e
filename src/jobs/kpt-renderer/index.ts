import { type Document, parseDocument } from "yaml";
import type { Guardrail, Runtime } from "../../config/schema.js";
import { defaultRegistry, type FunctionRegistry } from "../../fn/registry.js";
import { DEFAULT_RUN_OPTIONS, type RunOptions } from "../../fn/runtime/types.js";
import { parseKptfile } from "../../kpt/kptfile.js";
import type { FileTree } from "../../kpt/tree.js";
import { type RenderOutcome, render } from "../../render/render.js";
import type { Renderer, RenderFinding, RenderOptions, RenderResult } from "../renderer.js";
import { resultPlacer } from "./locate.js";

/** Where guardrail config files are placed in the package handed to the validators. */
const GUARDRAIL_DIR = ".porchlight-guardrails";

/** The render engine (src/render) behind the jobs' Renderer interface. */
export class KptRenderer implements Renderer {
  constructor(
    private readonly registry: FunctionRegistry = defaultRegistry(),
    private readonly run: RunOptions = DEFAULT_RUN_OPTIONS,
    /** kpt's attribution on Config Connector resources (KPT_DISABLE_ATTRIBUTION turns it off, as in kpt). */
    private readonly attribution = true,
  ) {}

  async render(tree: FileTree, options: RenderOptions): Promise<RenderResult> {
    const outcome = await render(tree, "", { ...this.env(options), attribution: this.attribution });
    return this.result(tree, outcome);
  }

  async validate(
    tree: FileTree,
    guardrails: readonly Guardrail[],
    configs: ReadonlyMap<string, string>,
    options: RenderOptions,
  ): Promise<RenderResult> {
    const input = validationTree(tree, guardrails, configs);
    const outcome = await render(input, "", { ...this.env(options), writeFiles: false });
    return { ...this.result(tree, outcome), tree };
  }

  runtimesNeeded(tree: FileTree): Runtime[] {
    const needed = new Set<Runtime>(["builtin"]);
    for (const [path, bytes] of tree) {
      if (path !== "Kptfile" && !path.endsWith("/Kptfile")) continue;
      try {
        const { kptfile } = parseKptfile(bytes.toString("utf8"), path);
        for (const fn of [...(kptfile.pipeline?.mutators ?? []), ...(kptfile.pipeline?.validators ?? [])]) {
          if (fn.exec) needed.add("exec");
          else if (fn.image && !this.registry.find(fn.image)) needed.add("container");
        }
      } catch {
        // The render reports a Kptfile that does not parse.
      }
    }
    return [...needed];
  }

  private env(options: RenderOptions) {
    return {
      registry: this.registry,
      allowExec: options.runtimes.includes("exec"),
      allowContainer: options.runtimes.includes("container"),
      run: this.run,
      ...(options.maxResources !== undefined ? { maxResources: options.maxResources } : {}),
    };
  }

  private result(input: FileTree, outcome: RenderOutcome): RenderResult {
    const place = resultPlacer(outcome.ok ? outcome.tree : input);
    const findings: RenderFinding[] = [];
    for (const rec of outcome.records) {
      const fn = rec.image ?? rec.exec ?? "function";
      for (const r of rec.results) {
        findings.push({ function: fn, severity: r.severity ?? "info", message: r.message, ...place(r) });
      }
      if (rec.exitCode !== 0 && rec.results.length === 0) {
        findings.push({
          function: fn,
          severity: "error",
          message: rec.stderr?.trim() || `exited with code ${rec.exitCode}`,
        });
      }
    }
    const counted = {
      resources: outcome.resourceCount ?? 0,
      ...(outcome.tooManyResources ? { tooManyResources: outcome.tooManyResources } : {}),
    };
    if (outcome.ok) return { ok: true, tree: outcome.tree, findings, ...counted };
    return {
      ok: false,
      tree: input,
      findings,
      error: outcome.error?.message ?? "the pipeline failed",
      ...counted,
    };
  }
}

/**
 * The package as the guardrails see it: its own pipelines removed (the committed files are what is
 * checked) and the root Kptfile running the guardrails as validators.
 */
export function validationTree(
  tree: FileTree,
  guardrails: readonly Guardrail[],
  configs: ReadonlyMap<string, string>,
): FileTree {
  const out: FileTree = new Map(tree);
  for (const [path, bytes] of tree) {
    if (path === "Kptfile" || path.endsWith("/Kptfile")) {
      const doc = parseDocument(bytes.toString("utf8"));
      doc.delete("pipeline");
      if (path === "Kptfile") setValidators(doc, guardrails);
      out.set(path, Buffer.from(doc.toString()));
    }
  }
  guardrails.forEach((g, i) => {
    if (!g.configPath) return;
    const text = configs.get(g.configPath);
    if (text !== undefined) out.set(`${GUARDRAIL_DIR}/${i}.yaml`, Buffer.from(text));
  });
  return out;
}

function setValidators(doc: Document, guardrails: readonly Guardrail[]): void {
  doc.set(
    "pipeline",
    doc.createNode({
      validators: guardrails.map((g, i) => ({
        image: g.image,
        ...(g.configMap ? { configMap: g.configMap } : {}),
        ...(g.configPath ? { configPath: `${GUARDRAIL_DIR}/${i}.yaml` } : {}),
      })),
    }),
  );
}
