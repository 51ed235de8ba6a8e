import { createHash } from "node:crypto";
import type { Guardrail, Runtime } from "../../config/schema.js";
import { defaultRegistry } from "../../fn/registry.js";
import type { FileTree } from "../../kpt/tree.js";
import type { MergeInput, MergeResult } from "../../merge/index.js";
import { runtimesNeeded } from "../../render/render.js";
import type {
  InjectableResource,
  MutationOptions,
  MutationResult,
  PackageVariant,
} from "../../variants/index.js";
import type { PackageEngine } from "../package-engine.js";
import type { Renderer, RenderOptions, RenderResult } from "../renderer.js";
import type { BoundedWork } from "./bounded.js";
import { WorkerStopped, WorkTookTooLong } from "./errors.js";
import { packTree, unpackTree } from "./wire.js";

/**
 * The Renderer and PackageEngine the app uses: each render, guardrail run, merge and mutation done on
 * one of BoundedWork's worker threads within the operator's bound. A render or guardrail run stopped
 * there is a failed result saying it took too long (the check reports it; the head is not tried again);
 * a merge or mutation stopped there throws WorkTookTooLong, which the fan-out reports for its variant.
 */
export class BoundedRenderer implements Renderer, PackageEngine {
  private readonly registry = defaultRegistry();

  constructor(private readonly work: BoundedWork) {}

  async render(tree: FileTree, options: RenderOptions): Promise<RenderResult> {
    const wire = packTree(tree);
    try {
      const { tree: out, ...rest } = await this.work.run(
        { op: "render", tree: wire, options },
        [wire.bytes],
        "Rendering the package",
        packageKey(tree),
      );
      return { ...rest, tree: out === null ? tree : unpackTree(out) };
    } catch (e) {
      return stopped(e, tree);
    }
  }

  async validate(
    tree: FileTree,
    guardrails: readonly Guardrail[],
    configs: ReadonlyMap<string, string>,
    options: RenderOptions,
  ): Promise<RenderResult> {
    const wire = packTree(tree);
    try {
      const result = await this.work.run(
        { op: "validate", tree: wire, guardrails, configs, options },
        [wire.bytes],
        "Running the guardrails",
        packageKey(tree),
      );
      return { ...result, tree };
    } catch (e) {
      return stopped(e, tree);
    }
  }

  /** Read on this thread: the Kptfiles' pipelines only, parsed, no function run and nothing formatted. */
  runtimesNeeded(tree: FileTree): Runtime[] {
    return runtimesNeeded(tree, this.registry);
  }

  async committed(tree: FileTree, options: RenderOptions): Promise<void> {
    const wire = packTree(tree);
    await this.work.run(
      { op: "committed", tree: wire, options },
      [wire.bytes],
      "Rendering the bot's commit",
      packageKey(tree),
    );
  }

  async merge(input: MergeInput): Promise<MergeResult> {
    const original = packTree(input.original);
    const updated = packTree(input.updated);
    const local = packTree(input.local);
    const out = await this.work.run(
      {
        op: "merge",
        original,
        updated,
        local,
        ...(input.strategy ? { strategy: input.strategy } : {}),
        ...(input.lock ? { lock: input.lock } : {}),
      },
      [original.bytes, updated.bytes, local.bytes],
      "Merging the upstream revision",
      packageKey(input.local),
    );
    return { ...out, tree: unpackTree(out.tree) };
  }

  mutate(
    files: ReadonlyMap<string, string>,
    variant: PackageVariant,
    injectable: readonly InjectableResource[],
    options: MutationOptions,
  ): Promise<MutationResult> {
    return this.work.run({ op: "mutate", files, variant, injectable, options }, [], "Applying the variant");
  }
}

/** A failed render result for work stopped past its bound or with its thread; any other error is thrown. */
function stopped(e: unknown, tree: FileTree): RenderResult {
  if (e instanceof WorkTookTooLong)
    return { ok: false, tree, findings: [], error: `${e.message}.`, tookTooLong: { afterMs: e.afterMs } };
  if (e instanceof WorkerStopped) return { ok: false, tree, findings: [], error: `${e.message}.` };
  throw e;
}

/**
 * Which package a tree is, for sending its requests to the thread that rendered it last: its Kptfiles'
 * paths and the root Kptfile's first `name:` line (an edit elsewhere keeps the key).
 */
function packageKey(tree: FileTree): string {
  const hash = createHash("sha1");
  for (const path of [...tree.keys()].filter((p) => p === "Kptfile" || p.endsWith("/Kptfile")).sort())
    hash.update(`${path}\n`);
  const name = /^\s+name:\s*(\S+)/m.exec(tree.get("Kptfile")?.toString("utf8") ?? "")?.[1];
  return hash.update(name ?? "").digest("hex");
}
