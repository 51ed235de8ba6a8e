import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RpkgWorld, rows, rpkgWorld } from "./rpkg/world.js";

/**
 * `porchlight repo register|get|unregister` keeps Porch's Repository objects in git (OWNER/.porchlight),
 * and `rpkg --namespace=OWNER` then finds a registered repository by its registration name, as porchctl
 * finds a Repository in a namespace.
 */
describe("porchlight repo: Porch's repository registrations, in git", () => {
  let w: RpkgWorld;
  const NS = "--namespace=acme";

  beforeAll(async () => {
    w = await rpkgWorld();
    await w.forge.createRepo("acme/.porchlight", { autoInit: true, private: true });
    w.forge.setPermission("acme/.porchlight", "alice", "admin");
  }, 60_000);
  afterAll(() => w.stop());

  it("registers a repository under a name of its own, and rpkg works on it by that name", async () => {
    const url = `${w.forge.url}/acme/blueprints.git`;
    const reg = await w.cli(w.alice, [
      "repo",
      "register",
      url,
      NS,
      "--name=bp",
      "--description",
      "Blue prints",
      "--repo-basic-password=secret",
    ]);
    expect(reg).toEqual({
      code: 0,
      stdout: "",
      stderr:
        'gave read access to acme/.porchlight to bob, carol (they can read acme/blueprints), so that `rpkg --namespace=acme` finds registration "bp" for them\n',
    });

    const file = await w
      .octokit(w.alice)
      .rest.repos.getContent({ owner: "acme", repo: ".porchlight", path: "repositories/bp.yaml" });
    const text = Buffer.from((file.data as { content: string }).content, "base64").toString("utf8");
    expect(text).toContain("kind: Repository");
    expect(text).toContain(`repo: ${url}`);
    expect(text).not.toContain("secret");

    const cols = await w.cli(w.alice, [
      "repo",
      "get",
      NS,
      "--output=custom-columns=NAME:.metadata.name,DESC:.spec.description,READY:.status.conditions[?(@.type=='Ready')].status,DIR:.spec.git.directory",
    ]);
    expect(cols.stdout).toBe("NAME   DESC          READY   DIR\nbp     Blue prints   True    /\n");

    const init = await w.rpkg(w.alice, ["init", "app", NS, "--repository=bp", "--workspace=ws1"]);
    expect(init.stdout).toBe("bp.app.ws1 created\n");
    // the name carries its repository: no --repository needed
    const got = await w.rpkg(w.alice, ["get", "bp.app.ws1", NS, "--output=jsonpath={.spec.lifecycle}"]);
    expect(got).toEqual({ code: 0, stdout: "Draft", stderr: "" });
    // and a namespace-wide listing reads every registered repository
    const all = await w.rpkg(w.alice, [
      "get",
      NS,
      "--output=custom-columns=NAME:.metadata.name,REV:.spec.revision",
    ]);
    expect(rows(all.stdout)).toEqual(["bp.app.ws1 <none>"]);
  });

  it("refuses a second registration of a name, and unregisters it once", async () => {
    const again = await w.cli(w.alice, ["repo", "register", "acme/deploy", NS, "--name=bp"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('"bp" already exists in namespace acme');
    // porchlight keeps no cache: sync says the registration's repository reads, or why not
    const synced = await w.cli(w.alice, ["repo", "sync", "bp", "nothere", NS]);
    expect(synced).toEqual({
      code: 1,
      stdout: 'Repository "bp" is in sync: porchlight reads it from git\n',
      stderr: 'Error fetching repository "nothere": repositories.config.porch.kpt.dev "nothere" not found\n',
    });
    expect((await w.cli(w.alice, ["repo", "sync", NS])).stderr).toBe(
      "Error: repository name(s) required unless --all is set\n",
    );
    expect((await w.cli(w.alice, ["repo", "unregister", "bp", NS, "--keep-auth-secret"])).code).toBe(0);
    const gone = await w.cli(w.alice, ["repo", "unregister", "bp", NS]);
    expect(gone).toEqual({
      code: 1,
      stdout: "",
      stderr: 'Error: repositories.config.porch.kpt.dev "bp" not found in namespace acme\n',
    });
    expect(await w.cli(w.alice, ["repo", "get", NS])).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("registers labels, which the file holds as metadata.labels and repo get shows", async () => {
    const reg = await w.cli(w.alice, [
      "repo",
      "register",
      "acme/deploy",
      NS,
      "--name=edge",
      "--labels=env=prod,example.com/tier=edge",
    ]);
    expect(reg).toEqual({ code: 0, stdout: "", stderr: "" });
    const got = await w.cli(w.alice, ["repo", "get", "edge", NS, "--output=jsonpath={.metadata.labels}"]);
    expect(JSON.parse(got.stdout)).toEqual({ env: "prod", "example.com/tier": "edge" });
    expect((await w.cli(w.alice, ["repo", "unregister", "edge", NS])).code).toBe(0);
  });

  it.each([
    ["no value", "env", /"env" is not KEY=VALUE/],
    ["a key Kubernetes refuses", "-env=prod", /"-env" is not a label key/],
    ["a value Kubernetes refuses", "env=prod east", /the value "prod east" of env is not a label value/],
  ])("refuses --labels with %s, naming the flag", async (_what, labels, message) => {
    const r = await w.cli(w.alice, [
      "repo",
      "register",
      "acme/deploy",
      NS,
      "--name=bad",
      `--labels=${labels}`,
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain("--labels");
  });

  it("says what to do when the namespace has no registry repository and the caller cannot create it", async () => {
    w.forge.createUser("other", { type: "Organization" });
    const r = await w.cli(w.alice, ["repo", "register", "acme/deploy", "--namespace=other"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("create the repository other/.porchlight");
  });
  it("registers directories of one repository apart: each names, branches and tags its packages under its directory", async () => {
    const url = `${w.forge.url}/acme/deploy.git`;
    for (const dir of ["edge", "core"]) {
      const reg = await w.cli(w.alice, ["repo", "register", url, NS, `--name=${dir}`, `--directory=${dir}`]);
      expect(reg.code).toBe(0);
    }
    // the same package name in both: two packages, edge/app and core/app
    expect((await w.rpkg(w.alice, ["init", "app", NS, "--repository=edge", "--workspace=ws1"])).stdout).toBe(
      "edge.app.ws1 created\n",
    );
    expect((await w.rpkg(w.alice, ["init", "app", NS, "--repository=core", "--workspace=ws1"])).stdout).toBe(
      "core.app.ws1 created\n",
    );
    const gh = w.octokit(w.alice);
    const branches = (await gh.rest.repos.listBranches({ owner: "acme", repo: "deploy" })).data.map(
      (b) => b.name,
    );
    expect(branches).toEqual(expect.arrayContaining(["drafts/edge/app/ws1", "drafts/core/app/ws1"]));

    const cols = "--output=custom-columns=NAME:.metadata.name,PKG:.spec.packageName,REPO:.spec.repository";
    expect(rows((await w.rpkg(w.alice, ["get", NS, cols])).stdout).sort()).toEqual([
      "core.app.ws1 app core",
      "edge.app.ws1 app edge",
    ]);

    // published, it keeps its name, and its tag is under the directory, as Porch tags it
    expect((await w.rpkg(w.alice, ["propose", "edge.app.ws1", NS])).code).toBe(0);
    await w.greenChecks("acme/deploy");
    // bob writes acme/deploy: registering it gave him read access to the namespace's registrations
    const unknown = await w.rpkg(w.bob, ["approve", "nowhere.app.ws1", NS]);
    expect(unknown.stderr).toContain(
      "nowhere.app.ws1 is in none of the repositories registered in namespace acme",
    );
    expect(await w.rpkg(w.bob, ["approve", "edge.app.ws1", NS])).toMatchObject({
      code: 0,
      stdout: "edge.app.ws1 approved\n",
    });
    const tags = (await gh.rest.repos.listTags({ owner: "acme", repo: "deploy" })).data.map((t) => t.name);
    expect(tags).toContain("edge/app/v1");
    const rev = await w.rpkg(w.alice, ["get", "edge.app.ws1", NS, "--output=jsonpath={.spec.revision}"]);
    expect(rev).toEqual({ code: 0, stdout: "1", stderr: "" });
    // the other directory's registration does not see it
    const core = await w.rpkg(w.alice, ["get", NS, "--repository=core", cols]);
    expect(rows(core.stdout)).toEqual(["core.app.ws1 app core"]);

    // a clone from one directory into the other records where its upstream lives in the repository
    const cloned = await w.rpkg(w.alice, ["clone", "edge.app.ws1", "copy", NS, "--repository=core"]);
    expect(cloned.stdout).toBe("core.copy.v1 created\n");
    const kptfile = await gh.rest.repos.getContent({
      owner: "acme",
      repo: "deploy",
      path: "core/copy/Kptfile",
      ref: "drafts/core/copy/v1",
    });
    const text = Buffer.from((kptfile.data as { content: string }).content, "base64").toString("utf8");
    expect(text).toContain("directory: edge/app");
    expect(text).toContain("ref: edge/app/v1");
  });

  it("names what a registration file lacks, and says to fix or remove it", async () => {
    await w.octokit(w.alice).rest.repos.createOrUpdateFileContents({
      owner: "acme",
      repo: ".porchlight",
      path: "repositories/zz-broken.yaml",
      message: "a registration written by hand",
      content: Buffer.from(
        "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: zz-broken\nspec:\n  content: Package\n  type: git\n  git:\n    branch: main\n",
      ).toString("base64"),
    });
    const got = await w.cli(w.alice, ["repo", "get", NS]);
    expect(got.code).toBe(1);
    expect(got.stderr).toContain(
      "acme/.porchlight: repositories/zz-broken.yaml is not a Repository object (spec.git.repo: Invalid input: expected string, received undefined); fix or remove it",
    );
  });
});
