import { createHash } from "node:crypto";
import { deserialize, serialize } from "node:v8";
import { LRUCache } from "lru-cache";
import type { Guardrail, Runtime } from "../../config/schema.js";
import { defaultRegistry } from "../../fn/registry.js";
import type { FileTree } from "../../kpt/tree.js";
import { blobSha } from "../../kpt/yaml/parse-cache.js";
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
import { packTree, unpackChanges, unpackTree } from "./wire.js";

/** How many unchanged renders BoundedRenderer keeps (a few per draft being pushed to)... */
const SAME_TREES_KEPT = 64;
/**
 * ...and in how many bytes: each kept serialized, off the JavaScript heap. A 10,000-resource package's
 * render reports 6,670 findings, about 1 MiB, and the render of every edit is kept. Kept as objects and
 * by count alone, they grew the app's heap after each major collection from 38 to 95 MiB over 60 pushes
 * (node --trace-gc and heap snapshots through bench/bot-e2e.ts), each collection marking them all again.
 */
const SAME_TREES_BYTES = 16 << 20;

/**
 * The identity of a render's input: every file's path and git blob id in the tree's order, and the
 * options (runtimes allowed, held back, the resource limit). Undefined when a file's blob id is not
 * known (the caller read no ids): no memo then.
 */
function sameTreeKey(tree: FileTree, options: RenderOptions): string | undefined {
  const ids = options.blobIds;
  if (!ids) return undefined;
  const hash = createHash("sha1");
  hash.update(
    JSON.stringify([options.runtimes, options.holdBack ?? null, options.maxResources ?? null, tree.size]),
  );
  for (const path of tree.keys()) {
    const id = ids.get(path);
    if (id === undefined) return undefined;
    hash.update(`${path.length}:${path}${id}`);
  }
  return hash.digest("hex");
}

/** The options with every file's git blob id: those `options` lacks worked out from the bytes. */
function withEveryId(tree: FileTree, options: RenderOptions): RenderOptions {
  const ids = options.blobIds;
  if (!ids) return options;
  let all: Map<string, string> | undefined;
  for (const [path, bytes] of tree) {
    if (ids.has(path)) continue;
    all ??= new Map(ids);
    all.set(path, blobSha(bytes));
  }
  return all ? { ...options, blobIds: all } : options;
}

/**
 * The Renderer and PackageEngine the app uses: each render, guardrail run, merge and mutation done on
 * one of BoundedWork's worker threads within the operator's bound. A render or guardrail run stopped
 * there is a failed result saying it took too long (the check reports it; the head is not tried again);
 * a merge or mutation stopped there throws WorkTookTooLong, which the fan-out reports for its variant.
 */
export class BoundedRenderer implements Renderer, PackageEngine {
  private readonly registry = defaultRegistry();
  /**
   * Renders that changed no file, by the files' blob ids and the options (sameTreeKey): the same tree
   * rendered again — a push outside the package, the same files pushed again — is answered from here,
   * not by a worker. Only builtin pipelines that succeeded (an exec or container function may answer
   * otherwise the next time; a render stopped or refused is not kept).
   */
  private readonly rendered: LRUCache<string, Buffer>;
  /**
   * The last render kept or answered from `rendered`, as objects: the push after an edit (outside the
   * package, the proposal's check of the same head) is answered without deserializing its results, a
   * tenth of such a push's CPU at 10,000 resources (bench/bot-e2e.ts, BOT_E2E_REPEAT). One, so the
   * heap holds one render's results at most beyond what its callers hold; shared by the callers it
   * answers, which only read them.
   */
  private last: { key: string; result: Omit<RenderResult, "tree"> } | undefined;
  /** The runtimes each Kptfile's text needs beyond builtins (runtimesNeeded): a few hundred bytes each. */
  private readonly kptfileRuntimes = new LRUCache<string, readonly Runtime[]>({ max: 1024 });

  constructor(
    private readonly work: BoundedWork,
    memoBytes = SAME_TREES_BYTES,
  ) {
    this.rendered = new LRUCache({
      max: SAME_TREES_KEPT,
      maxSize: memoBytes,
      sizeCalculation: (b) => b.length,
    });
  }

  async render(tree: FileTree, options: RenderOptions): Promise<RenderResult> {
    const key = sameTreeKey(tree, options);
    const kept = key === undefined ? undefined : this.kept(key);
    if (kept) return { ...kept, tree };
    const wire = packTree(tree);
    try {
      const { tree: out, ...rest } = await this.work.run(
        { op: "render", tree: wire, options },
        [wire.bytes],
        "Rendering the package",
        packageKey(tree),
      );
      if (out === null && rest.ok) this.remember(key, tree, rest);
      return { ...rest, tree: out === null ? tree : unpackChanges(out, tree) };
    } catch (e) {
      return stopped(e, tree);
    }
  }

  /** The render kept under `key`: the last one as it is, another deserialized (and then the last). */
  private kept(key: string): Omit<RenderResult, "tree"> | undefined {
    // asked of `rendered` even when `last` answers: the entry keeps its place among the recently used
    const memo = this.rendered.get(key);
    if (this.last?.key === key) return this.last.result;
    if (!memo) return undefined;
    const result = deserialize(memo) as Omit<RenderResult, "tree">;
    this.last = { key, result };
    return result;
  }

  /** Keeps a render that changed nothing, where its tree has a key and its output depends on the files alone. */
  private remember(key: string | undefined, tree: FileTree, result: Omit<RenderResult, "tree">): void {
    if (key === undefined || !this.deterministic(tree)) return;
    this.rendered.set(key, serialize(result));
    this.last = { key, result };
  }

  /** Whether the package's pipelines run builtins only: their output is a function of the files alone. */
  private deterministic(tree: FileTree): boolean {
    return this.runtimesNeeded(tree).every((r) => r === "builtin");
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

  /**
   * Read on this thread: the Kptfiles' pipelines only, parsed, no function run and nothing formatted;
   * each Kptfile's text parsed once (a push's render and its proposal's check ask it of the same files).
   */
  runtimesNeeded(tree: FileTree): Runtime[] {
    return runtimesNeeded(tree, this.registry, this.kptfileRuntimes);
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

  async settled(tree: FileTree, options: RenderOptions): Promise<RenderResult | undefined> {
    const wire = packTree(tree);
    const out = await this.work.run(
      { op: "settled", tree: wire, options },
      [wire.bytes],
      "Answering the render of the bot's commit",
      packageKey(tree),
    );
    if (out === null) return undefined;
    // It renders to itself: the same-tree memo answers it next (a push outside the package, the
    // proposal's check, a sweep), which lists every file's id. The caller knows the ids of the files
    // the render left as they were, not of those it wrote: those are worked out here (the write-back
    // of one file, one hash), else no key and the next such push went to a worker.
    this.remember(sameTreeKey(tree, withEveryId(tree, options)), tree, out);
    return { ...out, tree };
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
