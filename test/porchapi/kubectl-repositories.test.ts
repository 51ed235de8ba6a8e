import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rows } from "../cli/rpkg/world.js";
import { KUBECTL_MISSING } from "../util/kubectl.js";
import { type ApiWorld, apiWorld } from "./world.js";

const REPOSITORY = `apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: deployments
  namespace: acme
spec:
  type: git
  content: Package
  deployment: true
  git:
    repo: acme/deploy
    directory: envs
`;

/** Porch's Repository objects through kubectl: the registrations of acme/.porchlight, written as the caller. */
describe.skipIf(KUBECTL_MISSING !== undefined)("repositories with kubectl", () => {
  let w: ApiWorld;
  beforeAll(async () => {
    w = await apiWorld();
  }, 120_000);
  afterAll(() => w.stop());

  it("lists the registrations with Porch's columns and Ready, applies one (a commit in .porchlight) and deletes it", async () => {
    const listed = await w.kubectl("carol", ["get", "repositories"]);
    expect(listed.stderr).toBe("");
    expect(listed.stdout.split("\n")[0]?.split(/\s{2,}/)).toEqual([
      "NAME",
      "TYPE",
      "CONTENT",
      "SYNC SCHEDULE",
      "DEPLOYMENT",
      "READY",
      "ADDRESS",
      "BRANCH",
      "AGE",
    ]);
    // AGE: since the commit that registered it (seconds ago here)
    expect(rows(listed.stdout).map((r) => r.split(" ").slice(0, 2).concat(r.split(" ").slice(-4)))).toEqual([
      ["blueprints", "git", "True", "acme/blueprints", "main", expect.stringMatching(/^\d+s$/)],
      ["deploy", "git", "True", "acme/deploy", "main", expect.stringMatching(/^\d+s$/)],
    ]);
    const applied = await w.kubectl("alice", ["apply", "-f", "-"], { stdin: REPOSITORY });
    expect(applied).toMatchObject({
      code: 0,
      stdout: "repository.config.porch.kpt.dev/deployments created\n",
    });
    const rpkgView = await w.cli(w.alice, [
      "repo",
      "get",
      "deployments",
      "--namespace=acme",
      "-o",
      "jsonpath={.spec.git.directory}",
    ]);
    expect(rpkgView.stdout).toBe("envs");
    const refused = await w.kubectl("carol", ["delete", "repository", "deployments"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/\(Forbidden\)/);
    const deleted = await w.kubectl("alice", ["delete", "repository", "deployments"]);
    expect(deleted).toMatchObject({
      code: 0,
      stdout: 'repository.config.porch.kpt.dev "deployments" deleted\n',
    });
    expect((await w.kubectl("carol", ["get", "repositories", "-o", "name"])).stdout).toBe(
      "repository.config.porch.kpt.dev/blueprints\nrepository.config.porch.kpt.dev/deploy\n",
    );
  });
});
