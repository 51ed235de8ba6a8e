export {
  byPackageThenRevision,
  type DiscoverInput,
  discoverRevisions,
  nextRevision,
  type PackageRevision,
  type PullRequestInfo,
  revisionName,
} from "./discover.js";
export { DRAFT_PREFIX, formatDraftBranch, parseDraftBranch } from "./draft-branch.js";
export { refNameProblem } from "./git-ref.js";
export { DELETION_LABEL } from "./labels.js";
export { transitionProblem } from "./lifecycle.js";
export { parsePackageBranch } from "./package-branch.js";
export { packagePathProblem } from "./package-path.js";
export {
  decideReject,
  type OpenProposal,
  planDeletionProposal,
} from "./proposals.js";
export {
  decidePublish,
  type PublishInput,
} from "./publish.js";
export { indexRefs, type RefInfo, refConflict } from "./refs.js";

export { formatRevisionTag, parseRevisionTag } from "./revision-tag.js";
export { planRollback } from "./rollback.js";
export { formatSummary } from "./summary/format.js";
export { parseSummary, summaryNeedsUpdate } from "./summary/parse.js";
export type {
  PackageChangeSummary,
  SummaryInput,
} from "./summary/types.js";
export {
  formatVariantBranch,
  parseVariantBranch,
} from "./variant-branch.js";
export { workspaceProblem } from "./workspace.js";
