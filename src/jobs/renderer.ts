import type { Guardrail, Runtime } from "../config/schema.js";
import type { FileTree } from "../kpt/tree.js";

/** One function result, placed in the package: what a check run annotation shows. */
export interface RenderFinding {
  /** The function (image or exec) that reported it. */
  function: string;
  severity: "error" | "warning" | "info";
  message: string;
  /** Package-relative file, when the result names a resource or file. */
  file?: string;
  /** 1-based line in that file. */
  line?: number;
}

export interface RenderResult {
  ok: boolean;
  /** The package's files after the pipeline; the input when it failed (nothing is pushed). */
  tree: FileTree;
  findings: RenderFinding[];
  /** Why the render failed, written for the user. */
  error?: string;
  /** The resources (YAML documents, Kptfiles not counted) of the package; 0 when it did not load. */
  resources?: number;
  /** The package holds more resources than `maxResources`: no function ran. */
  tooManyResources?: { found: number; max: number };
  /**
   * The render (or the guardrail run) went past the operator's bound (PORCHLIGHT_RENDER_TIMEOUT_MS) and
   * was stopped: `error` says so. The same files would run as long again, so the head is not retried.
   */
  tookTooLong?: { afterMs: number };
  /** The functions `holdBack` left out (image or exec, after `<subpackage dir>: ` below the root); absent when none. */
  heldBack?: string[];
}

export interface RenderOptions {
  /** The runtimes functions may use here (builtin always; exec and container only if allowed). */
  runtimes: readonly Runtime[];
  /** The most resources the package may hold; past it no function runs. Absent: no limit. */
  maxResources?: number;
  /** Runtimes whose functions are left out (not run, listed in the result's `heldBack`): see RenderEnv. */
  holdBack?: readonly Runtime[];
  /**
   * The files' git blob ids where the caller has them (git listed them with the tree): the renderer
   * keys what it keeps by blob id and hashes only the files missing here.
   */
  blobIds?: ReadonlyMap<string, string>;
}

/**
 * What the jobs need of the render engine (src/render), over one package's files (paths relative to
 * the package directory). Pure apart from function processes: no GitHub, no disk of the repository.
 */
export interface Renderer {
  /** kpt fn render: subpackages first, mutators then validators. */
  render(tree: FileTree, options: RenderOptions): Promise<RenderResult>;
  /**
   * Runs repository guardrails (validators) over the package's resources. `configs` holds the text of
   * each guardrail's `configPath` file, keyed by that repository-relative path.
   */
  validate(
    tree: FileTree,
    guardrails: readonly Guardrail[],
    configs: ReadonlyMap<string, string>,
    options: RenderOptions,
  ): Promise<RenderResult>;
  /** The runtimes the package's pipelines (subpackages included) would use. */
  runtimesNeeded(tree: FileTree): Runtime[];
  /**
   * The bot committed `tree` (a render's output) to a draft: the next push there starts from it. A
   * renderer that keeps work across renders renders it now, after the checks are written, so such a
   * push renders only what it changed. Optional: a renderer that keeps nothing has nothing to do.
   */
  committed?(tree: FileTree, options: RenderOptions): Promise<void>;
  /**
   * The render of `tree`, the bot's commit of the last render's output, where the pipeline's functions
   * declare what it is (each step's run over its own output changes nothing, and reports what it
   * declares: fn/types.ts Rerun) and nothing needs running; kept as committed() keeps it. Undefined where
   * that is not provably the answer: the caller renders the commit (committed()). Optional.
   */
  settled?(tree: FileTree, options: RenderOptions): Promise<RenderResult | undefined>;
}
