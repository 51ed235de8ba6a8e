import { describe, expect, it } from "vitest";
import {
  aggregatedDiscovery,
  legacyGroup,
  legacyGroupList,
  legacyResourceList,
} from "../../src/porchapi/discovery.js";
import { openApiV3, openApiV3Root } from "../../src/porchapi/openapi.js";

interface AggregatedGroup {
  metadata: { name?: string };
  versions: { version: string; resources: { resource: string }[] }[];
}

/**
 * A group served at two versions (config.porch.kpt.dev: repositories and packagevariants at v1alpha1,
 * packagevariantsets at v1alpha2 only, as Porch's CRDs serve them): both discovery forms and the OpenAPI
 * documents say the same, the higher version preferred as the API server prefers it.
 */
describe("discovery of a group with two versions", () => {
  it("lists both versions, v1alpha2 preferred, in the legacy documents", () => {
    const config = legacyGroup("config.porch.kpt.dev");
    expect(config).toMatchObject({
      versions: [
        { groupVersion: "config.porch.kpt.dev/v1alpha2", version: "v1alpha2" },
        { groupVersion: "config.porch.kpt.dev/v1alpha1", version: "v1alpha1" },
      ],
      preferredVersion: { groupVersion: "config.porch.kpt.dev/v1alpha2", version: "v1alpha2" },
    });
    expect((legacyGroupList().groups as { name: string }[]).map((g) => g.name)).toEqual([
      "porch.kpt.dev",
      "config.porch.kpt.dev",
      "authorization.k8s.io",
    ]);
    const names = (gv: string) =>
      ((legacyResourceList("config.porch.kpt.dev", gv)?.resources ?? []) as { name: string }[]).map(
        (r) => r.name,
      );
    // both kinds' status subresource, as Porch's CRDs declare it (its controllers' Status().Update)
    expect(names("v1alpha1")).toEqual([
      "repositories",
      "repositories/status",
      "packagevariants",
      "packagevariants/status",
    ]);
    expect(names("v1alpha2")).toEqual(["packagevariantsets", "packagevariantsets/status"]);
  });

  it("gives the aggregated document the same versions and resources, in the same order", () => {
    const items = aggregatedDiscovery(false).items as AggregatedGroup[];
    const config = items.find((i) => i.metadata.name === "config.porch.kpt.dev");
    expect(config?.versions.map((v) => [v.version, v.resources.map((r) => r.resource)])).toEqual([
      ["v1alpha2", ["packagevariantsets"]],
      ["v1alpha1", ["repositories", "packagevariants"]],
    ]);
    const set = config?.versions[0]?.resources[0] as {
      subresources?: { subresource: string; verbs: string[] }[];
    };
    expect(set.subresources).toEqual([
      {
        subresource: "status",
        responseKind: { group: "config.porch.kpt.dev", version: "v1alpha2", kind: "PackageVariantSet" },
        verbs: ["get", "patch", "update"],
      },
    ]);
  });

  it("serves an OpenAPI v3 document for each version, with its own resources' paths", () => {
    const root = openApiV3Root().paths as Record<string, unknown>;
    expect(Object.keys(root)).toContain("apis/config.porch.kpt.dev/v1alpha2");
    const paths = Object.keys(openApiV3("config.porch.kpt.dev", "v1alpha2")?.paths as object);
    expect(paths).toEqual([
      "/apis/config.porch.kpt.dev/v1alpha2/namespaces/{namespace}/packagevariantsets",
      "/apis/config.porch.kpt.dev/v1alpha2/namespaces/{namespace}/packagevariantsets/{name}",
      "/apis/config.porch.kpt.dev/v1alpha2/namespaces/{namespace}/packagevariantsets/{name}/status",
    ]);
    const status = ((openApiV3("config.porch.kpt.dev", "v1alpha2")?.paths ?? {}) as Record<string, object>)[
      "/apis/config.porch.kpt.dev/v1alpha2/namespaces/{namespace}/packagevariantsets/{name}/status"
    ];
    expect(Object.keys(status ?? {})).toEqual(["parameters", "get", "put", "patch"]);
  });
});

/** What Porch's CRDs and kube's authorization group declare, in both discovery forms and OpenAPI. */
describe("discovery of Porch's short names, status subresources and the self reviews", () => {
  it("gives repositories Porch's short name and a read-only status subresource, in both forms", () => {
    const legacy = legacyResourceList("config.porch.kpt.dev", "v1alpha1")?.resources as {
      name: string;
      shortNames?: string[];
      verbs: string[];
    }[];
    expect(legacy.filter((r) => r.name.startsWith("repositories"))).toMatchObject([
      { name: "repositories", shortNames: ["repo"] },
      { name: "repositories/status", verbs: ["get"] },
    ]);
    const items = aggregatedDiscovery(false).items as {
      metadata: { name?: string };
      versions: { resources: Record<string, unknown>[] }[];
    }[];
    const config = items.find((i) => i.metadata.name === "config.porch.kpt.dev");
    const repositories = config?.versions[1]?.resources.find((r) => r.resource === "repositories");
    expect(repositories).toMatchObject({
      shortNames: ["repo"],
      subresources: [{ subresource: "status", verbs: ["get"] }],
    });
    // Porch's aggregated API server declares no short names for its revisions
    const porch = legacyResourceList("porch.kpt.dev", "v1alpha1")?.resources as { shortNames?: string[] }[];
    expect(porch.every((r) => r.shortNames === undefined)).toBe(true);
  });

  it("serves the self reviews kubectl auth can-i creates, cluster-wide and create only", () => {
    const auth = legacyResourceList("authorization.k8s.io", "v1");
    expect(auth?.resources).toEqual([
      {
        name: "selfsubjectaccessreviews",
        singularName: "",
        namespaced: false,
        kind: "SelfSubjectAccessReview",
        verbs: ["create"],
      },
      {
        name: "selfsubjectrulesreviews",
        singularName: "",
        namespaced: false,
        kind: "SelfSubjectRulesReview",
        verbs: ["create"],
      },
    ]);
    const paths = openApiV3("authorization.k8s.io", "v1")?.paths as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths)).toEqual([
      "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
      "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
    ]);
    expect(Object.keys(paths["/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"] ?? {})).toEqual([
      "parameters",
      "post",
    ]);
  });
});
