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
    expect(reg).toEqual({ code: 0, stdout: "", stderr: "" });

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
    expect((await w.cli(w.alice, ["repo", "unregister", "bp", NS])).code).toBe(0);
    const gone = await w.cli(w.alice, ["repo", "unregister", "bp", NS]);
    expect(gone).toEqual({
      code: 1,
      stdout: "",
      stderr: 'Error: repositories.config.porch.kpt.dev "bp" not found in namespace acme\n',
    });
    expect(await w.cli(w.alice, ["repo", "get", NS])).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("says what to do when the namespace has no registry repository and the caller cannot create it", async () => {
    w.forge.createUser("other", { type: "Organization" });
    const r = await w.cli(w.alice, ["repo", "register", "acme/deploy", "--namespace=other"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("create the repository other/.porchlight");
  });
});
