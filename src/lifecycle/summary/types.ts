/** A KRM resource as the summary names it. */
export interface ResourceId {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

export type ChangeKind = "added" | "changed" | "removed";

export interface ResourceChange {
  resource: ResourceId;
  change: ChangeKind;
  /** The file in the package that holds it (after the change; before it for a removal). */
  file?: string;
}

/** A container image that publishing would change; `from` absent for a new container, `to` for a removed one. */
export interface ImageChange {
  resource: ResourceId;
  container: string;
  from?: string;
  to?: string;
}

/** A change to who may do what: Roles, ClusterRoles and their bindings, ServiceAccounts. */
export interface RbacChange {
  resource: ResourceId;
  change: ChangeKind;
  /** Short readable lines, e.g. `get, list, watch on pods` or `binds ClusterRole cluster-admin to sa/default`. */
  details?: string[];
}

/**
 * What publishing one package would change, computed from the base and head trees (by the github
 * layer); the summary comment only formats it.
 */
export interface PackageChangeSummary {
  /** The package path, e.g. `net/dns/coredns`. */
  package: string;
  /** The revision it will publish as; undefined when not known yet. */
  revision?: number;
  /** True for a deletion proposal: the whole package goes. */
  deletion?: boolean;
  resources: ResourceChange[];
  images: ImageChange[];
  rbac: RbacChange[];
  namespaces: { added: string[]; removed: string[] };
  /** Why the package's resources were not compared (e.g. it is over a size limit); shown instead of counts. */
  notSummarized?: string;
}

export interface SummaryInput {
  /** The pull request head the summary describes: the bot edits the comment when it changes. */
  headSha: string;
  packages: PackageChangeSummary[];
}
