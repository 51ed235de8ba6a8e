/**
 * PackageVariant and PackageVariantSet (Porch's `config.porch.kpt.dev` kinds) and fan-out planning, with no
 * GitHub and no git: variant files in, problems, plans, package edits and pull request texts out. The
 * `src/github/` and `src/jobs/` layers execute what this decides.
 */

export {
  DASHBOARD_MARKER,
  DASHBOARD_TITLE,
  parseDashboardRow,
  parseDownstreamsMarker,
  renderDashboard,
} from "./dashboard.js";
export { downstreamState, managedPackage, readKptfileFacts } from "./downstream-state.js";
export { variantsMayFollow } from "./follows.js";
export type { InjectableResource } from "./injection.js";
export { isVariantFile, loadVariants, VARIANTS_DIR } from "./load.js";
export {
  applyVariantMutations,
  type MutationOptions,
  type MutationResult,
  type VariantChange,
} from "./mutations.js";
export { type SelectableObject, selectableObjects } from "./objects.js";
export {
  type LoadedVariant,
  parseVariantFile,
} from "./parse.js";
export { planFanout, revisionLabel, upstreamFromCatalog } from "./plan.js";
export type {
  DeclinedPullRequest,
  DownstreamPackageState,
  FanoutAction,
  FanoutPlan,
  ManagedPackage,
  OpenPullRequest,
  PackageRef,
  PublishedRevision,
  SourceIndex,
  SourceState,
  UpstreamIndex,
  UpstreamPackageState,
} from "./plan-types.js";
export { formatProblem, type VariantProblem } from "./problem.js";
export {
  formatVariantPullRequest,
  openPullRequestFromBody,
  parseVariantPullRequestBody,
  type VariantPullRequest,
  variantPullRequestLabels,
} from "./pull-request.js";
export {
  planRebase,
  type RebaseFacts,
  rebaseWhenOf,
} from "./rebase.js";
export {
  isRegistrationFile,
  type ObjectMetadata,
  REGISTRATIONS_DIR,
  REGISTRATIONS_REPO,
  type RegistrationFile,
  revisionMetadata,
  withRegistrations,
} from "./registrations.js";
export type { RepositoryInfo } from "./repositories.js";
export {
  type ChecksState,
  planRollout,
  type RolloutControls,
  type RolloutFacts,
  type RolloutInput,
  type RolloutPlan,
  type RolloutStatus,
  stepOf,
} from "./rollout.js";
export {
  isSourceUpstream,
  type PackageVariant,
  type Upstream,
} from "./schema.js";
export {
  sourceKey,
  sourceOf,
} from "./source-upstream.js";
export {
  finalizersOf,
  isTerminating,
  PACKAGE_VARIANT_FINALIZER,
  releaseFinalizer,
  type TerminatingVariant,
  VARIANTS_README,
  withoutTerminating,
} from "./terminating.js";
export {
  DELETION_POLICY_ANNOTATION,
  MANAGED_BY_ANNOTATION,
  SPEC_HASH_ANNOTATION,
} from "./tracking.js";
export {
  parseRefusals,
  refusalHint,
  refusalMessage,
  UPSTREAM_NOT_ALLOWED,
  type UpstreamRefusal,
} from "./upstream-refusal.js";

export { VariantMutationError } from "./yaml-files.js";
