import { type ApiResource, apiGroups } from "./resources.js";

/**
 * What a client learns the API from: the legacy documents (`/api`, `/apis`, `/apis/GROUP`,
 * `/apis/GROUP/VERSION`) and the aggregated one (`/apis` and `/api` asked for as
 * `APIGroupDiscoveryList`, apidiscovery.k8s.io/v2, which kubectl asks for first), both from the one
 * resource table.
 */
export const AGGREGATED_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/** Whether the Accept header asks for aggregated discovery (v2). */
export function wantsAggregated(accept: string | undefined): boolean {
  return (accept ?? "").split(",").some((part) => {
    const params = part.split(";").map((p) => p.trim());
    return (
      params.includes("g=apidiscovery.k8s.io") &&
      params.includes("v=v2") &&
      params.includes("as=APIGroupDiscoveryList")
    );
  });
}

/** `/api`: the core group's version (its one resource: namespaces, which are GitHub owners). */
export function legacyCoreVersions(): Record<string, unknown> {
  return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: null };
}

/** The named groups, each with its versions, the preferred first. */
function named(): { group: string; versions: string[] }[] {
  const out: { group: string; versions: string[] }[] = [];
  for (const g of apiGroups()) {
    if (g.group === "") continue;
    const known = out.find((x) => x.group === g.group);
    if (known) known.versions.push(g.version);
    else out.push({ group: g.group, versions: [g.version] });
  }
  return out;
}

function groupVersion(group: string, version: string) {
  return { groupVersion: `${group}/${version}`, version };
}

function apiGroup(group: string, versions: readonly string[]): Record<string, unknown> {
  return {
    name: group,
    versions: versions.map((v) => groupVersion(group, v)),
    preferredVersion: groupVersion(group, versions[0] ?? ""),
  };
}

/** `/apis`: every group and its versions. */
export function legacyGroupList(): Record<string, unknown> {
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: named().map((g) => apiGroup(g.group, g.versions)),
  };
}

/** `/apis/GROUP`, or undefined for a group not served. */
export function legacyGroup(group: string): Record<string, unknown> | undefined {
  const found = named().find((g) => g.group === group);
  return found && { kind: "APIGroup", apiVersion: "v1", ...apiGroup(found.group, found.versions) };
}

/** `/apis/GROUP/VERSION`: its resources and their subresources, or undefined. */
export function legacyResourceList(group: string, version: string): Record<string, unknown> | undefined {
  const found = apiGroups().find((g) => g.group === group && g.version === version);
  if (!found) return undefined;
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group ? `${group}/${version}` : version,
    resources: found.resources.flatMap((r) => [
      {
        name: r.resource,
        singularName: r.singular,
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: r.verbs,
        ...(r.shortNames ? { shortNames: r.shortNames } : {}),
        ...(r.categories ? { categories: r.categories } : {}),
      },
      ...r.subresources.map((s) => ({
        name: `${r.resource}/${s.name}`,
        singularName: "",
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: s.verbs,
      })),
    ]),
  };
}

function discoveryResource(r: ApiResource): Record<string, unknown> {
  const responseKind = { group: r.group, version: r.version, kind: r.kind };
  return {
    resource: r.resource,
    responseKind,
    scope: r.namespaced ? "Namespaced" : "Cluster",
    singularResource: r.singular,
    verbs: r.verbs,
    ...(r.shortNames ? { shortNames: r.shortNames } : {}),
    ...(r.categories ? { categories: r.categories } : {}),
    ...(r.subresources.length > 0
      ? {
          subresources: r.subresources.map((s) => ({
            subresource: s.name,
            responseKind,
            verbs: s.verbs,
          })),
        }
      : {}),
  };
}

/** The aggregated document: `/apis` with every named group, `/api` with the core group. */
export function aggregatedDiscovery(core: boolean): Record<string, unknown> {
  const items: { metadata: Record<string, string>; versions: Record<string, unknown>[] }[] = [];
  for (const g of apiGroups()) {
    if ((g.group === "") !== core) continue;
    const version = {
      version: g.version,
      resources: g.resources.map(discoveryResource),
      freshness: "Current",
    };
    const known = items.find((i) => (i.metadata.name ?? "") === g.group);
    if (known) known.versions.push(version);
    else items.push({ metadata: g.group ? { name: g.group } : {}, versions: [version] });
  }
  return { kind: "APIGroupDiscoveryList", apiVersion: "apidiscovery.k8s.io/v2", metadata: {}, items };
}
