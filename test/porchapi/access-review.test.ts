import { describe, expect, it } from "vitest";
import { reviewStores } from "../../src/porchapi/access-review.js";
import type { Caller, NamespaceAccess } from "../../src/porchapi/store.js";

/** acme: dana writes blueprints and reads deploy; she reads the registrations repository. */
const ACME: NamespaceAccess = {
  registrations: [
    { name: "blueprints", repository: "acme/blueprints", permission: "maintain" },
    { name: "deploy", repository: "acme/deploy", permission: "triage" },
  ],
  registry: { name: ".porchlight", repository: "acme/.porchlight", permission: "read" },
};
const asked: string[] = [];
const stores = reviewStores(async (_caller, ns) => {
  asked.push(ns);
  return ns === "acme" ? ACME : { registrations: [], registry: undefined };
});
const caller: Caller = { token: "t", signal: new AbortController().signal };

/** A review created, as the API creates it for a POST. */
async function create(resource: string, kind: string, spec: Record<string, unknown>) {
  const make = stores[resource]?.create;
  if (!make) throw new Error(`${resource} is created`);
  return make(caller, "", { apiVersion: "authorization.k8s.io/v1", kind, spec });
}

const review = async (attributes: Record<string, string>) => {
  const made = await create("selfsubjectaccessreviews", "SelfSubjectAccessReview", {
    resourceAttributes: { namespace: "acme", group: "porch.kpt.dev", ...attributes },
  });
  const status = made.status as { allowed: boolean; reason: string };
  return `${status.allowed ? "yes" : "no"} - ${status.reason}`;
};

/** The API's one rule, by the caller's GitHub permission on the repositories a request touches. */
describe("kubectl auth can-i's answers", () => {
  it.each([
    [
      { verb: "list", resource: "packagerevisions" },
      "yes - read permission: maintain on acme/blueprints, triage on acme/deploy",
    ],
    [{ verb: "create", resource: "packagerevisions" }, "yes - write permission: maintain on acme/blueprints"],
    [
      { verb: "update", resource: "packagerevisions", name: "deploy.app.ws" },
      "no - update needs write permission; GitHub gives the caller triage on acme/deploy",
    ],
    [
      { verb: "patch", resource: "packagerevisions", subresource: "approval", name: "blueprints.a.v1" },
      "yes - write permission: maintain on acme/blueprints",
    ],
    [
      { verb: "delete", resource: "packagerevisions", subresource: "approval" },
      "no - packagerevisions/approval serves get, patch, update, not delete",
    ],
    [
      { verb: "get", resource: "repositories", group: "config.porch.kpt.dev" },
      "yes - read permission: read on acme/.porchlight",
    ],
    [
      { verb: "create", resource: "repositories", group: "config.porch.kpt.dev" },
      "no - create needs write permission; GitHub gives the caller read on acme/.porchlight",
    ],
    [
      { verb: "create", resource: "packagevariants", group: "config.porch.kpt.dev" },
      "yes - write permission: maintain on acme/blueprints",
    ],
    [
      { verb: "get", resource: "pods", group: "" },
      'no - porchlight serves no resource "pods" in API group ""',
    ],
    [
      { verb: "list", resource: "namespaces", group: "" },
      "yes - namespaces can be read by anyone GitHub knows",
    ],
    [
      { verb: "create", resource: "packagerevisions", namespace: "" },
      "no - create is made in one namespace: name it (-n OWNER)",
    ],
    [
      { verb: "get", resource: "packagerevisions", namespace: "elsewhere" },
      "no - the caller sees none of the repositories registered in elsewhere, and get needs read permission",
    ],
  ])("%o: %s", async (attributes, answer) => {
    expect(await review(attributes)).toBe(answer);
  });

  it("lists, per resource, the verbs that hold in the namespace, reading its access once", async () => {
    asked.length = 0;
    const made = await create("selfsubjectrulesreviews", "SelfSubjectRulesReview", { namespace: "acme" });
    const rules = (made.status as { resourceRules: { verbs: string[]; resources: string[] }[] })
      .resourceRules;
    const of = (resource: string) => rules.find((r) => r.resources.includes(resource))?.verbs;
    expect(of("packagerevisions")).toEqual(["create", "delete", "get", "list", "patch", "update", "watch"]);
    expect(of("repositories")).toEqual(["get", "list", "watch"]);
    expect(of("repositories/status")).toEqual(["get"]);
    expect(asked).toEqual(["acme"]);
  });
});
