/**
 * The package catalog, as operator-registry's file-based catalog channels: per package its published
 * revisions, channels and upgrade edges (`replaces`, `skips`), kept in `catalog.yaml` on branch
 * `porchlight/catalog`. Pure: text in, text and answers out.
 */
export {
  addRevision,
  deprecate,
  promote,
  removeRevision,
  sameReference,
  skip,
  undeprecate,
  withdrawRevision,
} from "./edit.js";
export { CatalogError, formatCatalogProblem } from "./errors.js";
export {
  channelHead,
  describeReference,
  findHead,
  findPackage,
  reachingHead,
  skippedIn,
  upgradePath,
  upgradesFrom,
} from "./graph.js";
export { knownCatalog } from "./known.js";
export { EMPTY_CATALOG, parseCatalog } from "./parse.js";
export {
  deprecation,
  highestRevision,
  listChannels,
  listPackages,
  listRevisions,
} from "./queries.js";
export {
  CATALOG_BRANCH,
  CATALOG_FILE,
  type Catalog,
  type DeprecationReference,
  revisionNumber,
} from "./schema.js";
