import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rows } from "../cli/rpkg/world.js";
import { KUBECTL_MISSING } from "../util/kubectl.js";
import { type ApiWorld, apiWorld } from "./world.js";

const REVISIONS = "/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions";
const RESOURCES = "/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisionresources";
const REPOSITORIES = "/apis/config.porch.kpt.dev/v1alpha1/namespaces/acme/repositories";

/** A new draft's object, as a client POSTs it, with `extra` fields merged into its metadata. */
const draft = (pkg: string, metadata: Record<string, unknown> = {}) =>
  JSON.stringify({
    apiVersion: "porch.kpt.dev/v1alpha1",
    kind: "PackageRevision",
    metadata: { name: `blueprints.${pkg}.v1`, namespace: "acme", ...metadata },
    spec: {
      packageName: pkg,
      workspaceName: "v1",
      repository: "blueprints",
      tasks: [{ type: "init", init: { description: pkg } }],
    },
  });

const json = { "Content-Type": "application/json" };

/**
 * What a client that is not kubectl meets as it meets the API server and Porch: unknown fields dropped
 * with a warning unless Strict is asked for; discovery with Porch's short names and status
 * subresources; `kubectl auth can-i` answered from GitHub; and Porch's checks of a revision's update
 * (the version read, the frozen spec of a published revision, Porch's own label).
 */
