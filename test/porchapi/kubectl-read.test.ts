import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PORCH_COLUMNS, rows } from "../cli/rpkg/world.js";
import { KUBECTL_MISSING, kubectlVersion } from "../util/kubectl.js";
import { type ApiWorld, apiWorld } from "./world.js";

const NS = "--namespace=acme";

/**
 * Porch's API read with the real kubectl: what kubectl learns the API from (discovery, OpenAPI), and
 * what it lists and prints (Porch's columns, kubectl's output forms, selectors), the same revisions as
 * `rpkg get --namespace` lists.
 */
describe.skipIf(KUBECTL_MISSING !== undefined)("Porch's API read with kubectl", () => {
  let w: ApiWorld;

  beforeAll(async () => {
    console.log(`kubectl: ${kubectlVersion()}`);
    w = await apiWorld();
    expect(
      (await w.rpkg(w.alice, ["init", "hello", "--repository=acme/blueprints", "--workspace=v1"])).code,
    ).toBe(0);
    expect((await w.publish("acme/blueprints", "blueprints.hello.v1")).code).toBe(0);
    expect(
      (
        await w.rpkg(w.alice, [
          "copy",
          "blueprints.hello.v1",
          "--repository=acme/blueprints",
          "--workspace=v2",
        ])
      ).code,
    ).toBe(0);
    expect((await w.rpkg(w.alice, ["init", "app", "--repository=acme/deploy", "--workspace=ws"])).code).toBe(
      0,
    );
    expect(
      (await w.rpkg(w.alice, ["label", "deploy.app.ws", "tier=gold", "--repository=acme/deploy"])).code,
    ).toBe(0);
  }, 120_000);
  afterAll(() => w.stop());

  it("lists Porch's resources in api-resources, from aggregated discovery", async () => {
    const r = await w.kubectl("alice", ["api-resources", "--api-group=porch.kpt.dev", "--no-headers"]);
    expect(r.stderr).toBe("");
    expect(rows(`HEADER\n${r.stdout}`)).toEqual([
      "packagerevisionresources porch.kpt.dev/v1alpha1 true PackageRevisionResources",
      "packagerevisions porch.kpt.dev/v1alpha1 true PackageRevision",
    ]);
  });

  it("answers the legacy discovery documents, subresources included", async () => {
    const r = await w.request("/apis/porch.kpt.dev/v1alpha1", { token: w.carol });
    expect(r.status).toBe(200);
    const list = JSON.parse(r.body) as { kind: string; resources: { name: string; verbs: string[] }[] };
    expect(list.kind).toBe("APIResourceList");
    expect(list.resources.map((x) => x.name)).toEqual([
      "packagerevisions",
      "packagerevisions/approval",
      "packagerevisionresources",
    ]);
    const groups = JSON.parse((await w.request("/apis", { token: w.carol })).body) as {
      groups: { name: string }[];
    };
    expect(groups.groups.map((g) => g.name)).toEqual([
      "porch.kpt.dev",
      "config.porch.kpt.dev",
      "authorization.k8s.io",
    ]);
  });

  it("lists with Porch's columns what rpkg get lists in the namespace", async () => {
    const k = await w.kubectl("carol", ["get", "packagerevisions"]);
    expect(k.stderr).toBe("");
    expect(k.stdout.split("\n")[0]?.split(/\s+/)).toEqual(PORCH_COLUMNS);
    const rpkg = await w.rpkg(w.carol, ["get", NS]);
    expect(rows(k.stdout)).toEqual(rows(rpkg.stdout));
    expect(rows(k.stdout)).toContain("blueprints.hello.v1 hello v1 1 true Published blueprints");
  });

  it("prints the objects rpkg get -o json prints, each with a resourceVersion from git", async () => {
    const k = JSON.parse((await w.kubectl("carol", ["get", "packagerevisions", "-o", "json"])).stdout) as {
      items: { metadata: Record<string, unknown> }[];
    };
    const r = JSON.parse((await w.rpkg(w.carol, ["get", NS, "-o", "json"])).stdout) as { items: unknown[] };
    for (const item of k.items) expect(item.metadata.resourceVersion).toMatch(/^[0-9a-f]{16}$/);
    for (const item of k.items) expect(item.metadata.creationTimestamp).toMatch(/^\d{4}-.*Z$/);
    // the API's own: its version, and its creation time (which rpkg get reads only for the API)
    const withoutVersion = k.items.map(
      ({ metadata: { resourceVersion: _, creationTimestamp: __, ...meta }, ...rest }) => ({
        ...rest,
        metadata: meta,
      }),
    );
    expect(withoutVersion).toEqual(r.items);
    const one = await w.kubectl("carol", ["get", "packagerevision", "blueprints.hello.v1", "-o", "yaml"]);
    expect(one.stdout).toContain("kind: PackageRevision\n");
    expect(one.stdout).toContain("  lifecycle: Published\n");
  });

  it("takes kubectl's jsonpath and custom columns", async () => {
    const path = await w.kubectl("carol", [
      "get",
      "packagerevisions",
      "-o",
      'jsonpath={range .items[*]}{.metadata.name}={.spec.lifecycle}{"\\n"}{end}',
    ]);
    // the .main revision: the package on the registered branch, as Porch lists it
    expect(path.stdout.trim().split("\n")).toEqual([
      "blueprints.hello.main=Published",
      "blueprints.hello.v1=Published",
      "blueprints.hello.v2=Draft",
      "deploy.app.ws=Draft",
    ]);
    const cols = await w.kubectl("carol", [
      "get",
      "packagerevisions",
      "-o",
      "custom-columns=NAME:.metadata.name,REV:.spec.revision,LABEL:.metadata.labels.tier",
    ]);
    expect(rows(cols.stdout)).toEqual([
      "blueprints.hello.main -1 <none>",
      "blueprints.hello.v1 1 <none>",
      "blueprints.hello.v2 <none> <none>",
      "deploy.app.ws <none> gold",
    ]);
  });

  it("selects by labels and by Porch's selectable fields, and refuses a field Porch does not select by", async () => {
    const byLabel = await w.kubectl("carol", ["get", "packagerevisions", "-l", "tier=gold", "-o", "name"]);
    expect(byLabel.stdout).toBe("packagerevision.porch.kpt.dev/deploy.app.ws\n");
    const latest = await w.kubectl("carol", [
      "get",
      "packagerevisions",
      "-l",
      "kpt.dev/latest-revision=true",
      "-o",
      "name",
    ]);
    expect(latest.stdout).toBe("packagerevision.porch.kpt.dev/blueprints.hello.v1\n");
    const drafts = await w.kubectl("carol", [
      "get",
      "packagerevisions",
      "--field-selector=spec.lifecycle=Draft,spec.repository=blueprints",
      "-o",
      "name",
    ]);
    expect(drafts.stdout).toBe("packagerevision.porch.kpt.dev/blueprints.hello.v2\n");
    const refused = await w.kubectl("carol", ["get", "packagerevisions", "--field-selector=spec.tasks=x"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/^Error from server \(BadRequest\): .*spec\.tasks/);
  });

  it("answers a name it does not have as kubectl expects a NotFound", async () => {
    const r = await w.kubectl("carol", ["get", "packagerevision", "blueprints.nothing.here"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'Error from server (NotFound): packagerevisions.porch.kpt.dev "blueprints.nothing.here" not found\n',
    );
  });

  it("shows a revision's files as PackageRevisionResources", async () => {
    const r = await w.kubectl("carol", ["get", "packagerevisionresources", "deploy.app.ws", "-o", "json"]);
    const obj = JSON.parse(r.stdout) as { spec: { resources: Record<string, string>; repository: string } };
    expect(obj.spec.repository).toBe("deploy");
    expect(Object.keys(obj.spec.resources).sort()).toEqual(["Kptfile", "README.md", "package-context.yaml"]);
    expect(obj.spec.resources.Kptfile).toMatch(/^apiVersion: kpt\.dev\/v1\nkind: Kptfile\n/);
    const table = await w.kubectl("carol", ["get", "packagerevisionresources", "deploy.app.ws"]);
    expect(rows(table.stdout)).toEqual(["deploy.app.ws app ws 0 deploy 3"]);
  });

  it("explains Porch's fields from the OpenAPI v3 document, which OpenAPI v2 matches", async () => {
    const r = await w.kubectl("carol", ["explain", "packagerevisions.spec.lifecycle"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("KIND:       PackageRevision\nVERSION:    v1alpha1\n");
    expect(r.stdout).toContain("ENUM:\n    Draft\n    Proposed\n    Published\n    DeletionProposed\n");
    const v2 = JSON.parse((await w.request("/openapi/v2", { token: w.carol })).body) as {
      definitions: Record<string, { properties?: Record<string, unknown> }>;
    };
    expect(Object.keys(v2.definitions["dev.kpt.porch.v1alpha1.PackageRevision"]?.properties ?? {})).toEqual([
      "apiVersion",
      "kind",
      "metadata",
      "spec",
      "status",
    ]);
  });

  it("refuses a request without a token with 401, as a Status", async () => {
    const r = await w.request("/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions");
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body)).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Unauthorized",
      code: 401,
    });
  });
});
