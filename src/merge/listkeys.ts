/**
 * Which lists merge element by element, and by which keys: the `x-kubernetes-patch-strategy: merge`
 * lists of the Kubernetes OpenAPI schema kpt's merge reads (kyaml's built-in schema). A list not named
 * here, and every list of a kind kpt has no schema for (custom resources), is atomic: it is taken whole
 * from whichever side changed it.
 */

/** Merge keys of a list; an empty array means a list of scalars merged by value (like `finalizers`). */
export type ListKeys = readonly string[];

const POD_SPEC: Record<string, ListKeys> = {
  containers: ["name"],
  initContainers: ["name"],
  ephemeralContainers: ["name"],
  volumes: ["name"],
  imagePullSecrets: ["name"],
  hostAliases: ["ip"],
  topologySpreadConstraints: ["topologyKey", "whenUnsatisfiable"],
  resourceClaims: ["name"],
  schedulingGates: ["name"],
};

const CONTAINER: Record<string, ListKeys> = {
  ports: ["containerPort", "protocol"],
  env: ["name"],
  volumeMounts: ["mountPath"],
  volumeDevices: ["devicePath"],
};

const OBJECT_META: Record<string, ListKeys> = {
  finalizers: [],
  ownerReferences: ["uid"],
};

const CONTAINER_LISTS = new Set(["containers", "initContainers", "ephemeralContainers"]);

/** Where each kind (by `group/Kind`) keeps its pod spec. */
const POD_SPEC_PATHS: Record<string, readonly string[]> = {
  "/Pod": ["spec"],
  "/PodTemplate": ["template", "spec"],
  "/ReplicationController": ["spec", "template", "spec"],
  "apps/Deployment": ["spec", "template", "spec"],
  "apps/StatefulSet": ["spec", "template", "spec"],
  "apps/DaemonSet": ["spec", "template", "spec"],
  "apps/ReplicaSet": ["spec", "template", "spec"],
  "batch/Job": ["spec", "template", "spec"],
  "batch/CronJob": ["spec", "jobTemplate", "spec", "template", "spec"],
};

/** Kinds kpt's built-in schema knows (core and common groups): their metadata lists merge too. */
const KNOWN_GROUPS = new Set([
  "",
  "apps",
  "batch",
  "rbac.authorization.k8s.io",
  "networking.k8s.io",
  "policy",
  "autoscaling",
  "storage.k8s.io",
  "apiextensions.k8s.io",
  "admissionregistration.k8s.io",
  "scheduling.k8s.io",
  "coordination.k8s.io",
  "discovery.k8s.io",
]);

/** The builtin kinds of the known groups (a CR in a core-like group is still schemaless). */
const KNOWN_KINDS = new Set([
  "Pod",
  "PodTemplate",
  "ReplicationController",
  "Service",
  "ConfigMap",
  "Secret",
  "Namespace",
  "ServiceAccount",
  "PersistentVolume",
  "PersistentVolumeClaim",
  "Endpoints",
  "LimitRange",
  "ResourceQuota",
  "Node",
  "Event",
  "Deployment",
  "StatefulSet",
  "DaemonSet",
  "ReplicaSet",
  "ControllerRevision",
  "Job",
  "CronJob",
  "Role",
  "ClusterRole",
  "RoleBinding",
  "ClusterRoleBinding",
  "Ingress",
  "IngressClass",
  "NetworkPolicy",
  "PodDisruptionBudget",
  "HorizontalPodAutoscaler",
  "StorageClass",
  "CustomResourceDefinition",
  "ValidatingWebhookConfiguration",
  "MutatingWebhookConfiguration",
  "PriorityClass",
  "Lease",
  "EndpointSlice",
]);

/** True when kpt has a schema for the kind: only then are any of its lists merged by key. */
function hasSchema(group: string, kind: string): boolean {
  return KNOWN_GROUPS.has(group) && KNOWN_KINDS.has(kind);
}

/**
 * The merge keys of the list at `path` (field names from the resource root, list positions left
 * out) in a resource of `group`/`kind`, or undefined when the list is atomic.
 */
