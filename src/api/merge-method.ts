/** How a proposal is merged on publish (the repository's `mergeMethod`, GitHub's merge methods). */
export const MERGE_METHODS = ["merge", "squash", "rebase"] as const;
export type MergeMethod = (typeof MERGE_METHODS)[number];
