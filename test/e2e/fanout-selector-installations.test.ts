import { Octokit } from "@octokit/rest";
import { beforeAll, describe, expect, it } from "vitest";
import { parseVariantPullRequestBody } from "../../src/variants/index.js";
import {
  branchHead,
  branchHeads,
  checkRuns,
  dashboardOf,
  expectRedeliveryWritesNothing,
  publishDraft,
  useWorld,
} from "./harness.js";

const HELLO_KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: hello\n";
const cm = (v: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hello\ndata:\n  greeting: "${v}"\n`;
// A bare glob means the management repository's installation; `other/cluster-*` reaches the app's
// installation on `other`; `nowhere/cluster-*` an account the app is not installed on.
const FLEET = `apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata: {name: fleet}
spec:
  upstream: {package: hello, revision: v1}
  targets:
  - repositorySelector:
      names: ["cluster-*", "other/cluster-*", "nowhere/cluster-*"]
      excludeNames: ["other/cluster-99"]
`;

/**
 * Issue 19: a PackageVariantSet's `repositorySelector` across installations of the same app. `acme/blueprints`
 * (installation A) selects `acme/cluster-01` in A and, by owner, `other/cluster-01` and `other/cluster-02` in
 * installation B; `other/web` and the excluded `other/cluster-99` are left alone.
 */
describe("a repositorySelector across installations (forge over HTTP and git)", () => {
  let instB: number;
  let dana: Octokit;
  let approval = 0;
  const fanoutPulls = async (gh: Octokit, owner: string, repo: string) =>
    (await gh.pulls.list({ owner, repo, state: "all" })).data.filter((p) =>
      p.head.ref.startsWith("porchlight/variant/"),
    );
  const heads = () =>
    branchHeads([
      [dana, "other/cluster-01"],
      [dana, "other/cluster-02"],
      [dana, "other/cluster-99"],
      [dana, "other/web"],
      [w.users.alice!.rest, "acme/cluster-01"],
      [w.users.alice!.rest, "acme/blueprints"],
    ]);

  const w = useWorld({
    ".porchlight/variants/fleet.yaml": FLEET,
    "hello/Kptfile": HELLO_KPTFILE,
    "hello/cm.yaml": cm("hi"),
  });
  beforeAll(async () => {
    const appId = w.forge.core.store.data.installations[0]!.appId;
    await w.forge.createRepo("acme/cluster-01", { files: { "README.md": "# cluster-01\n" } });
    w.forge.setPermission("acme/cluster-01", "alice", "write");
    w.forge.createUser("other", { type: "Organization" });
    const { pat } = w.forge.createUser("dana", { pat: true });
    for (const name of ["cluster-01", "cluster-02", "cluster-99", "web"]) {
      await w.forge.createRepo(`other/${name}`, { files: { "README.md": `# ${name}\n` }, private: true });
      w.forge.setPermission(`other/${name}`, "dana", "write");
    }
    instB = w.forge.createInstallation(appId, "other").id;
    dana = new Octokit({ baseUrl: w.forge.apiUrl, auth: pat });
    w.forge.createUser("nowhere", { type: "Organization" });
    await w.forge.createRepo("nowhere/cluster-07", { files: { "README.md": "# x\n" } });
    await w.settle();
    approval = await publishDraft(w, "drafts/hello/ws1", { "hello/cm.yaml": cm("v1") });
  }, 120_000);

  it("proposes the package in every selected repository, in each installation as that installation", async () => {
    for (const repo of ["cluster-01", "cluster-02"]) {
      const pulls = await fanoutPulls(dana, "other", repo);
      expect(pulls.map((p) => p.state)).toEqual(["open"]);
      expect(parseVariantPullRequestBody(pulls[0]!.body)?.to).toBe("v1");
      // other/cluster-01 and acme/cluster-01 share a short name, not a variant (nor a branch name).
      expect(pulls[0]!.head.ref).toMatch(
        /^porchlight\/variant\/hello\/fleet-other-cluster-0[12]-hello-[0-9a-f]{8}$/,
      );
      const created = w.forge.requestLog
        .filter({ method: "POST", route: "/repos/{owner}/{repo}/pulls" })
        .filter((e) => e.path.includes(`/other/${repo}/`));
      expect(created.map((e) => e.installationId)).toEqual([instB]);
    }
    const local = await fanoutPulls(w.users.alice!.rest, "acme", "cluster-01");
    expect(local.map((p) => p.head.ref)).toEqual(["porchlight/variant/hello/fleet-cluster-01-hello"]);
    // Not matched by the glob, and excluded: untouched, not even read past the listing.
    for (const repo of ["web", "cluster-99"]) {
      expect(await fanoutPulls(dana, "other", repo)).toEqual([]);
      const byApp = w.forge.requestLog.entries.filter(
        (e) => e.installationId !== null && e.path.includes(`/other/${repo}`),
      );
      expect(byApp).toEqual([]);
    }
    // An account without the app: nothing selected there, nothing written, the others went on.
    const nowhere = w.forge.requestLog.entries.filter((e) => e.path.includes("/nowhere"));
    expect(nowhere.length).toBeGreaterThan(0);
    expect(nowhere.every((e) => e.path === "/users/nowhere/installation" && e.status === 404)).toBe(true);
    expect(await dashboardOf(w)).toContain(
      "nowhere/cluster-* selects nothing: the porchlight app is not installed on nowhere",
    );
  }, 120_000);

  it("the same event again writes nothing; nor does the sweep, twice", async () => {
    const before = await heads();
    await expectRedeliveryWritesNothing(w, approval);
    expect(await heads()).toEqual(before);
    for (const repo of ["cluster-01", "cluster-02"])
      expect((await fanoutPulls(dana, "other", repo)).length).toBe(1);
  }, 120_000);

  it("a template putting repository.name (other/cluster-01) into a package path is a warning at its line in porchlight/variants", async () => {
    await w.propose("variants-web", {
      ".porchlight/variants/fleet.yaml": `${FLEET}    template:\n      downstream:\n        packageExpr: "'web-' + repository.name"\n`,
    });
    const [run] = (await checkRuns(w, await branchHead(w, "variants-web"))).filter(
      (r) => r.name === "porchlight/variants",
    );
    // The nowhere account is still an error; the owner/name in a package path a warning, the variants run.
    expect(run?.conclusion).toBe("failure");
    expect(run?.output.title).toBe("1 problem in variant files, 1 warning");
    const annotations = (
      await w.users.alice!.rest.checks.listAnnotations({
        owner: "acme",
        repo: "blueprints",
        check_run_id: run!.id,
      })
    ).data;
    expect(annotations).toContainEqual(
      expect.objectContaining({
        path: ".porchlight/variants/fleet.yaml",
        start_line: 12,
        annotation_level: "warning",
        message: expect.stringContaining(
          'spec.targets[0].template.downstream.packageExpr: repository.name is "other/cluster-01" here',
        ),
      }),
    );
  }, 120_000);
});