export function listKeys(group: string, kind: string, path: readonly string[]): ListKeys | undefined {
  if (group === KUSTOMIZE_GROUP && kind === "Kustomization") {
    return path.length === 1 && GENERATORS.has(path[0] ?? "") ? ["name"] : undefined;
  }
  if (!hasSchema(group, kind)) return undefined;
  if (path.length === 2 && path[0] === "metadata") return OBJECT_META[path[1] ?? ""];
  if (group === "" && kind === "Service" && path.length === 2 && path[0] === "spec" && path[1] === "ports") {
    return ["port", "protocol"];
  }
  const podSpec = POD_SPEC_PATHS[`${group}/${kind}`];
  if (!podSpec || !startsWith(path, podSpec)) return undefined;
  const rest = path.slice(podSpec.length);
  if (rest.length === 2 && rest[0] === "metadata") return OBJECT_META[rest[1] ?? ""];
  return podSpecKeys(rest);
}

/** kyaml's built-in schema for Kustomization files: the generators merge by name. */
const KUSTOMIZE_GROUP = "kustomize.config.k8s.io";
const GENERATORS = new Set(["configMapGenerator", "secretGenerator"]);

function podSpecKeys(rest: readonly string[]): ListKeys | undefined {
  if (rest.length === 1) return POD_SPEC[rest[0] ?? ""];
  if (rest.length === 2 && CONTAINER_LISTS.has(rest[0] ?? "")) return CONTAINER[rest[1] ?? ""];
  return undefined;
}

const objectMetaKeys = (rest: readonly string[]) =>
  rest.length === 1 ? OBJECT_META[rest[0] ?? ""] : undefined;

const podTemplateKeys = (rest: readonly string[]) =>
  rest[0] === "spec"
    ? podSpecKeys(rest.slice(1))
    : rest[0] === "metadata"
      ? objectMetaKeys(rest.slice(1))
      : undefined;

/**
 * The Kubernetes definitions a schema comment may name (`# {"$ref": "#/definitions/<name>"}`), as the
 * merge keys of the lists below the field that carries it (path relative to that field).
 */
const DEFINITIONS: Record<string, (rest: readonly string[]) => ListKeys | undefined> = {
  "io.k8s.api.core.v1.PodSpec": podSpecKeys,
  "io.k8s.api.core.v1.Container": (rest) => (rest.length === 1 ? CONTAINER[rest[0] ?? ""] : undefined),
  "io.k8s.api.core.v1.PodTemplateSpec": podTemplateKeys,
  "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": objectMetaKeys,
  "io.k8s.api.apps.v1.DeploymentSpec": (rest) =>
    rest[0] === "template" ? podTemplateKeys(rest.slice(1)) : undefined,
  "io.k8s.api.core.v1.ServiceSpec": (rest) =>
    rest.length === 1 && rest[0] === "ports" ? ["port", "protocol"] : undefined,
};

/**
 * A field schema from a comment, as kyaml reads one: a JSON OpenAPI schema in the field's line or head
 * comment. `$ref` names a definition; inline, `x-kubernetes-patch-strategy: merge` with
 * `x-kubernetes-patch-merge-key` makes the field a list merged by that key. Undefined when the text
 * is not such a schema.
 */
export interface CommentSchema {
  /** Merge keys of the list at `rest` below the commented field ([] = the field itself). */
  keysAt: (rest: readonly string[]) => ListKeys | undefined;
}

export function commentSchema(comment: string): CommentSchema | undefined {
  const text = comment.trim().replace(/^#+/, "");
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isSchemaObject(schema) || Array.isArray(schema)) return undefined;
  if (Object.keys(schema).length === 0) return undefined;
  return { keysAt: (rest) => schemaKeys(schema, rest) };
}

/** A JSON object of a comment's schema (a list too, as kyaml indexes into either). */
function isSchemaObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

function schemaKeys(schema: Record<string, unknown>, rest: readonly string[]): ListKeys | undefined {
  const ref = schema.$ref;
  if (typeof ref === "string") {
    const def = DEFINITIONS[ref.replace(/^#\/definitions\//, "")];
    return def ? def(rest) : undefined;
  }
  if (rest.length === 0) {
    const strategy = String(schema["x-kubernetes-patch-strategy"] ?? "");
    if (!strategy.split(",").includes("merge")) return undefined;
    const key = schema["x-kubernetes-patch-merge-key"];
    return typeof key === "string" && key !== "" ? [key] : [];
  }
  const props = schema.properties;
  const next = isSchemaObject(props) ? props[rest[0] ?? ""] : undefined;
  if (isSchemaObject(next)) return schemaKeys(next, rest.slice(1));
  const items = schema.items;
  if (isSchemaObject(items)) return schemaKeys(items, rest);
  return undefined;
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((p, i) => path[i] === p);
}
