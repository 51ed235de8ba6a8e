import { AUTHORIZATION } from "./schemas-authorization.js";
import { PORCH } from "./schemas-porch.js";

/** One column of `kubectl get`'s table: its header, type, and where its value is in the object. */
interface PrinterColumn {
  name: string;
  type: "string" | "integer" | "boolean" | "date";
  /** `wide` only (`kubectl get -o wide`) above 0. */
  priority?: number;
  description: string;
  /** The cell of an object. */
  cell(obj: KubeObject): unknown;
}

/** An object of this API, as JSON. */
export type KubeObject = Record<string, unknown> & {
  apiVersion?: string;
  kind?: string;
  metadata?: Record<string, unknown>;
};

/** One resource the API serves: its names, verbs, table and schema. */
export interface ApiResource {
  group: string;
  version: string;
  /** The plural, as in the URL: `packagerevisions`. */
  resource: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  verbs: readonly string[];
  shortNames?: readonly string[];
  categories?: readonly string[];
  /**
   * Its subresources, each with its verbs: `approval` (PackageRevision's), `status` (Repository's, read
   * only). A verb a subresource does not list is refused (verbs.ts).
   */
  subresources: readonly { name: string; verbs: readonly string[]; why?: string }[];
  columns: readonly PrinterColumn[];
  /** Its schema's name in the OpenAPI documents. */
  schema: string;
  /** The fields `fieldSelector` may name. */
  selectableFields: readonly string[];
}

const path = (obj: KubeObject, ...keys: string[]): unknown => {
  let at: unknown = obj;
  for (const k of keys)
    at = typeof at === "object" && at !== null ? (at as Record<string, unknown>)[k] : undefined;
  return at;
};

const name: PrinterColumn = {
  name: "Name",
  type: "string",
  description: "The object's name.",
  cell: (o) => path(o, "metadata", "name"),
};
const spec = (
  header: string,
  field: string,
  type: PrinterColumn["type"],
  description: string,
): PrinterColumn => ({
  name: header,
  type,
  description,
  cell: (o) => path(o, "spec", field) ?? (type === "integer" ? 0 : ""),
});

const READ = ["get", "list", "watch"] as const;

const PORCH_GROUP = "porch.kpt.dev";
const PORCH_VERSION = "v1alpha1";

/** The columns both of Porch's revision tables start with. */
const REVISION_COLUMNS: readonly PrinterColumn[] = [
  name,
  spec("Package", "packageName", "string", "The package's path in its repository."),
  spec("WorkspaceName", "workspaceName", "string", "The revision's workspace."),
  spec("Revision", "revision", "integer", "The revision's number once published."),
];
const REPOSITORY_COLUMN = spec(
  "Repository",
  "repository",
  "string",
  "The repository registration holding it.",
);

/**
 * How long ago `at` (RFC 3339) was, as the API server prints a CRD's date column (apimachinery's
 * duration.HumanDuration): `45s`, `3m20s`, `2h5m`, `3d4h`, `1y30d`; `<unknown>` without one.
 */
