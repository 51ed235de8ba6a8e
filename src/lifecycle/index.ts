export {
  type AnnotationLevel,
  batchAnnotations,
  type CheckAnnotation,
  type CheckOutput,
  fitAnnotation,
  fitCheckOutput,
  MAX_ANNOTATIONS_PER_CALL,
  MAX_CHECK_OUTPUT_CHARS,
  truncateText,
} from "./check-run.js";
export {
  byPackageThenRevision,
  type DiscoverInput,
  discoverRevisions,
  nextRevision,
  type PackageRevision,
  type PullRequestInfo,
  revisionName,
} from "./discover.js";
export { DRAFT_PREFIX, type DraftRef, formatDraftBranch, parseDraftBranch } from "./draft-branch.js";
export { refNameProblem } from "./git-ref.js";
export { DELETION_LABEL } from "./labels.js";
export { LIFECYCLES, type Lifecycle, transitionProblem } from "./lifecycle.js";
export { type PackageBranch, parsePackageBranch } from "./package-branch.js";
export { packagePathProblem } from "./package-path.js";
export {
  type DeletionPlan,
  decideReject,
  type OpenProposal,
  planDeletionProposal,
  type RejectDecision,
} from "./proposals.js";
export {
  type CheckRunInfo,
  checkProblems,
  decidePublish,
  type PublishDecision,
  type PublishInput,
  type PublishTrigger,
  REQUIRED_CHECKS,
  type ReviewInfo,
} from "./publish.js";
export { indexRefs, type RefInfo, type RefKind, refConflict, type ShortRef, shortRef } from "./refs.js";
export type { Parsed } from "./result.js";
export { formatRevisionTable } from "./revision-table.js";
export { formatRevisionTag, parseRevisionTag, type RevisionRef } from "./revision-tag.js";
export { freeWorkspace, planRollback, type RollbackInput, type RollbackPlan } from "./rollback.js";
export {
  formatSummary,
  MAX_COMMENT_CHARS,
  resourceName,
  SUMMARY_FORMAT_VERSION,
  SUMMARY_MARKER,
} from "./summary/format.js";
export { isSummaryComment, parseSummary, type SummaryMeta, summaryNeedsUpdate } from "./summary/parse.js";
export type {
  ChangeKind,
  ImageChange,
  PackageChangeSummary,
  RbacChange,
  ResourceChange,
  ResourceId,
  SummaryInput,
} from "./summary/types.js";
export {
  formatVariantBranch,
  parseVariantBranch,
  VARIANT_PREFIX,
  type VariantRef,
  variantNameProblem,
} from "./variant-branch.js";
export { workspaceProblem } from "./workspace.js";
