import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rows } from "../cli/rpkg/world.js";
import { KUBECTL_MISSING, kubectlWatch } from "../util/kubectl.js";
import { type ApiWorld, apiWorld } from "./world.js";

const NAME = "blueprints.web.first";

const DRAFT = `apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: ${NAME}
  namespace: acme
  labels:
    team: web
spec:
  packageName: web
  workspaceName: first
  repository: blueprints
  tasks:
  - type: init
    init:
      description: a web server
`;

/**
 * A package revision's life through Porch's API with the real kubectl, as a Porch user lives it: a draft
 * applied (init task), its files replaced through packagerevisionresources, labelled and annotated,
 * proposed by setting its lifecycle, approved through the approval subresource (a tag on the forge),
 * waited for; a reader refused; a revision made outside the API seen by `kubectl get -w`.
 */
describe.skipIf(KUBECTL_MISSING !== undefined)("Porch's API written with kubectl", () => {
  let w: ApiWorld;

  beforeAll(async () => {
    w = await apiWorld({ watchPollMs: 100 });
  }, 120_000);
  afterAll(() => w.stop());

  /** Every ref of the registrations repository and of acme/blueprints: what a write would move or add. */
  const heads = async () =>
    Promise.all(
      [".porchlight", "blueprints"].map(async (repo) =>
        (await w.octokit(w.alice).rest.git.listMatchingRefs({ owner: "acme", repo, ref: "" })).data.map(
          (r) => `${r.ref} ${r.object.sha}`,
        ),
      ),
    );
  /** `kubectl patch packagerevision NAME` as `user`: a merge patch moving its lifecycle, through `subresource` if given. */
  const moveTo = (user: "alice" | "bob", lifecycle: string, subresource?: string, name = NAME) =>
    w.kubectl(user, [
      "patch",
      "packagerevision",
      name,
      ...(subresource ? [`--subresource=${subresource}`] : []),
      "--type=merge",
      "-p",
      JSON.stringify({ spec: { lifecycle } }),
    ]);
  /** A JSON merge patch of revision `name`, over HTTPS as alice. */
  const patch = (name: string, body: unknown) =>
    w.request(`/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions/${name}`, {
      token: w.alice,
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify(body),
    });

  it("creates a draft with kubectl apply (init task), and apply again changes only its labels", async () => {
    const r = await w.kubectl("alice", ["apply", "-f", "-"], { stdin: DRAFT });
    expect(r).toMatchObject({ code: 0, stdout: `packagerevision.porch.kpt.dev/${NAME} created\n` });
    const listed = await w.rpkg(w.alice, ["get", NAME, "--namespace=acme"]);
    expect(rows(listed.stdout)).toEqual([`${NAME} web first 0 false Draft blueprints`]);
    const again = await w.kubectl("alice", ["apply", "-f", "-"], {
      stdin: DRAFT.replace("team: web", "team: frontend"),
    });
    expect(again).toMatchObject({ code: 0, stdout: `packagerevision.porch.kpt.dev/${NAME} configured\n` });
    const labels = await w.kubectl("alice", [
      "get",
      "packagerevision",
      NAME,
      "-o",
      "jsonpath={.metadata.labels.team}",
    ]);
    expect(labels.stdout).toBe("frontend");
  });

  it("refuses a field Porch's schema does not have, as the API server's strict field validation does", async () => {
    const r = await w.kubectl("alice", ["apply", "-f", "-"], {
      stdin: DRAFT.replace("  packageName: web", "  packageName: web\n  bogus: 1"),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('strict decoding error: unknown field "spec.bogus"');
  });

  it("replaces the draft's files through packagerevisionresources, and refuses a stale version with 409", async () => {
    const got = await w.kubectl("alice", ["get", "packagerevisionresources", NAME, "-o", "json"]);
    const obj = JSON.parse(got.stdout) as { spec: { resources: Record<string, string> } };
    obj.spec.resources["config.yaml"] =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\ndata:\n  greeting: hello\n";
    const r = await w.kubectl("alice", ["replace", "-f", "-"], { stdin: JSON.stringify(obj) });
    expect(r).toMatchObject({ code: 0, stdout: `packagerevisionresources.porch.kpt.dev/${NAME} replaced\n` });
    const after = JSON.parse(
      (await w.kubectl("alice", ["get", "packagerevisionresources", NAME, "-o", "json"])).stdout,
    ) as {
      spec: { resources: Record<string, string> };
    };
    expect(after.spec.resources["config.yaml"]).toContain("greeting: hello");
    expect(after.spec.resources.Kptfile).toContain("type: Rendered");
    // the object read before the push names the version before it
    const stale = await w.kubectl("alice", ["replace", "-f", "-"], { stdin: JSON.stringify(obj) });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(
      new RegExp(
        `^Error from server \\(Conflict\\).*Operation cannot be fulfilled on packagerevisionresources\\.porch\\.kpt\\.dev "${NAME.replaceAll(".", "\\.")}"`,
      ),
    );
  });

  it("labels and annotates with kubectl, kept in git", async () => {
    expect((await w.kubectl("alice", ["label", "packagerevision", NAME, "tier=gold"])).stdout).toBe(
      `packagerevision.porch.kpt.dev/${NAME} labeled\n`,
    );
    expect((await w.kubectl("alice", ["annotate", "packagerevision", NAME, "owner=alice"])).stdout).toBe(
      `packagerevision.porch.kpt.dev/${NAME} annotated\n`,
    );
    // kubectl patch --type=json: a JSON patch
    const patched = await w.kubectl("alice", [
      "patch",
      "packagerevision",
      NAME,
      "--type=json",
      "-p",
      '[{"op":"add","path":"/metadata/labels/zone","value":"eu"},{"op":"remove","path":"/metadata/labels/zone"},{"op":"add","path":"/metadata/labels/size","value":"s"}]',
    ]);
    expect(patched.stdout).toBe(`packagerevision.porch.kpt.dev/${NAME} patched\n`);
    const r = await w.rpkg(w.alice, ["get", NAME, "--namespace=acme", "-o", "json"]);
    const obj = JSON.parse(r.stdout) as {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
    };
    expect(obj.metadata.labels).toEqual({ team: "frontend", tier: "gold", size: "s" });
    expect(obj.metadata.annotations.owner).toBe("alice");
  });

  it("refuses a label key, a label value and annotations Kubernetes refuses with 422 Invalid naming the field, committing nothing", async () => {
    const before = await heads();
    // kubectl label checks keys itself: a merge patch carries the key to the server as any client may
    const key = await w.kubectl("alice", [
      "patch",
      "packagerevision",
      NAME,
      "--type=merge",
      "-p",
      '{"metadata":{"labels":{"../../etc passwd":"x"}}}',
    ]);
    expect(key.code).toBe(1);
    expect(key.stderr).toContain(
      `The PackageRevision "${NAME}" is invalid: metadata.labels: Invalid value: "../../etc passwd": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
    const nul = await patch(NAME, { metadata: { labels: { tier: "gold\u0000" } } });
    expect(nul.status).toBe(422);
    expect(JSON.parse(nul.body)).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Invalid",
      code: 422,
      details: {
        name: NAME,
        group: "porch.kpt.dev",
        kind: "PackageRevision",
        causes: [
          {
            reason: "FieldValueInvalid",
            field: "metadata.labels",
            message: expect.stringMatching(
              /^Invalid value: "gold\\x00": a valid label must be an empty string/,
            ),
          },
        ],
      },
    });
    const big = await patch(NAME, { metadata: { annotations: { note: "x".repeat(1 << 20) } } });
    expect(big.status).toBe(422);
    expect(JSON.parse(big.body)).toMatchObject({
      message: `PackageRevision.porch.kpt.dev "${NAME}" is invalid: metadata.annotations: Too long: must have at most 262144 bytes`,
      details: { causes: [{ reason: "FieldValueTooLong", field: "metadata.annotations" }] },
    });
    // a new revision with a bad label is not made at all
    const created = await w.kubectl("alice", ["apply", "-f", "-"], {
      stdin: DRAFT.replaceAll("first", "bad").replace("team: web", '"../../etc passwd": x'),
    });
    expect(created.code).toBe(1);
    expect(created.stderr).toMatch(/The PackageRevision "blueprints\.web\.bad" is invalid: metadata\.labels/);
    expect(await heads()).toEqual(before);
    const r = await w.rpkg(w.alice, ["get", NAME, "--namespace=acme", "-o", "json"]);
    expect(
      (JSON.parse(r.stdout) as { metadata: { labels: Record<string, string> } }).metadata.labels,
    ).toEqual({
      team: "frontend",
      tier: "gold",
      size: "s",
    });
  });

  it("refuses a Repository's and a PackageVariant's labels and annotations Kubernetes refuses, committing nothing", async () => {
    const before = await heads();
    const repository = await w.request("/apis/config.porch.kpt.dev/v1alpha1/namespaces/acme/repositories", {
      token: w.alice,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        apiVersion: "config.porch.kpt.dev/v1alpha1",
        kind: "Repository",
        metadata: { name: "extra", namespace: "acme", labels: { "../../etc passwd": "x" } },
        spec: {
          content: "Package",
          type: "git",
          git: { repo: "acme/deploy", branch: "main", directory: "/" },
        },
      }),
    });
    expect(repository.status).toBe(422);
    expect(JSON.parse(repository.body)).toMatchObject({
      reason: "Invalid",
      details: { kind: "Repository", causes: [{ field: "metadata.labels" }] },
    });
    const variant = await w.request("/apis/config.porch.kpt.dev/v1alpha1/namespaces/acme/packagevariants", {
      token: w.alice,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        apiVersion: "config.porch.kpt.dev/v1alpha1",
        kind: "PackageVariant",
        metadata: { name: "web-deploy", namespace: "acme" },
        spec: {
          upstream: { repo: "blueprints", package: "web" },
          downstream: { repo: "deploy", package: "web" },
          labels: { env: "prod eu" },
          annotations: { "bad key": "x" },
        },
      }),
    });
    expect(variant.status).toBe(422);
    const status = JSON.parse(variant.body) as { message: string; details: { causes: { field: string }[] } };
    expect(status.details.causes.map((c) => c.field)).toEqual(["spec.labels", "spec.annotations"]);
    expect(status.message).toMatch(
      /^PackageVariant\.config\.porch\.kpt\.dev "web-deploy" is invalid: \[spec\.labels: Invalid value: "prod eu": a valid label must be/,
    );
    expect(await heads()).toEqual(before);
  });

  it("refuses a reader's write with 403, naming their permission", async () => {
    const r = await w.kubectl("carol", ["label", "packagerevision", NAME, "tier=silver", "--overwrite"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^Error from server \(Forbidden\): .*User "carol" cannot update resource "packagerevisions".*carol has read permission on acme\/blueprints/,
    );
    const created = await w.kubectl("carol", ["apply", "-f", "-"], {
      stdin: DRAFT.replaceAll("first", "second").replace(`name: ${NAME}`, "name: blueprints.web.second"),
    });
    expect(created.code).toBe(1);
    expect(created.stderr).toMatch(/\(Forbidden\)/);
  });

  it("proposes by the lifecycle, publishes through the approval subresource (a tag on the forge), and waits for it", async () => {
    const proposed = await moveTo("alice", "Proposed");
    expect(proposed).toMatchObject({ code: 0, stdout: `packagerevision.porch.kpt.dev/${NAME} patched\n` });
    // the bot's checks, green on the proposal's head (as the app would report them)
    await w.greenChecks("acme/blueprints");
    const waiting = w.kubectl("alice", [
      "wait",
      "packagerevision",
      NAME,
      "--for=jsonpath={.spec.lifecycle}=Published",
      "--timeout=60s",
    ]);
    const approved = await moveTo("bob", "Published", "approval");
    expect(approved).toMatchObject({ code: 0, stdout: `packagerevision.porch.kpt.dev/${NAME} patched\n` });
    expect(await waiting).toMatchObject({
      code: 0,
      stdout: `packagerevision.porch.kpt.dev/${NAME} condition met\n`,
    });
    const tag = await w
      .octokit(w.alice)
      .rest.git.getRef({ owner: "acme", repo: "blueprints", ref: "tags/web/v1" });
    expect(tag.status).toBe(200);
  });

  it("takes what Porch's server takes: init of a new revision of an existing package, and a deletion proposed through the approval subresource", async () => {
    // web is published (v1): init makes its next revision as Porch's engine does (only the workspace must be new)
    const again = await w.kubectl("alice", ["apply", "-f", "-"], {
      stdin: DRAFT.replace("blueprints.web.first", "blueprints.web.again").replace(
        "workspaceName: first",
        "workspaceName: again",
      ),
    });
    expect(again).toMatchObject({
      code: 0,
      stdout: "packagerevision.porch.kpt.dev/blueprints.web.again created\n",
    });
    const taken = await w.kubectl("alice", ["apply", "-f", "-"], {
      stdin: DRAFT.replace("blueprints.web.first", "blueprints.web.other").replace(
        "workspaceName: first",
        "workspaceName: again",
      ),
    });
    expect(taken.code).not.toBe(0);
    const proposed = await moveTo("bob", "DeletionProposed", "approval");
    expect(proposed).toMatchObject({ code: 0, stdout: `packagerevision.porch.kpt.dev/${NAME} patched\n` });
    const got = await w.kubectl("alice", [
      "get",
      "packagerevision",
      NAME,
      "-o",
      "jsonpath={.spec.lifecycle}",
    ]);
    expect(got.stdout).toBe("DeletionProposed");
    // and back, as Porch's approval takes it
    const kept = await moveTo("bob", "Published", "approval");
    expect(kept.code).toBe(0);
    expect(
      (await w.kubectl("alice", ["get", "packagerevision", NAME, "-o", "jsonpath={.spec.lifecycle}"])).stdout,
    ).toBe("Published");
  });

  it("refuses publishing by an update of the lifecycle, and deletes a draft", async () => {
    const copy = DRAFT.replaceAll("first", "second")
      .replace(`name: ${NAME}`, "name: blueprints.web.second")
      .replace(
        / {2}tasks:[\s\S]*$/,
        `  tasks:\n  - type: edit\n    edit:\n      sourceRef:\n        name: ${NAME}\n`,
      );
    const otherPackage = copy
      .replace("name: blueprints.web.second", "name: blueprints.api.second")
      .replace("packageName: web", "packageName: api");
    const mismatch = await w.kubectl("alice", ["apply", "-f", "-"], { stdin: otherPackage });
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toContain(
      `spec.tasks[0].edit.sourceRef.name: source revision must be from same package blueprints/api: ${NAME} is blueprints/web`,
    );
    expect((await w.kubectl("alice", ["get", "packagerevision", "blueprints.api.second"])).stderr).toMatch(
      /\(NotFound\)/,
    );
    expect((await w.kubectl("alice", ["apply", "-f", "-"], { stdin: copy })).code).toBe(0);
    const refused = await moveTo("alice", "Published", undefined, "blueprints.web.second");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'The PackageRevision "blueprints.web.second" is invalid: spec.lifecycle: cannot change from Draft to Published: a proposal is published through the approval subresource (kubectl patch --subresource=approval)\n',
    );
    // and the approval subresource, asked to publish a draft, says to propose it first (Porch's words, then how)
    const approved = await moveTo("alice", "Published", "approval", "blueprints.web.second");
    expect(approved.code).toBe(1);
    expect(approved.stderr).toBe(
      `The PackageRevision "blueprints.web.second" is invalid: spec.lifecycle: Invalid value: "Draft": cannot approve package with Draft lifecycle value; only Proposed packages can be approved: propose it first, with spec.lifecycle: Proposed in an update of the PackageRevision itself (kubectl patch packagerevision blueprints.web.second --type=merge -p '{"spec":{"lifecycle":"Proposed"}}', or porchlight rpkg propose blueprints.web.second), then approve it through the approval subresource\n`,
    );
    const still = await w.kubectl("alice", [
      "get",
      "packagerevision",
      "blueprints.web.second",
      "-o",
      "jsonpath={.spec.lifecycle}",
    ]);
    expect(still.stdout).toBe("Draft");
    const deleted = await w.kubectl("alice", ["delete", "packagerevision", "blueprints.web.second"]);
    expect(deleted).toMatchObject({
      code: 0,
      stdout: 'packagerevision.porch.kpt.dev "blueprints.web.second" deleted\n',
    });
    expect((await w.kubectl("alice", ["get", "packagerevision", "blueprints.web.second"])).stderr).toMatch(
      /\(NotFound\)/,
    );
  });

  it("shows in kubectl get -w a draft made outside the API", async () => {
    const watch = kubectlWatch("packagerevisions", {
      PATH: process.env.PATH ?? "",
      HOME: w.tmp,
      KUBECONFIG: w.kubeconfig("carol"),
    });
    try {
      await watch.shows(NAME);
      expect(
        (await w.rpkg(w.alice, ["init", "outside", "--repository=acme/deploy", "--workspace=ws"])).code,
      ).toBe(0);
      await watch.shows("deploy.outside.ws");
      expect(watch.line("deploy.outside.ws")).toEqual([
        "ADDED",
        "deploy.outside.ws",
        "outside",
        "ws",
        "0",
        "false",
        "Draft",
        "deploy",
      ]);
    } finally {
      watch.stop();
    }
  });
});
