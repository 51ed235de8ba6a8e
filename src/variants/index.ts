/**
 * PackageVariant and PackageVariantSet (Porch's `config.porch.kpt.dev` kinds) and fan-out planning, with no
 * GitHub and no git: variant files in, problems, plans, package edits and pull request texts out. The
 * `src/github/` and `src/jobs/` layers execute what this decides.
 */

export {
  DASHBOARD_MARKER,
  DASHBOARD_TITLE,
  type DashboardInput,
  formatDownstreamsMarker,
  isDashboardBody,
  parseDownstreamsMarker,
  renderDashboard,
} from "./dashboard.js";
export { downstreamState, type KptfileFacts, managedPackage, readKptfileFacts } from "./downstream-state.js";
export { expandPackageVariantSet, VARIANT_SET_ANNOTATION } from "./expand.js";
export { type ExprEnv, ExpressionError, evaluateExpression } from "./expressions.js";
export {
  CONFIG_INJECTION_ANNOTATION,
  INJECTED_RESOURCE_ANNOTATION,
  type InjectableResource,
  type InjectionPointResult,
} from "./injection.js";
export { variantFileJsonSchema } from "./json-schema.js";
export type { KptFunction, Pipeline } from "./kptfile-function.js";
export { isVariantFile, type LoadedVariants, loadVariants, VARIANTS_DIR, type VariantFile } from "./load.js";
export { BODY_BUDGET, GITHUB_BODY_LIMIT } from "./markdown.js";
export {
  applyVariantMutations,
  KPTFILE,
  type MutationOptions,
  type MutationResult,
  type VariantChange,
} from "./mutations.js";
export { packageVariantName } from "./naming.js";
export { PACKAGE_CONTEXT_FILE, PACKAGE_CONTEXT_NAME } from "./package-context.js";
export {
  type LoadedSet,
  type LoadedVariant,
  type Locate,
  type ParsedVariantFile,
  type ParseOptions,
  parseVariantFile,
  type VariantSource,
} from "./parse.js";
export { isVariantFunction, PACKAGE_VARIANT_FUNC_PREFIX, variantFunctionName } from "./pipeline-edit.js";
export { type FanoutInput, planFanout, revisionLabel, upstreamFromCatalog } from "./plan.js";
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
  AUTOMATED_LABEL,
  formatVariantPullRequest,
  formatVariantPullRequestTitle,
  openPullRequestFromBody,
  parseVariantPullRequestBody,
  parseVariantPullRequestTitle,
  UPDATE_LABEL,
  type VariantPullRequest,
  type VariantPullRequestKind,
  type VariantPullRequestMarker,
  variantPullRequestLabels,
} from "./pull-request.js";
export {
  DEFAULT_REBASE_WHEN,
  planRebase,
  type RebaseDecision,
  type RebaseFacts,
  rebaseWhenOf,
} from "./rebase.js";
export {
  findRepository,
  type RepositoryInfo,
  selectorAccounts,
  selectRepositories,
} from "./repositories.js";
export {
  type ChecksState,
  capacity,
  closedNow,
  inWindow,
  type MemberState,
  planRollout,
  type RolloutControls,
  type RolloutFacts,
  type RolloutInput,
  type RolloutMember,
  type RolloutPlan,
  type RolloutStatus,
  type RolloutStepStatus,
  type StepState,
  stepOf,
} from "./rollout.js";
export {
  type AdoptionPolicy,
  type DeletionPolicy,
  type Downstream,
  type GitUpstream,
  type InjectionSelector,
  isSourceUpstream,
  type OciUpstream,
  PACKAGE_VARIANT_API_VERSION,
  PACKAGE_VARIANT_KIND,
  type PackageContext,
  type PackageVariant,
  type PackageVariantSpec,
  packageVariantSchema,
  type SourceUpstream,
  type TarballUpstream,
  type Upstream,
} from "./schema.js";
export {
  PACKAGE_VARIANT_SET_API_VERSION,
  PACKAGE_VARIANT_SET_KIND,
  type PackageVariantSet,
  type PackageVariantTemplate,
  packageVariantSetSchema,
} from "./set-schema.js";
export {
  shortDigest,
  sourceKey,
  sourceOf,
  upstreamLabel,
  upstreamVersion,
} from "./source-upstream.js";
export {
  DELETION_POLICY_ANNOTATION,
  MANAGED_BY_ANNOTATION,
  SPEC_HASH_ANNOTATION,
  variantSpecHash,
} from "./tracking.js";
export { type ValidatedVariants, type VariantContext, validateVariants } from "./validate.js";
export { VariantMutationError } from "./yaml-files.js";
