/**
 * Whether a built-in Kubernetes kind is namespaced, keyed by exact apiVersion and kind, as the kpt
 * functions SDK knows it (the same table kustomize's kyaml precomputes). Kinds not listed are unknown:
 * the catalog functions then decide by whether `metadata.namespace` is set, or by their own rule.
 */
const CLUSTER_SCOPED: Record<string, readonly string[]> = {
  v1: ["ComponentStatus", "Namespace", "Node", "NodeProxyOptions", "PersistentVolume"],
  "admissionregistration.k8s.io/v1": ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"],
  "admissionregistration.k8s.io/v1beta1": ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"],
  "apiextensions.k8s.io/v1": ["CustomResourceDefinition"],
  "apiextensions.k8s.io/v1beta1": ["CustomResourceDefinition"],
  "apiregistration.k8s.io/v1": ["APIService"],
  "apiregistration.k8s.io/v1beta1": ["APIService"],
  "certificates.k8s.io/v1": ["CertificateSigningRequest"],
  "certificates.k8s.io/v1beta1": ["CertificateSigningRequest"],
  "flowcontrol.apiserver.k8s.io/v1beta1": ["FlowSchema", "PriorityLevelConfiguration"],
  "networking.k8s.io/v1": ["IngressClass"],
  "networking.k8s.io/v1beta1": ["IngressClass"],
  "node.k8s.io/v1": ["RuntimeClass"],
  "node.k8s.io/v1beta1": ["RuntimeClass"],
  "policy/v1beta1": ["PodSecurityPolicy"],
  "rbac.authorization.k8s.io/v1": ["ClusterRole", "ClusterRoleBinding"],
  "rbac.authorization.k8s.io/v1beta1": ["ClusterRole", "ClusterRoleBinding"],
  "scheduling.k8s.io/v1": ["PriorityClass"],
  "scheduling.k8s.io/v1beta1": ["PriorityClass"],
  "storage.k8s.io/v1": ["CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"],
  "storage.k8s.io/v1beta1": ["CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"],
};

const NAMESPACE_SCOPED: Record<string, readonly string[]> = {
  v1: [
    "ConfigMap",
    "Endpoints",
    "Event",
    "LimitRange",
    "PersistentVolumeClaim",
    "Pod",
    "PodAttachOptions",
    "PodExecOptions",
    "PodPortForwardOptions",
    "PodProxyOptions",
    "PodTemplate",
    "ReplicationController",
    "ResourceQuota",
    "Secret",
    "Service",
    "ServiceAccount",
    "ServiceProxyOptions",
  ],
  "apps/v1": ["ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"],
  "autoscaling/v1": ["HorizontalPodAutoscaler", "Scale"],
  "autoscaling/v2beta1": ["HorizontalPodAutoscaler"],
  "autoscaling/v2beta2": ["HorizontalPodAutoscaler"],
  "batch/v1": ["CronJob", "Job"],
  "batch/v1beta1": ["CronJob"],
  "coordination.k8s.io/v1": ["Lease"],
  "coordination.k8s.io/v1beta1": ["Lease"],
  "discovery.k8s.io/v1": ["EndpointSlice"],
  "discovery.k8s.io/v1beta1": ["EndpointSlice"],
  "events.k8s.io/v1": ["Event"],
  "events.k8s.io/v1beta1": ["Event"],
  "extensions/v1beta1": ["Ingress"],
  "networking.k8s.io/v1": ["Ingress", "NetworkPolicy"],
  "networking.k8s.io/v1beta1": ["Ingress"],
  "policy/v1": ["PodDisruptionBudget"],
  "policy/v1beta1": ["PodDisruptionBudget"],
  "rbac.authorization.k8s.io/v1": ["Role", "RoleBinding"],
  "rbac.authorization.k8s.io/v1beta1": ["Role", "RoleBinding"],
  "storage.k8s.io/v1beta1": ["CSIStorageCapacity"],
};

function index(
  table: Record<string, readonly string[]>,
  value: boolean,
  into: Map<string, Map<string, boolean>>,
): void {
  for (const [apiVersion, kinds] of Object.entries(table)) {
    let byKind = into.get(apiVersion);
    if (!byKind) {
      byKind = new Map();
      into.set(apiVersion, byKind);
    }
    for (const kind of kinds) byKind.set(kind, value);
  }
}

/** apiVersion → kind → namespaced (asked of every resource: no key text made per question). */
const KNOWN_SCOPES: ReadonlyMap<string, ReadonlyMap<string, boolean>> = (() => {
  const m = new Map<string, Map<string, boolean>>();
  index(CLUSTER_SCOPED, false, m);
  index(NAMESPACE_SCOPED, true, m);
  return m;
})();

/** true: namespaced; false: cluster-scoped; undefined: a kind the table does not know. */
export function knownNamespaceScope(apiVersion: string, kind: string): boolean | undefined {
  return KNOWN_SCOPES.get(apiVersion)?.get(kind);
}
