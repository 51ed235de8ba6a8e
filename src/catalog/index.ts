/**
 * The package catalog, as operator-registry's file-based catalog channels: per package its published
 * revisions, channels and upgrade edges (`replaces`, `skips`), kept in `catalog.yaml` on branch
 * `porchlight/catalog`. Pure: text in, text and answers out.
 */
export {
  type AddRevision,
  addRevision,
  type CatalogEdit,
  deprecate,
  promote,
  removeRevision,
  sameReference,
  skip,
  undeprecate,
} from "./edit.js";
export { CatalogError, type CatalogProblem, formatCatalogProblem } from "./errors.js";
export {
  channelHead,
  checkCatalog,
  describeReference,
  findChannel,
  findHead,
  findPackage,
  reachingHead,
  skippedIn,
  type UpgradePath,
  upgradePath,
} from "./graph.js";
export { EMPTY_CATALOG, type ParsedCatalog, parseCatalog } from "./parse.js";
export {
  type ChannelSummary,
  deprecation,
  listChannels,
  listPackages,
  listRevisions,
  type PackageSummary,
  type RevisionSummary,
} from "./queries.js";
export {
  CATALOG_BRANCH,
  CATALOG_FILE,
  CATALOG_SCHEMA,
  type Catalog,
  type CatalogChannel,
  type CatalogPackage,
  type CatalogRevision,
  type ChannelEntry,
  type Deprecation,
  type DeprecationReference,
  revisionNumber,
} from "./schema.js";