function age(at: unknown, now = Date.now()): string {
  const t = typeof at === "string" ? Date.parse(at) : Number.NaN;
  if (Number.isNaN(t)) return "<unknown>";
  const seconds = Math.floor((now - t) / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  const part = (n: number, unit: string, rest: number, restUnit: string) =>
    rest === 0 ? `${n}${unit}` : `${n}${unit}${rest}${restUnit}`;
  if (minutes < 10) return part(minutes, "m", seconds % 60, "s");
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return part(hours, "h", minutes % 60, "m");
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return part(days, "d", hours % 24, "h");
  if (hours < 24 * 365 * 2) return `${days}d`;
  if (hours < 24 * 365 * 8) return part(Math.floor(days / 365), "y", days % 365, "d");
  return `${Math.floor(days / 365)}y`;
}

/** Porch's columns (its API server's table convertors), in its order. */
const PACKAGE_REVISIONS: ApiResource = {
  group: PORCH_GROUP,
  version: PORCH_VERSION,
  resource: "packagerevisions",
  singular: "packagerevision",
  kind: "PackageRevision",
  namespaced: true,
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  subresources: [{ name: "approval", verbs: ["get", "patch", "update"] }],
  columns: [
    ...REVISION_COLUMNS,
    {
      name: "Latest",
      type: "boolean",
      description: "Whether it is the package's latest published revision.",
      cell: (o) => path(o, "metadata", "labels", "kpt.dev/latest-revision") === "true",
    },
    spec("Lifecycle", "lifecycle", "string", "Draft, Proposed, Published or DeletionProposed."),
    REPOSITORY_COLUMN,
  ],
  schema: `${PORCH}.PackageRevision`,
  selectableFields: [
    "metadata.name",
    "metadata.namespace",
    "spec.revision",
    "spec.packageName",
    "spec.repository",
    "spec.workspaceName",
    "spec.lifecycle",
  ],
};

const PACKAGE_REVISION_RESOURCES: ApiResource = {
  group: PORCH_GROUP,
  version: PORCH_VERSION,
  resource: "packagerevisionresources",
  singular: "packagerevisionresources",
  kind: "PackageRevisionResources",
  namespaced: true,
  verbs: [...READ, "patch", "update"],
  subresources: [],
  columns: [
    ...REVISION_COLUMNS,
    REPOSITORY_COLUMN,
    {
      name: "Files",
      type: "integer",
      description: "How many files the package has.",
      cell: (o) => Object.keys((path(o, "spec", "resources") as object | undefined) ?? {}).length,
    },
  ],
  schema: `${PORCH}.PackageRevisionResources`,
  selectableFields: PACKAGE_REVISIONS.selectableFields,
};

/**
 * Namespaces: GitHub owners. Read one at a time (kubectl asks whether the namespace of a NotFound
 * exists), and listed as the owners whose registrations the caller can see (what `-A` covers).
 */
const NAMESPACES: ApiResource = {
  group: "",
  version: "v1",
  resource: "namespaces",
  singular: "namespace",
  kind: "Namespace",
  namespaced: false,
  verbs: ["get", "list"],
  shortNames: ["ns"],
  subresources: [],
  columns: [
    name,
    {
      name: "Status",
      type: "string",
      description: "Active: the GitHub owner exists.",
      cell: (o) => path(o, "status", "phase"),
    },
  ],
  schema: "io.k8s.api.core.v1.Namespace",
  selectableFields: ["metadata.name"],
};

/** Porch's Repository: the registrations porchlight keeps in the namespace's `.porchlight` repository. */
const REPOSITORIES: ApiResource = {
  group: "config.porch.kpt.dev",
  version: "v1alpha1",
  resource: "repositories",
  singular: "repository",
  kind: "Repository",
  namespaced: true,
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  // Porch's CRD: `kubectl get repo`
  shortNames: ["repo"],
  subresources: [
    {
      name: "status",
      verbs: ["get"],
      // Porch's controller writes it; porchlight has no controller and nothing to keep a written one in
      why: "a Repository's status is what porchlight reads of the repository from GitHub on each request",
    },
  ],
  // Porch's CRD's printer columns
  columns: [
    name,
    spec("Type", "type", "string", "git."),
    spec("Content", "content", "string", "Package."),
    {
      name: "Sync schedule",
      type: "string",
      description: "Not used: porchlight reads the repository on every request.",
      cell: (o) => path(o, "spec", "sync", "schedule") ?? "",
    },
    spec("Deployment", "deployment", "boolean", "Whether it is a deployment repository."),
    {
      name: "Ready",
      type: "string",
      description: "Whether porchlight can read it with the caller's token.",
      cell: (o) =>
        ((path(o, "status", "conditions") as { type?: string; status?: string }[] | undefined) ?? []).find(
          (c) => c.type === "Ready",
        )?.status ?? "",
    },
    {
      name: "Address",
      type: "string",
      description: "The git repository's address.",
      cell: (o) => path(o, "spec", "git", "repo") ?? "",
    },
    {
      name: "Branch",
      type: "string",
      description: "The branch its packages are published to.",
      cell: (o) => path(o, "spec", "git", "branch") ?? "",
    },
    {
      name: "Age",
      type: "date",
      description: "How long ago it was registered (the commit that added its registration).",
      cell: (o) => age(path(o, "metadata", "creationTimestamp")),
    },
  ],
  schema: "dev.kpt.porch.config.v1alpha1.Repository",
  selectableFields: ["metadata.name", "metadata.namespace"],
};

/**
 * Porch's PackageVariant and PackageVariantSet: the variant files of the namespace's management
 * repositories. Porch's CRDs declare no printer columns, so kubectl shows the name; they declare the
 * status subresource (Porch's controllers write it with `Status().Update`), served here too: porchlight's
 * fan-out is their controller, and works the status out on every read.
 */
const variantResource = (kind: string, version: string): ApiResource => ({
  group: "config.porch.kpt.dev",
  version,
  resource: `${kind.toLowerCase()}s`,
  singular: kind.toLowerCase(),
  kind,
  namespaced: true,
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
  subresources: [{ name: "status", verbs: ["get", "patch", "update"] }],
  columns: [name],
  schema: `dev.kpt.porch.config.${version}.${kind}`,
  selectableFields: ["metadata.name", "metadata.namespace"],
});

/**
 * authorization.k8s.io's self reviews (access-review.ts): `kubectl auth can-i` creates one and reads
 * the answer; nothing is kept.
 */
const selfReview = (kind: string): ApiResource => ({
  group: "authorization.k8s.io",
  version: "v1",
  resource: `${kind.toLowerCase()}s`,
  singular: "",
  kind,
  namespaced: false,
  verbs: ["create"],
  subresources: [],
  columns: [name],
  schema: `${AUTHORIZATION}.${kind}`,
  selectableFields: [],
});

/** Every resource the API serves, in discovery's order. */
export const API_RESOURCES: readonly ApiResource[] = [
  NAMESPACES,
  PACKAGE_REVISIONS,
  PACKAGE_REVISION_RESOURCES,
  REPOSITORIES,
  variantResource("PackageVariant", "v1alpha1"),
  // Porch's CRD serves its v1alpha2 only (v1alpha1: served false), and porchlight's files are v1alpha2
  variantResource("PackageVariantSet", "v1alpha2"),
  selfReview("SelfSubjectAccessReview"),
  selfReview("SelfSubjectRulesReview"),
];

/** One version of a group, with its resources; the core group's name is "". */
export interface GroupVersion {
  group: string;
  version: string;
  resources: ApiResource[];
}

/**
 * The group-versions, in discovery's order: a group's versions by Kubernetes' version priority (v1 before
 * v1beta2 before v1alpha2 before v1alpha1), as the API server orders them, its first the preferred one.
 */
export function apiGroups(): GroupVersion[] {
  const out: GroupVersion[] = [];
  for (const r of API_RESOURCES) {
    const known = out.find((g) => g.group === r.group && g.version === r.version);
    if (known) known.resources.push(r);
    else out.push({ group: r.group, version: r.version, resources: [r] });
  }
  const firstOf = new Map<string, number>();
  out.forEach((g, i) => {
    if (!firstOf.has(g.group)) firstOf.set(g.group, i);
  });
  return out.sort(
    (a, b) =>
      (firstOf.get(a.group) ?? 0) - (firstOf.get(b.group) ?? 0) ||
      versionPriority(b.version) - versionPriority(a.version),
  );
}

/** Kubernetes' version priority: GA over beta over alpha, then the higher numbers. */
function versionPriority(version: string): number {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version);
  if (!m) return -1;
  const stage = m[2] === undefined ? 2 : m[2] === "beta" ? 1 : 0;
  return stage * 1e8 + Number(m[1]) * 1e4 + Number(m[3] ?? 0);
}
