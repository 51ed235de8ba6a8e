import type { Document, YAMLMap } from "yaml";
import { catalogReleases } from "../../releases.js";
import {
  type BuiltinFunction,
  type FunctionContext,
  FunctionError,
  type ItemSplit,
  type ResourceList,
  type Untouched,
} from "../../types.js";
import { rootMap } from "./catalog-fields.js";
import { errorResult } from "./catalog-results.js";

/**
 * The start every catalog builtin shares: the release the image names (the newest of its range when it
 * names none), its functionConfig read and validated for that release, and a refused config answered
 * as that release answers it — then the function's own work. Each builtin keeps only what differs.
 */
export interface CatalogFunction<C> {
  name: string;
  /** The catalog releases reproduced: `[from, to]` (to the newest when absent), as catalogReleases reads them. */
  range: readonly [string, string?];
  /** The config, or the message it is refused with. */
  readConfig(config: Document | undefined, release: string): C | string;
  /** What `release` does with a refused config: a result (returning the list) or a failure (throwing). */
  refuse(message: string, input: ResourceList, release: string): ResourceList;
  run(input: ResourceList, config: C, release: string, ctx: FunctionContext): ResourceList;
  /** What a run with this (accepted) config provably leaves alone (BuiltinFunction.untouched). */
  untouched?(config: C, release: string): Untouched;
  /** The run taken apart by item, for this (accepted) config (BuiltinFunction.split). */
  split?(config: C, release: string): ItemSplit | undefined;
}

export function catalogFunction<C>(fn: CatalogFunction<C>): BuiltinFunction {
  const releases = catalogReleases(fn.name, fn.range[0], fn.range[1]);
  const newest = releases.at(-1) as string;
  const untouched = fn.untouched;
  const split = fn.split;
  return {
    name: fn.name,
    releases,
    run(input, ctx) {
      const release = ctx.release ?? newest;
      const config = fn.readConfig(input.functionConfig, release);
      if (typeof config === "string") return fn.refuse(config, input, release);
      return fn.run(input, config, release, ctx);
    },
    ...(untouched && {
      untouched(functionConfig, given) {
        const release = given ?? newest;
        const config = fn.readConfig(functionConfig, release);
        // A refused config promises nothing (the run reports it, or fails).
        return typeof config === "string" ? {} : untouched(config, release);
      },
    }),
    ...(split && {
      split(functionConfig, given) {
        const release = given ?? newest;
        const config = fn.readConfig(functionConfig, release);
        // A refused config is the run's to report.
        return typeof config === "string" ? undefined : split(config, release);
      },
    }),
  };
}

/** A refusal reported as an error result, the run going on to exit as the release does (kustomize's functions). */
export function refuseAsResult(prefix = ""): CatalogFunction<unknown>["refuse"] {
  return (message, input) => {
    input.results.push(errorResult(`${prefix}${message}`));
    return input;
  };
}

/** A refusal as the kyaml framework makes it: the run fails with the message on stderr and no result. */
export function refuseAsFailure(message: string): never {
  throw new FunctionError(message);
}

/** Each resource whose root is a map, checking for cancellation between resources. */
export function eachResource(
  items: readonly Document[],
  ctx: FunctionContext,
  visit: (doc: Document, root: YAMLMap) => void,
): void {
  for (const doc of items) {
    ctx.signal?.throwIfAborted();
    const root = rootMap(doc);
    if (root) visit(doc, root);
  }
}

/** Each item's share of a split run (ItemSplit.item on every item in order), checking for cancellation between items. */
export function itemShares(items: readonly Document[], split: ItemSplit, ctx: FunctionContext): unknown[] {
  const shares: unknown[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    ctx.signal?.throwIfAborted();
    shares[i] = split.item(items[i]!); // i < items.length
  }
  return shares;
}
