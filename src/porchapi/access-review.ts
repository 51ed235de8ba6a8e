import { hasPermission, type Permission } from "../api/permission.js";
import { API_RESOURCES, type ApiResource, type KubeObject } from "./resources.js";
import { ApiError } from "./status.js";
import type {
  Caller,
  NamespaceAccess,
  NamespaceAccessPort,
  RepositoryAccess,
  ResourceStore,
} from "./store.js";

/**
 * `kubectl auth can-i`, answered from GitHub: a SelfSubjectAccessReview asks whether the caller may do
 * one verb on one resource of a namespace, a SelfSubjectRulesReview (`--list`) what they may do there.
 * The rule is the API's own (the stores' check before a write): the caller's GitHub permission on the
 * repositories of the namespace — read lets them get, list and watch; write (maintain, admin) lets
 * them create, update, patch and delete. Packages and variants are in the registered repositories (a
 * named revision in its own: `REPOSITORY.PACKAGE.WORKSPACE`), Repository objects in the registrations
 * repository `OWNER/.porchlight`. Namespaces (GitHub owners) are readable by anyone.
 */
const READS = new Set(["get", "list", "watch"]);

interface Attributes {
  namespace: string;
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  name: string;
}

interface Decision {
  allowed: boolean;
  reason: string;
}

const text = (v: unknown) => (typeof v === "string" ? v : "");
const fieldsOf = (v: unknown): Record<string, unknown> =>
  typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {};

/** The served resource `group`/`resource` names (any version), the reviews themselves aside. */
function servedResource(group: string, resource: string): ApiResource | undefined {
  return API_RESOURCES.find(
    (r) => r.group === group && r.resource === resource && r.group !== "authorization.k8s.io",
  );
}

/** The repositories whose permission decides for `r` (a named revision: its repository's only). */
function repositoriesFor(r: ApiResource, name: string, access: NamespaceAccess): readonly RepositoryAccess[] {
  if (r.kind === "Repository") return access.registry ? [access.registry] : [];
  if (name !== "" && r.group === "porch.kpt.dev") {
    const own = access.registrations.filter((a) => a.name === name.split(".")[0]);
    if (own.length > 0) return own;
  }
  return access.registrations;
}

/** The verbs `r` (or its subresource) serves. */
function verbsOf(r: ApiResource, subresource: string): readonly string[] | undefined {
  if (subresource === "") return r.verbs;
  return r.subresources.find((s) => s.name === subresource)?.verbs;
}

const listed = (repos: readonly RepositoryAccess[]) =>
  repos.map((a) => `${a.permission} on ${a.repository}`).join(", ");

/** The answer for one request, from the caller's access to its namespace (read once per review). */
async function decide(a: Attributes, access: (ns: string) => Promise<NamespaceAccess>): Promise<Decision> {
  const r = servedResource(a.group, a.resource);
  const what = `${a.resource}${a.subresource ? `/${a.subresource}` : ""}`;
  if (!r)
    return {
      allowed: false,
      reason: `porchlight serves no resource "${a.resource}" in API group "${a.group}"`,
    };
  const verbs = verbsOf(r, a.subresource);
  if (!verbs) return { allowed: false, reason: `${a.resource} has no subresource "${a.subresource}"` };
  if (!verbs.includes(a.verb))
    return { allowed: false, reason: `${what} serves ${verbs.join(", ")}, not ${a.verb}` };
  if (!r.namespaced) return { allowed: true, reason: `${what} can be read by anyone GitHub knows` };
  const needed: Permission = READS.has(a.verb) ? "read" : "write";
  if (a.namespace === "")
    return needed === "read"
      ? { allowed: true, reason: `a list across namespaces covers those the caller can read` }
      : { allowed: false, reason: `${a.verb} is made in one namespace: name it (-n OWNER)` };
  const repos = repositoriesFor(r, a.name, await access(a.namespace));
  const granting = repos.filter((x) => hasPermission(x.permission, needed));
  if (granting.length > 0) return { allowed: true, reason: `${needed} permission: ${listed(granting)}` };
  const where =
    r.kind === "Repository" ? `${a.namespace}/.porchlight` : `the repositories registered in ${a.namespace}`;
  return {
    allowed: false,
    reason:
      repos.length === 0
        ? `the caller sees none of ${where}, and ${a.verb} needs ${needed} permission`
        : `${a.verb} needs ${needed} permission; GitHub gives the caller ${listed(repos)}`,
  };
}

