import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KUBECTL_MISSING } from "../util/kubectl.js";
import { type ApiWorld, apiWorld } from "./world.js";

const draft = (pkg: string, ws = "v1") => `apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: blueprints.${pkg}.${ws}
  namespace: acme
spec:
  packageName: ${pkg}
  workspaceName: ${ws}
  repository: blueprints
  tasks:
  - type: init
    init:
      description: ${pkg}
`;

const REVISIONS = "/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions";

interface WatchEvent {
  type: string;
  object: { metadata?: { name?: string; resourceVersion?: string }; code?: number; reason?: string };
}
const events = (body: string): WatchEvent[] =>
  body
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as WatchEvent);

/**
 * The verbs kubectl users expect beyond get and apply: server-side dry runs (`--dry-run=server`, checked
 * and answered, nothing written) and watches resumed from a version the server gave, which report
 * what changed since, deletions included.
 */
describe.skipIf(KUBECTL_MISSING !== undefined)("Porch's API: dry runs and resumed watches", () => {
  let w: ApiWorld;
  const list = async () => {
    const r = await w.request(REVISIONS, { token: w.alice });
    return JSON.parse(r.body) as { metadata: { resourceVersion: string }; items: unknown[] };
  };
  const watchFrom = async (version: string) =>
    events(
      (
        await w.request(`${REVISIONS}?watch=true&timeoutSeconds=1&resourceVersion=${version}`, {
          token: w.alice,
        })
      ).body,
    );

  beforeAll(async () => {
    w = await apiWorld({ watchPollMs: 100 });
    expect((await w.kubectl("alice", ["apply", "-f", "-"], { stdin: draft("kept") })).code).toBe(0);
  }, 120_000);
  afterAll(() => w.stop());

  it("answers kubectl's server-side dry runs of create, patch and delete, and writes nothing", async () => {
    const created = await w.kubectl("alice", ["apply", "--dry-run=server", "-f", "-"], {
      stdin: draft("ghost"),
    });
    expect(created).toMatchObject({
      code: 0,
      stdout: "packagerevision.porch.kpt.dev/blueprints.ghost.v1 created (server dry run)\n",
    });
    const proposed = await w.kubectl("alice", [
      "patch",
      "packagerevision",
      "blueprints.kept.v1",
      "--dry-run=server",
      "--type=merge",
      "-p",
      '{"spec":{"lifecycle":"Proposed"},"metadata":{"labels":{"tier":"gold"}}}',
      "-o",
      "jsonpath={.spec.lifecycle} {.metadata.labels.tier}",
    ]);
    expect(proposed).toMatchObject({ code: 0, stdout: "Proposed gold" });
    const deleted = await w.kubectl("alice", [
      "delete",
      "packagerevision",
      "blueprints.kept.v1",
      "--dry-run=server",
    ]);
    expect(deleted).toMatchObject({
      code: 0,
      stdout: 'packagerevision.porch.kpt.dev "blueprints.kept.v1" deleted (server dry run)\n',
    });
    // nothing happened: the one draft, unlabelled, still a Draft, no pull request
    const got = await w.kubectl("alice", [
      "get",
      "packagerevisions",
      "-o",
      "jsonpath={range .items[*]}{.metadata.name} {.spec.lifecycle} {.metadata.labels.tier};{end}",
    ]);
    expect(got.stdout).toBe("blueprints.kept.v1 Draft ;");
    const pulls = await w.octokit(w.alice).rest.pulls.list({ owner: "acme", repo: "blueprints" });
    expect(pulls.data).toEqual([]);
  }, 180_000);

  it("checks a dry run as the write: a taken name, a reader, a lifecycle Porch does not allow, a bad value", async () => {
    const taken = await w.kubectl("alice", ["create", "--dry-run=server", "-f", "-"], {
      stdin: draft("kept"),
    });
    expect(taken.stderr).toMatch(
      /^Error from server \(AlreadyExists\).*"blueprints\.kept\.v1" already exists/,
    );
    const reader = await w.kubectl("carol", ["apply", "--dry-run=server", "-f", "-"], { stdin: draft("x") });
    expect(reader.stderr).toMatch(/^Error from server \(Forbidden\).*carol has read permission/);
    const publish = await w.kubectl("alice", [
      "patch",
      "packagerevision",
      "blueprints.kept.v1",
      "--dry-run=server",
      "--type=merge",
      "-p",
      '{"spec":{"lifecycle":"Published"}}',
    ]);
    expect(publish.stderr).toMatch(/is invalid: spec\.lifecycle: cannot change from Draft to Published/);
    const bad = await w.request(`${REVISIONS}/blueprints.kept.v1?dryRun=Maybe`, {
      token: w.alice,
      method: "DELETE",
    });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).message).toBe('dryRun: Unsupported value: "Maybe": supported values: "All"');
    const registration = await w.request(
      "/apis/config.porch.kpt.dev/v1alpha1/namespaces/acme/repositories/deploy?dryRun=All",
      { token: w.alice, method: "DELETE" },
    );
    expect(registration.status).toBe(400);
    expect((await w.rpkg(w.alice, ["get", "blueprints.kept.v1", "--namespace=acme"])).code).toBe(0);
  }, 180_000);

  it("reports a deletion made between a list and a watch from the list's version", async () => {
    expect((await w.kubectl("alice", ["apply", "-f", "-"], { stdin: draft("doomed") })).code).toBe(0);
    const before = await list();
    expect(before.items).toHaveLength(2);
    expect((await w.rpkg(w.alice, ["del", "blueprints.doomed.v1", "--namespace=acme"])).code).toBe(0);
    const seen = await watchFrom(before.metadata.resourceVersion);
    expect(seen.map((e) => [e.type, e.object.metadata?.name])).toEqual([["DELETED", "blueprints.doomed.v1"]]);
  }, 180_000);

  it("resumes a watch from an event's version as informers do, and answers an unknown version 410 Expired", async () => {
    const all = await watchFrom("");
    expect(all.map((e) => e.type)).toEqual(["ADDED"]);
    const last = all.at(-1)?.object.metadata?.resourceVersion ?? "";
    expect((await w.kubectl("alice", ["apply", "-f", "-"], { stdin: draft("later") })).code).toBe(0);
    const since = await watchFrom(last);
    expect(since.map((e) => [e.type, e.object.metadata?.name])).toEqual([["ADDED", "blueprints.later.v1"]]);
    const unknown = await watchFrom("0123456789abcdef");
    expect(unknown.map((e) => [e.type, e.object.code, e.object.reason])).toEqual([["ERROR", 410, "Expired"]]);
  }, 180_000);

  it("serves server-side apply: field managers own what they apply, a change of another's field is a 409 conflict unless forced", async () => {
    const applied = (manager: string, labels: string, extra: string[] = []) =>
      w.kubectl("alice", ["apply", "--server-side", `--field-manager=${manager}`, ...extra, "-f", "-"], {
        stdin: draft("ssa").replace("  namespace: acme\n", `  namespace: acme\n  labels:\n${labels}`),
      });
    const label = async () =>
      (
        await w.kubectl("alice", [
          "get",
          "packagerevision",
          "blueprints.ssa.v1",
          "-o",
          "jsonpath={.metadata.labels}",
        ])
      ).stdout;
    const first = await applied("team-a", "    owner: a\n    shared: x\n");
    expect(first).toMatchObject({
      code: 0,
      stdout: "packagerevision.porch.kpt.dev/blueprints.ssa.v1 serverside-applied\n",
    });
    const clash = await applied("team-b", "    owner: b\n    shared: x\n");
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain(
      'conflict with "team-a" using porch.kpt.dev/v1alpha1: .metadata.labels.owner',
    );
    expect(clash.stderr).not.toContain(".metadata.labels.shared");
    expect(JSON.parse(await label())).toEqual({ owner: "a", shared: "x" });
    const forced = await applied("team-b", "    owner: b\n    shared: x\n", ["--force-conflicts"]);
    expect(forced.code).toBe(0);
    expect(JSON.parse(await label())).toEqual({ owner: "b", shared: "x" });
    // team-a no longer names owner (team-b took it) nor shared (team-b owns it too): both stay
    expect((await applied("team-a", "    extra: a\n")).code).toBe(0);
    expect(JSON.parse(await label())).toEqual({ owner: "b", shared: "x", extra: "a" });
    // team-b drops shared, which no one else owns now: removed
    expect((await applied("team-b", "    owner: b\n")).code).toBe(0);
    expect(JSON.parse(await label())).toEqual({ owner: "b", extra: "a" });
    const missing = await w.request(`${REVISIONS}/blueprints.ssa.v1`, {
      token: w.alice,
      method: "PATCH",
      headers: { "content-type": "application/apply-patch+yaml" },
      body: "metadata:\n  labels:\n    owner: c\n",
    });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.body).message).toMatch(/^fieldManager is required for apply requests/);
  }, 180_000);

  it("lists across every namespace the caller can see (-A): the owners whose registrations they read", async () => {
    w.forge.createUser("globex", { type: "Organization" });
    for (const repo of ["globex/.porchlight", "globex/pkgs"]) {
      await w.forge.createRepo(repo, { autoInit: true });
      w.forge.setPermission(repo, "alice", "write");
    }
    expect((await w.cli(w.alice, ["repo", "register", "globex/pkgs", "--namespace=globex"])).code).toBe(0);
    expect((await w.rpkg(w.alice, ["init", "app", "--repository=globex/pkgs", "--workspace=v1"])).code).toBe(
      0,
    );
    const names = (user: "alice" | "carol", args: string[]) =>
      w.kubectl(user, [
        ...args,
        "-o",
        "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}",
      ]);
    expect((await names("alice", ["get", "namespaces"])).stdout).toBe("/acme /globex ");
    const all = await names("alice", ["get", "packagerevisions", "-A"]);
    expect(all.stdout.trim().split(" ").sort()).toEqual([
      "acme/blueprints.kept.v1",
      "acme/blueprints.later.v1",
      "acme/blueprints.ssa.v1",
      "globex/pkgs.app.v1",
    ]);
    // carol reads acme's repositories only
    expect(
      (await names("carol", ["get", "packagerevisions", "--all-namespaces"])).stdout.trim().split(" ").sort(),
    ).toEqual(["acme/blueprints.kept.v1", "acme/blueprints.later.v1", "acme/blueprints.ssa.v1"]);
    const table = await w.kubectl("alice", [
      "get",
      "packagerevisions",
      "-A",
      "--field-selector=spec.repository=pkgs",
    ]);
    expect(table.stdout.split("\n")[1]?.split(/\s+/)).toEqual([
      "globex",
      "pkgs.app.v1",
      "app",
      "v1",
      "0",
      "false",
      "Draft",
      "pkgs",
    ]);
  }, 180_000);
});
