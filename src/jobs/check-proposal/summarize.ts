import type { FileTree } from "../../kpt/tree.js";
import type {
  ImageChange,
  PackageChangeSummary,
  RbacChange,
  ResourceChange,
} from "../../lifecycle/summary/types.js";
import { at, deepEqual, list, type PackageResource, packageResources } from "./resources.js";

/**
 * What publishing would change in one package: the base branch's files against the proposal's,
 * resource by resource, with the images, RBAC and namespaces reviewers must not miss.
 */
export function summarizePackage(input: {
  package: string;
  base: FileTree;
  head: FileTree;
  /** The trees' git blob ids, where read: a file read before is not parsed again. */
  baseBlobs?: ReadonlyMap<string, string>;
  headBlobs?: ReadonlyMap<string, string>;
  revision?: number;
  deletion?: boolean;
}): PackageChangeSummary {
  const before = packageResources(input.base, input.baseBlobs);
  const after = packageResources(input.head, input.headBlobs);
  const resources: ResourceChange[] = [];
  const images: ImageChange[] = [];
  const rbac: RbacChange[] = [];
  const note = (change: ResourceChange, b: PackageResource | undefined, a: PackageResource | undefined) => {
    resources.push(change);
    images.push(...imageChanges(b, a));
    const rb = rbacChange(change, b, a);
    if (rb) rbac.push(rb);
  };
  for (const [key, b] of before) {
    const a = after.get(key);
    if (!a) note({ resource: b.id, change: "removed", file: b.file }, b, undefined);
    else if (!deepEqual(a.value, b.value)) note({ resource: a.id, change: "changed", file: a.file }, b, a);
  }
  for (const [key, a] of after) {
    if (!before.has(key)) note({ resource: a.id, change: "added", file: a.file }, undefined, a);
  }
  const summary: PackageChangeSummary = {
    package: input.package,
    resources,
    images,
    rbac,
    namespaces: namespaceChanges(before, after),
  };
  if (input.revision !== undefined && !input.deletion) summary.revision = input.revision;
  if (input.deletion) summary.deletion = true;
  return summary;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function imageChanges(b: PackageResource | undefined, a: PackageResource | undefined): ImageChange[] {
  const before = b?.containers;
  const after = a?.containers;
  const resource = (a ?? b)?.id;
  if (!resource || (!before?.size && !after?.size)) return [];
  const out: ImageChange[] = [];
  for (const name of new Set([...(before?.keys() ?? []), ...(after?.keys() ?? [])])) {
    const from = before?.get(name);
    const to = after?.get(name);
    if (from === to) continue;
    const change: ImageChange = { resource, container: name };
    if (from !== undefined) change.from = from;
    if (to !== undefined) change.to = to;
    out.push(change);
  }
  return out;
}

const RBAC_KINDS = new Set(["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding", "ServiceAccount"]);

function rbacChange(
  r: ResourceChange,
  b: PackageResource | undefined,
  a: PackageResource | undefined,
): RbacChange | undefined {
  if (
    !RBAC_KINDS.has(r.resource.kind) ||
    !r.resource.apiVersion.match(/^(rbac\.authorization\.k8s\.io\/|v1$)/)
  )
    return undefined;
  const details = rbacDetails((a ?? b)?.value);
  const change: RbacChange = { resource: r.resource, change: r.change };
  if (details.length > 0) change.details = details;
  return change;
}

/** `get, list on pods` per rule; `binds ClusterRole x to ServiceAccount ns/y` per binding. */
function rbacDetails(value: unknown): string[] {
  const out: string[] = [];
  for (const rule of list(at(value, "rules"))) {
    const verbs = list(at(rule, "verbs")).join(", ");
    const resources = list(at(rule, "resources"));
    const what = (resources.length > 0 ? resources : list(at(rule, "nonResourceURLs"))).join(", ");
    if (verbs || what) out.push(`${verbs} on ${what}`);
  }
  const roleName = str(at(value, "roleRef", "name"));
  if (roleName) {
    const subjects = list(at(value, "subjects")).map((s) => {
      const ns = str(at(s, "namespace"));
      return `${str(at(s, "kind")) ?? ""} ${ns ? `${ns}/` : ""}${str(at(s, "name")) ?? ""}`.trim();
    });
    const roleKind = str(at(value, "roleRef", "kind")) ?? "Role";
    out.push(`binds ${roleKind} ${roleName} to ${subjects.length > 0 ? subjects.join(", ") : "nobody"}`);
  }
  return out;
}

/** Namespaces created or dropped, and namespaces resources move into or out of. */
function namespaceChanges(
  before: Map<string, PackageResource>,
  after: Map<string, PackageResource>,
): { added: string[]; removed: string[] } {
  const used = (m: Map<string, PackageResource>) => {
    const s = new Set<string>();
    for (const r of m.values()) {
      if (r.id.kind === "Namespace" && r.id.apiVersion === "v1") s.add(r.id.name);
      if (r.id.namespace) s.add(r.id.namespace);
    }
    return s;
  };
  const b = used(before);
  const a = used(after);
  return {
    added: [...a].filter((n) => !b.has(n)).sort(),
    removed: [...b].filter((n) => !a.has(n)).sort(),
  };
}
