import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectionCounter, refusedLocations, secretRepository } from "../util/egress-fixtures.js";
import { type ApiWorld, apiWorld } from "./world.js";

const REVISIONS = "/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions";
const FIELD = "spec.tasks[0].clone.upstreamRef.git.repo";

/** A PackageRevision in acme/deploy cloned from `git` (Porch's clone task, as a client POSTs it). */
const cloneOf = (pkg: string, git: Record<string, string>) =>
  JSON.stringify({
    apiVersion: "porch.kpt.dev/v1alpha1",
    kind: "PackageRevision",
    metadata: { namespace: "acme" },
    spec: {
      packageName: pkg,
      workspaceName: "v1",
      repository: "deploy",
      tasks: [{ type: "clone", clone: { upstreamRef: { type: "git", git } } }],
    },
  });

/**
 * Any token holder may POST a clone into a repository of theirs; the API server fetches what the task
 * names. Through the API, as through rpkg, the server's disk, git's other transports and options, and
 * the operator's network are refused before anything connects: 422 Invalid, the field and the policy
 * named (a dry run too); the configured forge stays reachable, because it is configured.
 */
describe("Porch's API: a clone task's upstream keeps to the egress policy", () => {
  let w: ApiWorld;
  let listener: Awaited<ReturnType<typeof connectionCounter>>;
  let secret = "";
  const post = (body: string, query = "") =>
    w.request(`${REVISIONS}${query}`, {
      token: w.alice,
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });

  beforeAll(async () => {
    [w, listener] = await Promise.all([apiWorld(), connectionCounter()]);
    secret = secretRepository(w.tmp);
  }, 120_000);
  afterAll(async () => {
    await w?.stop();
    await listener?.close();
  });

  it("refuses file://, a path, git's transports and options and the operator's network: 422 naming the field and the policy", async () => {
    const locations = [
      ...refusedLocations(secret, listener.port),
      "--upload-pack=touch /tmp/porchlight-pwned",
      "-u",
      "ext::sh -c touch% /tmp/porchlight-pwned",
    ];
    for (const [i, repo] of locations.entries()) {
      for (const query of ["", "?dryRun=All"]) {
        const r = await post(cloneOf(`stolen-${i}`, { repo, directory: "app", ref: "main" }), query);
        const status = JSON.parse(r.body);
        expect({ repo, status: r.status, reason: status.reason }).toEqual({
          repo,
          status: 422,
          reason: "Invalid",
        });
        expect(status.kind).toBe("Status");
        expect(status.message).toContain(`${FIELD}: "${repo}" is refused by the egress policy: `);
        expect(status.details.causes).toEqual([
          { reason: "FieldValueInvalid", field: FIELD, message: expect.stringContaining("egress policy") },
        ]);
      }
    }
    expect(listener.connections()).toBe(0);
    const listed = await w.request(REVISIONS, { token: w.alice });
    expect(listed.body).not.toContain("stolen");
    expect(listed.body).not.toContain("SECRETORG");
  }, 300_000);

  it("clones from the configured forge, whatever its address", async () => {
    expect(
      (await w.rpkg(w.alice, ["init", "basens", "--repository=acme/blueprints", "--workspace=first"])).code,
    ).toBe(0);
    expect((await w.publish("acme/blueprints", "blueprints.basens.first")).code).toBe(0);
    const repo = w.forge.cloneUrl("acme/blueprints");
    expect(new URL(repo).hostname).toBe("127.0.0.1");
    const r = await post(cloneOf("basens", { repo, directory: "basens", ref: "basens/v1" }));
    expect(r.status).toBe(201);
    expect(JSON.parse(r.body).metadata.name).toBe("deploy.basens.v1");
  }, 180_000);
});
