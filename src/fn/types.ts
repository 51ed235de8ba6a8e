import type { FunctionResult, KrmItem, ResourceList, Untouched } from "../api/resource-list.js";

export type { FunctionResult, KrmItem, ResourceList, Untouched } from "../api/resource-list.js";

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
  /** What a run over this run's own output does, where it provably changes nothing (absent: not promised). */
  rerun?: Rerun;
}

/** A split whose items' shares always decide the results: combine never leaves them to the whole list. */
export interface DecidingSplit extends ItemSplit {
  combine(shares: readonly unknown[]): FunctionResult[];
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

/**
 * A field of a resource as a path of keys, sequence elements included as `*`: `["spec", "replicas"]`,
 * `["spec", "containers", "*", "image"]` (`*` meets an index, never a map's key); `**` stands for any run of keys (none included), so
 * `["**", "namespace"]` is every field named `namespace`. What a Rerun says it reads, writes and
 * creates. A field read or written is a leaf (a scalar, or a sequence with its elements named too); a
 * map is named where its presence is read or it may be created, and two steps meet where one field is
 * named by both (no pattern holds another).
 */
export type FieldPattern = readonly string[];

/** An item a function's run may change on its own output, or whose second share it cannot tell. */
export const UNSETTLED: unique symbol = Symbol("unsettled");

/**
 * A function run again over its own output (ItemSplit.rerun), declared beside its code for a config
 * (and release) under which that run provably changes no item: kpt renders the bot's commit of a
 * render again, and where every step of the pipeline declares this (and no later step writes what an
 * earlier one reads or writes) the bot answers that render from the first one's shares, running
 * nothing (src/jobs/kpt-renderer/settled.ts). A declaration that does not hold changes what a check
 * says: test/jobs/kpt-renderer-settled.test.ts renders each one twice and compares.
 */
export interface Rerun {
  /**
   * The item's share of a run over the item this run left, from its share of this run; UNSETTLED
   * where that run could change the item (or the share cannot be told from this one).
   */
  again(share: unknown): unknown;
  /**
   * Every field whose value decides what a run does to the item and reports of it, and every field
   * it may write, from the item's share of this run: a later step that writes one of them may make
   * this one's second run differ.
   */
  reads(share: unknown): readonly FieldPattern[];
  /** Every field a run may write (set, or add) in the item, from the item's share of this run. */
  writes(share: unknown): readonly FieldPattern[];
  /**
   * Every map a run may add to the item where it is missing (as a leaf's parent): a step that reads
   * whether such a map is there names it among its reads. Absent: none.
   */
  creates?(share: unknown): readonly FieldPattern[];
}
