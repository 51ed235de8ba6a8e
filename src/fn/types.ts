import type { Document } from "yaml";

/** One KRM resource, as a parsed YAML document (comments, key order and quoting kept). */
export type KrmItem = Document;

export type Severity = "error" | "warning" | "info";

/** A function result, with the fields of kpt's `results` (framework.Result). */
export interface FunctionResult {
  message: string;
  severity?: Severity;
  resourceRef?: { apiVersion?: string; kind?: string; name?: string; namespace?: string };
  field?: { path: string; currentValue?: unknown; proposedValue?: unknown };
  file?: { path?: string; index?: number };
  tags?: Record<string, string>;
  /**
   * The index, in `file.path`, of the document the result is about, where the function knows it but
   * kpt's result leaves it out (apply-setters names the file and field only). Never written to
   * results.yaml or a ResourceList: the bot places the finding by it (src/jobs/kpt-renderer/locate.ts).
   */
  document?: number;
}

/**
 * The in-memory ResourceList a function receives and returns (config.kubernetes.io/v1 ResourceList).
 * Items carry kpt's path/index annotations as kpt passes them to functions.
 */
export interface ResourceList {
  items: KrmItem[];
  functionConfig?: KrmItem;
  results: FunctionResult[];
  /**
   * Set by a builtin whose catalog release exits 0 even though it reports an error result (set-namespace
   * v0.3 reports every problem so and succeeds): kpt then goes on. Unset, an error result fails it.
   */
  exitCode?: number;
  /**
   * What the function wrote to stderr, as kpt keeps a container's (lines joined by "\n"): kpt shows it
   * under "Stderr:" and records it in results.yaml. A builtin that fails with stderr throws a
   * FunctionExitError carrying it.
   */
  stderr?: string;
  /**
   * Set by a builtin whose run shows what it left as it found it, where its config alone could not
   * promise it (BuiltinFunction.untouched): what the pipeline may skip after it, as for that promise.
   */
  untouched?: Untouched;
}

/** What every run of a function may use besides its input. */
export interface FunctionContext {
  /** Stops a long run; builtins check it between items, runtimes kill the process. */
  signal?: AbortSignal;
  /**
   * The catalog release the image's tag names (`v0.1.3`), one of the builtin's `releases`: a builtin
   * whose behaviour changed between releases switches on it. Absent: the newest it reproduces.
   */
  release?: string;
}

/**
 * A function implemented in-process. `run` may mutate `input` in place and return it, or return a new
 * list. Throwing a FunctionError fails the function (as a non-zero exit does for kpt); results with
 * severity "error" also fail it.
 */
export interface BuiltinFunction {
  /** The image's short name, e.g. "set-namespace": matched regardless of registry prefix. */
  name: string;
  /**
   * The catalog releases (`vX.Y.Z`, from src/fn/releases.ts) whose behaviour this builtin reproduces:
   * an image whose tag names another release does not run here. "unversioned" for a function porchlight
   * ships that has no catalog releases to follow (any tag runs it).
   */
  releases: readonly string[] | "unversioned";
  run(input: ResourceList, ctx: FunctionContext): ResourceList | Promise<ResourceList>;
  /**
   * What a run with this config (and release) provably leaves as it found it, so that the pipeline can
   * skip redoing work over every resource after it (absent: nothing is promised). A promise that does
   * not hold changes the output: make one only where the function's code cannot break it.
   */
  untouched?(functionConfig: KrmItem | undefined, release: string | undefined): Untouched;
  /**
   * The run taken apart by item, for a config (and release) under which each item's output depends on
   * that item alone (absent, or undefined for this config: the list as a whole decides). The bot's
   * renderer keeps each item's share and runs only the items a push changed (src/jobs/kpt-renderer).
   */
  split?(functionConfig: KrmItem | undefined, release: string | undefined): ItemSplit | undefined;
}

/**
 * A function's run over a list, as a run over each item and a combination of what each left: running
 * `item` on every item in order and then `combine` on the shares must change the items and report
 * exactly what `run` does, or `combine` answers undefined (a fact of the whole list decides: the whole
 * run must be done). A builtin's own `run` is built on the same two, so they cannot drift apart.
 */
export interface ItemSplit {
  /**
   * Runs the function on one item, changing it in place, and returns the item's share of the results:
   * plain data that refers to no document (it is kept across renders), never changed afterwards.
   */
  item(doc: KrmItem): unknown;
  /** The run's results from every item's share, in item order; undefined where the whole list decides. */
  combine(shares: readonly unknown[]): FunctionResult[] | undefined;
}

/** What a builtin run promises not to change (see BuiltinFunction.untouched). */
export interface Untouched {
  /**
   * It writes no folded (`>`) scalar: no node it creates or restyles is folded, and it moves none in
   * from elsewhere. Where a resource had none before the run, it has none after.
   */
  folded?: boolean;
  /**
   * It changes none of the file annotations kpt keeps in step (`config.kubernetes.io/path` and
   * `index`, and their `internal.config.kubernetes.io/` forms), on any resource.
   */
  fileAnnotations?: boolean;
}

/** A function failure whose message is shown to the user as it is. */
export class FunctionError extends Error {
  constructor(
    message: string,
    readonly results: FunctionResult[] = [],
  ) {
    super(message);
    this.name = "FunctionError";
  }
}
