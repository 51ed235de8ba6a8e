/**
 * Where resources refer to other resources by name, after kustomize's built-in `nameReference` field
 * specs (the table the catalog's ensure-name-substring uses to fix references to renamed resources).
 * Paths are `/`-separated; a sequence met on the way is walked element by element, as kustomize does.
 */

/** A kind of resource that is referred to (empty parts match anything). */
export interface NameRefTarget {
  group: string;
  version: string;
  kind: string;
}

/** A field in referrers of `kind` (and `group`, when given) that holds the target's name. */
interface NameRefField {
  group: string;
  kind: string;
  path: string[];
}

export interface NameRefRule {
  target: NameRefTarget;
  referrers: NameRefField[];
}

/** Where each workload kind keeps its pod spec. */
const POD_SPEC_HOLDERS: readonly [string, string, string][] = [
  ["", "Pod", "spec"],
  ["", "ReplicationController", "spec/template/spec"],
  ["", "Deployment", "spec/template/spec"],
  ["", "ReplicaSet", "spec/template/spec"],
  ["", "DaemonSet", "spec/template/spec"],
  ["apps", "StatefulSet", "spec/template/spec"],
  ["batch", "Job", "spec/template/spec"],
  ["batch", "CronJob", "spec/jobTemplate/spec/template/spec"],
];

function inPodSpecs(...podPaths: string[]): NameRefField[] {
  const out: NameRefField[] = [];
  for (const [group, kind, prefix] of POD_SPEC_HOLDERS) {
    for (const p of podPaths) out.push({ group, kind, path: `${prefix}/${p}`.split("/") });
  }
  return out;
}

function at(kind: string, path: string, group = ""): NameRefField {
  return { group, kind, path: path.split("/") };
}

function target(kind: string, group = "", version = ""): NameRefTarget {
  return { group, version, kind };
}

export const NAME_REFERENCES: readonly NameRefRule[] = [
  {
    target: target("ConfigMap", "", "v1"),
    referrers: [
      ...inPodSpecs(
        "volumes/configMap/name",
        "containers/env/valueFrom/configMapKeyRef/name",
        "initContainers/env/valueFrom/configMapKeyRef/name",
        "containers/envFrom/configMapRef/name",
        "initContainers/envFrom/configMapRef/name",
        "volumes/projected/sources/configMap/name",
      ),
      at("Role", "rules/resourceNames", "rbac.authorization.k8s.io"),
      at("ClusterRole", "rules/resourceNames", "rbac.authorization.k8s.io"),
    ],
  },
  {
    target: target("Secret", "", "v1"),
    referrers: [
      ...inPodSpecs(
        "volumes/secret/secretName",
        "containers/env/valueFrom/secretKeyRef/name",
        "initContainers/env/valueFrom/secretKeyRef/name",
        "containers/envFrom/secretRef/name",
        "initContainers/envFrom/secretRef/name",
        "imagePullSecrets/name",
        "volumes/projected/sources/secret/name",
      ),
      at("Ingress", "spec/tls/secretName"),
      at("ServiceAccount", "imagePullSecrets/name"),
      at("ServiceAccount", "secrets/name"),
      at("Role", "rules/resourceNames", "rbac.authorization.k8s.io"),
      at("ClusterRole", "rules/resourceNames", "rbac.authorization.k8s.io"),
    ],
  },
  {
    target: target("ServiceAccount", "", "v1"),
    referrers: inPodSpecs("serviceAccountName"),
  },
  {
    target: target("PersistentVolumeClaim", "", "v1"),
    referrers: inPodSpecs("volumes/persistentVolumeClaim/claimName"),
  },
  {
    target: target("PriorityClass", "scheduling.k8s.io"),
    referrers: inPodSpecs("priorityClassName"),
  },
  {
    target: target("Service", "", "v1"),
    referrers: [
      at("StatefulSet", "spec/serviceName", "apps"),
      at("Ingress", "spec/rules/http/paths/backend/serviceName"),
      at("Ingress", "spec/backend/serviceName"),
      at("Ingress", "spec/rules/http/paths/backend/service/name"),
      at("Ingress", "spec/defaultBackend/service/name"),
      at("APIService", "spec/service/name", "apiregistration.k8s.io"),
      at("ValidatingWebhookConfiguration", "webhooks/clientConfig/service/name"),
      at("MutatingWebhookConfiguration", "webhooks/clientConfig/service/name"),
    ],
  },
  ...["Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"].map((kind) => ({
    target: target(kind),
    referrers: [at("HorizontalPodAutoscaler", "spec/scaleTargetRef/name")],
  })),
  {
    target: target("PersistentVolume", "", "v1"),
    referrers: [at("PersistentVolumeClaim", "spec/volumeName")],
  },
  {
    target: target("StorageClass", "storage.k8s.io"),
    referrers: [
      at("PersistentVolumeClaim", "spec/storageClassName"),
      at("PersistentVolume", "spec/storageClassName"),
      at("StatefulSet", "spec/volumeClaimTemplates/spec/storageClassName", "apps"),
    ],
  },
  {
    target: target("IngressClass", "networking.k8s.io"),
    referrers: [at("Ingress", "spec/ingressClassName")],
  },
];
