import { type MergeInput, type MergeResult, mergePackage } from "../merge/index.js";
import {
  applyVariantMutations,
  type InjectableResource,
  type MutationOptions,
  type MutationResult,
  type PackageVariant,
} from "../variants/index.js";

/**
 * What the fan-out needs of the pure package engines besides the renderer: kpt's 3-way merge and a
 * variant's mutations. The app's runs them in a worker thread within the operator's bound
 * (bounded/bounded.ts); inProcessEngine runs them here (the Action, the command line, tests).
 */
export interface PackageEngine {
  /** mergePackage: throws MergeError as it does, or WorkTookTooLong past the bound. */
  merge(input: MergeInput): Promise<MergeResult>;
  /** applyVariantMutations: throws VariantMutationError as it does, or WorkTookTooLong past the bound. */
  mutate(
    files: ReadonlyMap<string, string>,
    variant: PackageVariant,
    injectable: readonly InjectableResource[],
    options: MutationOptions,
  ): Promise<MutationResult>;
}

/** The engines on the calling thread, with no bound. */
export const inProcessEngine: PackageEngine = {
  merge: async (input) => mergePackage(input),
  mutate: async (files, variant, injectable, options) =>
    applyVariantMutations(files, variant, injectable, options),
};