describe.skipIf(KUBECTL_MISSING !== undefined)("Porch's API: defaults, discovery and update checks", () => {
  let w: ApiWorld;

  beforeAll(async () => {
    w = await apiWorld();
    expect(
      (await w.rpkg(w.alice, ["init", "hello", "--repository=acme/blueprints", "--workspace=v1"])).code,
    ).toBe(0);
    expect((await w.publish("acme/blueprints", "blueprints.hello.v1")).code).toBe(0);
  }, 120_000);
  afterAll(() => w.stop());

  it("drops a field the schema lacks with the API server's warning when no fieldValidation is named, as o2ims' POST needs", async () => {
    const body = draft("stray", { label: { app: "x" } });
    const r = await w.request(`${REVISIONS}?dryRun=All`, {
      token: w.alice,
      method: "POST",
      headers: json,
      body,
    });
    expect(r.status).toBe(201);
    expect(r.headers.warning).toBe('299 - "unknown field \\"metadata.label\\""');
    expect((JSON.parse(r.body) as { metadata: Record<string, unknown> }).metadata.label).toBeUndefined();
    const ignored = await w.request(`${REVISIONS}?dryRun=All&fieldValidation=Ignore`, {
      token: w.alice,
      method: "POST",
      headers: json,
      body,
    });
    expect([ignored.status, ignored.headers.warning]).toEqual([201, undefined]);
    const strict = await w.request(`${REVISIONS}?dryRun=All&fieldValidation=Strict`, {
      token: w.alice,
      method: "POST",
      headers: json,
      body,
    });
    expect(strict.status).toBe(400);
    expect(strict.body).toContain('strict decoding error: unknown field \\"metadata.label\\"');
    const bad = await w.request(`${REVISIONS}?dryRun=All&fieldValidation=Loose`, {
      token: w.alice,
      method: "POST",
      headers: json,
      body,
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('fieldValidation: Unsupported value: \\"Loose\\"');
  });

  it("creates with kubectl --validate=warn, printing the warning, and the stray field is not kept", async () => {
    const yaml = `apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: blueprints.warned.v1
  label:
    app: x
spec:
  packageName: warned
  workspaceName: v1
  repository: blueprints
  tasks:
  - type: init
    init:
      description: warned
`;
    const k = await w.kubectl("alice", ["create", "--validate=warn", "-f", "-"], { stdin: yaml });
    expect(k.code).toBe(0);
    expect(k.stderr).toContain('Warning: unknown field "metadata.label"');
    expect(k.stdout).toBe("packagerevision.porch.kpt.dev/blueprints.warned.v1 created\n");
    const made = await w.request(`${REVISIONS}/blueprints.warned.v1`, { token: w.alice });
    expect(JSON.parse(made.body)).toMatchObject({ metadata: { name: "blueprints.warned.v1" } });
    expect(made.body).not.toContain('"label"');
    const strict = await w.kubectl("alice", ["create", "-f", "-"], {
      stdin: yaml.replace(/warned/g, "refused"),
    });
    expect(strict.code).not.toBe(0);
    expect(strict.stderr).toContain('strict decoding error: unknown field "metadata.label"');
  });

  it("lists Repositories as kubectl get repo, with Porch's short name and status subresource in discovery", async () => {
    const k = await w.kubectl("carol", ["get", "repo"]);
    expect(k.stderr).toBe("");
    expect(rows(k.stdout).map((r) => r.split(" ")[0])).toEqual(["blueprints", "deploy"]);
    const res = await w.kubectl("carol", [
      "api-resources",
      "--api-group=config.porch.kpt.dev",
      "--no-headers",
    ]);
    expect(rows(`HEADER\n${res.stdout}`)).toContain(
      "repositories repo config.porch.kpt.dev/v1alpha1 true Repository",
    );
    const legacy = JSON.parse(
      (await w.request("/apis/config.porch.kpt.dev/v1alpha1", { token: w.carol })).body,
    ) as {
      resources: { name: string; shortNames?: string[]; verbs: string[] }[];
    };
    expect(legacy.resources.find((r) => r.name === "repositories")?.shortNames).toEqual(["repo"]);
    expect(legacy.resources.find((r) => r.name === "repositories/status")?.verbs).toEqual(["get"]);
    const status = await w.kubectl("carol", [
      "get",
      "repo",
      "blueprints",
      "--subresource=status",
      "-o",
      "jsonpath={.status.conditions[0].type}",
    ]);
    expect(status).toMatchObject({ code: 0, stdout: "Ready" });
  });

  it("refuses a write of a Repository's status, which porchlight reads from GitHub", async () => {
    const current = await w.request(`${REPOSITORIES}/blueprints`, { token: w.alice });
    const r = await w.request(`${REPOSITORIES}/blueprints/status`, {
      token: w.alice,
      method: "PUT",
      headers: json,
      body: current.body,
    });
    expect(r.status).toBe(405);
    expect(r.body).toContain("PUT is not allowed on repositories/blueprints/status: it serves get");
  });

  it("answers kubectl auth can-i from the caller's GitHub permission: a reader reads, a writer writes", async () => {
    const can = async (user: "alice" | "carol", ...args: string[]) => {
      const k = await w.kubectl(user, ["auth", "can-i", ...args]);
      return k.stdout.trim();
    };
    expect(await can("carol", "get", "packagerevisions")).toBe("yes");
    expect(await can("carol", "watch", "packagerevisions")).toBe("yes");
    expect(await can("carol", "create", "packagerevisions")).toMatch(
      /^no - create needs write permission; GitHub gives the caller read on acme\/blueprints, read on acme\/deploy$/,
    );
    expect(await can("carol", "delete", "repositories")).toMatch(/^no - /);
    expect(await can("alice", "create", "packagerevisions")).toBe("yes");
    expect(await can("alice", "update", "packagerevisions", "--subresource=approval")).toBe("yes");
    expect(await can("alice", "delete", "repo")).toBe("yes");
    expect(await can("carol", "get", "repositories", "-n", "nobody")).toMatch(/^no - the caller sees none/);
    const list = await w.kubectl("carol", ["auth", "can-i", "--list"]);
    expect(list.code).toBe(0);
    expect(rows(list.stdout)).toContain("packagerevisions.porch.kpt.dev [] [] [get list watch]");
  });

  it("refuses impersonation as the API server does, never answering for the token's own user", async () => {
    const why =
      "porchlight acts as each token's own GitHub user and serves no impersonation: send the request without Impersonate-* headers (kubectl without --as, --as-group, --as-uid), with the token of the GitHub user it should act as";
    const can = await w.kubectl("carol", [
      "auth",
      "can-i",
      "create",
      "packagerevisions",
      "--as",
      "maintainer",
    ]);
    expect(can.code).not.toBe(0);
    expect(can.stdout).toBe("");
    expect(can.stderr).toContain(
      `users "maintainer" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope: ${why}`,
    );
    // with no discovery cached, as a first kubectl command: discovery is answered, the list refused
    const get = await w.kubectl("carol", [
      "get",
      "packagerevisions",
      "--as",
      "x",
      `--cache-dir=${mkdtempSync(join(w.tmp, "kubectl-cache-"))}`,
    ]);
    expect(get.code).not.toBe(0);
    expect(get.stdout).toBe("");
    expect(get.stderr).toBe(
      `Error from server (Forbidden): users "x" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope: ${why}\n`,
    );
    // a group alone, a service account, an extra, a uid: each named as the API server names it
    const refused = async (headers: Record<string, string>) => {
      const r = await w.request(REVISIONS, { token: w.carol, headers });
      expect(r.status).toBe(403);
      const status = JSON.parse(r.body) as { reason: string; message: string; details: unknown };
      expect(status.reason).toBe("Forbidden");
      expect(status.message.endsWith(`: ${why}`)).toBe(true);
      return { message: status.message.slice(0, -why.length - 2), details: status.details };
    };
    expect(await refused({ "Impersonate-Group": "system:masters" })).toEqual({
      message:
        'groups "system:masters" is forbidden: User "carol" cannot impersonate resource "groups" in API group "" at the cluster scope',
      details: { name: "system:masters", kind: "groups" },
    });
    expect((await refused({ "Impersonate-User": "system:serviceaccount:acme:porch" })).message).toBe(
      'serviceaccounts "porch" is forbidden: User "carol" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "acme"',
    );
    expect((await refused({ "Impersonate-Extra-Reviewed%2Fby": "alice" })).message).toBe(
      'userextras.authentication.k8s.io "alice" is forbidden: User "carol" cannot impersonate resource "userextras/reviewed/by" in API group "authentication.k8s.io" at the cluster scope',
    );
    expect((await refused({ "Impersonate-Uid": "42" })).details).toEqual({
      name: "42",
      group: "authentication.k8s.io",
      kind: "uids",
    });
  });

  it("refuses an update without the version read, as Porch's engine does; a patch needs none", async () => {
    const current = JSON.parse(
      (await w.request(`${REVISIONS}/blueprints.hello.v1`, { token: w.alice })).body,
    ) as {
      metadata: Record<string, unknown>;
    };
    const { resourceVersion: _, ...metadata } = current.metadata;
    const r = await w.request(`${REVISIONS}/blueprints.hello.v1`, {
      token: w.alice,
      method: "PUT",
      headers: json,
      body: JSON.stringify({ ...current, metadata }),
    });
    expect(r.status).toBe(422);
    expect(JSON.parse(r.body)).toMatchObject({
      reason: "Invalid",
      details: { causes: [{ field: "metadata.resourceVersion" }] },
    });
    expect(r.body).toContain("resourceVersion must be specified for an update");
    const files = JSON.parse(
      (await w.request(`${RESOURCES}/blueprints.hello.v1`, { token: w.alice })).body,
    ) as {
      metadata: Record<string, unknown>;
    };
    const { resourceVersion: __, ...unversioned } = files.metadata;
    const f = await w.request(`${RESOURCES}/blueprints.hello.v1`, {
      token: w.alice,
      method: "PUT",
      headers: json,
      body: JSON.stringify({ ...files, metadata: unversioned }),
    });
    expect(f.status).toBe(422);
    expect(f.body).toContain("resourceVersion must be specified for an update");
    const labelled = await w.kubectl("alice", [
      "label",
      "packagerevision",
      "blueprints.hello.v1",
      "tier=gold",
    ]);
    expect(labelled).toMatchObject({
      code: 0,
      stdout: "packagerevision.porch.kpt.dev/blueprints.hello.v1 labeled\n",
    });
  });

  it("refuses a change of a published revision's spec, and of Porch's latest-revision label, with Porch's words", async () => {
    const tasks = await w.kubectl("alice", [
      "patch",
      "packagerevision",
      "blueprints.hello.v1",
      "--type=merge",
      "-p",
      '{"spec":{"tasks":[{"type":"init","init":{"description":"changed"}}]}}',
    ]);
    expect(tasks.code).not.toBe(0);
    expect(tasks.stderr).toContain(
      'The PackageRevision "blueprints.hello.v1" is invalid: spec: Invalid value: spec.tasks: spec can only update package with lifecycle value one of Draft,Proposed',
    );
    const label = await w.kubectl("alice", [
      "label",
      "packagerevision",
      "blueprints.hello.v1",
      "kpt.dev/latest-revision=false",
      "--overwrite",
    ]);
    expect(label.code).not.toBe(0);
    expect(label.stderr).toContain(
      "metadata.labels.kpt.dev/latest-revision: Forbidden: label is managed by porch and cannot be modified by users",
    );
    const created = await w.request(`${REVISIONS}?dryRun=All`, {
      token: w.alice,
      method: "POST",
      headers: json,
      body: draft("latest", { labels: { "kpt.dev/latest-revision": "true" } }),
    });
    expect(created.status).toBe(422);
    expect(created.body).toContain("label is managed by porch and cannot be set by users");
    const deletion = await w.kubectl("alice", [
      "patch",
      "packagerevision",
      "blueprints.hello.v1",
      "--type=merge",
      "-p",
      '{"spec":{"lifecycle":"DeletionProposed"}}',
      "-o",
      "jsonpath={.spec.lifecycle}",
    ]);
    expect(deletion).toMatchObject({ code: 0, stdout: "DeletionProposed" });
  });
});