/** The caller's access per namespace, each read at most once for one review. */
function accessOf(port: NamespaceAccessPort | undefined, caller: Caller) {
  const seen = new Map<string, Promise<NamespaceAccess>>();
  return (ns: string) => {
    if (!port) return Promise.resolve({ registrations: [], registry: undefined });
    const known = seen.get(ns) ?? port(caller, ns);
    seen.set(ns, known);
    return known;
  };
}

type Review = (port: NamespaceAccessPort | undefined, caller: Caller, obj: KubeObject) => Promise<KubeObject>;

const accessReview: Review = async (port, caller, obj) => {
  const spec = fieldsOf(obj.spec);
  const res = spec.resourceAttributes;
  const nonRes = fieldsOf(spec.nonResourceAttributes);
  let decision: Decision;
  if (res !== undefined) {
    const f = fieldsOf(res);
    decision = await decide(
      {
        namespace: text(f.namespace),
        verb: text(f.verb),
        group: text(f.group),
        resource: text(f.resource),
        subresource: text(f.subresource),
        name: text(f.name),
      },
      accessOf(port, caller),
    );
  } else if (spec.nonResourceAttributes !== undefined)
    decision =
      text(nonRes.verb) === "get"
        ? { allowed: true, reason: "discovery, OpenAPI and the version are read by anyone GitHub knows" }
        : { allowed: false, reason: `porchlight serves only get on paths that are not resources` };
  else
    throw new ApiError(
      "Invalid",
      `SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified`,
    );
  return { ...obj, metadata: { ...obj.metadata, creationTimestamp: null }, status: decision };
};

/** The rules that hold for the caller in `ns`: each served resource with the verbs they may use on it. */
const rulesReview: Review = async (port, caller, obj) => {
  const ns = text(fieldsOf(obj.spec).namespace);
  const access = accessOf(port, caller);
  const rules: { verbs: string[]; apiGroups: string[]; resources: string[] }[] = [];
  for (const r of API_RESOURCES) {
    if (r.group === "authorization.k8s.io") continue;
    const targets = [
      { sub: "", verbs: r.verbs },
      ...r.subresources.map((s) => ({ sub: s.name, verbs: s.verbs })),
    ];
    for (const t of targets) {
      const base = { namespace: ns, group: r.group, resource: r.resource, subresource: t.sub, name: "" };
      const allowed: string[] = [];
      for (const verb of t.verbs) if ((await decide({ ...base, verb }, access)).allowed) allowed.push(verb);
      if (allowed.length > 0)
        rules.push({
          verbs: allowed,
          apiGroups: [r.group],
          resources: [t.sub ? `${r.resource}/${t.sub}` : r.resource],
        });
    }
  }
  rules.push({
    verbs: ["create"],
    apiGroups: ["authorization.k8s.io"],
    resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
  });
  return {
    ...obj,
    metadata: { ...obj.metadata, creationTimestamp: null },
    status: {
      resourceRules: rules,
      nonResourceRules: [
        {
          verbs: ["get"],
          nonResourceURLs: [
            "/api",
            "/api/*",
            "/apis",
            "/apis/*",
            "/openapi",
            "/openapi/*",
            "/version",
            "/healthz",
            "/livez",
            "/readyz",
          ],
        },
      ],
      incomplete: false,
    },
  };
};

/** The reviews as stores: created and answered, never kept (so never read back). */
export function reviewStores(port: NamespaceAccessPort | undefined): Record<string, ResourceStore> {
  const store = (review: Review): ResourceStore => ({
    get: () => {
      throw new ApiError("MethodNotAllowed", "a review is answered when it is created, and not kept");
    },
    create: (caller, _ns, obj) => review(port, caller, obj),
  });
  return { selfsubjectaccessreviews: store(accessReview), selfsubjectrulesreviews: store(rulesReview) };
}
