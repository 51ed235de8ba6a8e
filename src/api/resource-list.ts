import type { Document } from "yaml";

/**
 * The words of kpt's function interface (ResourceList, results), on the floor every layer may import:
 * the package model reads and writes them, the runtimes pass them. src/api imports nothing of the
 * project (docs/architecture.md).
 */

/** One KRM resource, as a parsed YAML document (comments, key order and quoting kept). */
export type KrmItem = Document;

type Severity = "error" | "warning" | "info";

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
