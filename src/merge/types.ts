import type { FileTree } from "../kpt/tree.js";

export const STRATEGIES = ["resource-merge", "fast-forward", "force-delete-replace", "copy-merge"] as const;
export type UpdateStrategy = (typeof STRATEGIES)[number];

/** Where the new upstream revision came from: written to the root Kptfile's upstreamLock. */
export interface UpstreamLock {
  repo: string;
  directory: string;
  /** The ref asked for: recorded in `upstream.git.ref`. */
  ref: string;
  /** The ref it resolved to, recorded in `upstreamLock.git.ref` (kpt: `<directory>/<ref>` when that tag exists); default `ref`. */
  resolvedRef?: string;
  commit: string;
}

export interface MergeInput {
  /** The upstream package as the local copy was cloned from (upstreamLock commit). */
  original: FileTree;
  /** The new upstream revision. */
  updated: FileTree;
  /** The local package. */
  local: FileTree;
  strategy?: UpdateStrategy;
  /** When given, the root Kptfile's upstream ref and upstreamLock move to it. */
  lock?: UpstreamLock;
}

export interface MergeConflict {
  /** Path in the tree. */
  file: string;
  /** 1-based first and last local line of the conflict. */
  lines: [number, number];
  message: string;
}

export interface MergeChange {
  file: string;
  /** `Kind/name` or `Kind/namespace/name` for a resource change. */
  resource?: string;
  action: "added" | "removed" | "modified" | "merged" | "kept";
  /** For a merged resource: the fields where upstream's new value replaced a local edit (dotted paths). */
  replacedLocal?: string[];
}

export interface MergeResult {
  tree: FileTree;
  conflicts: MergeConflict[];
  changes: MergeChange[];
}

/** A merge that cannot be done (fast-forward over local edits, a subpackage added on both sides). */
export class MergeError extends Error {
  /** kpt's words for the same refusal (its error text, without `Error: `), where kpt has some. */
  readonly kptText?: string;

  constructor(message: string, kptText?: string) {
    super(message);
    this.name = "MergeError";
    if (kptText !== undefined) this.kptText = kptText;
  }
}

/** What a strategy returns: a MergeResult, and the files it already wrote in kpt's format. */
export interface StrategyResult extends MergeResult {
  formatted?: ReadonlySet<string>;
}
