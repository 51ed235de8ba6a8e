import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { rows } from "../cli/rpkg/world.js";
import { captureIO } from "../util/cli-io.js";
import { docBlock } from "../util/doc-blocks.js";
import { type ApiWorld, apiWorld } from "./world.js";

/**
 * Issue #69: a Porch user's kubeconfig is enough for `porchlight rpkg`, as it is for porchctl: the token,
 * the GitHub (the extension porchlight writes in the cluster) and the namespace come from the context,
 * KUBECONFIG merges its files as kubectl does, and flags win over it.
 */
describe("porchlight rpkg with a kubeconfig porchlight wrote", () => {
  let w: ApiWorld;
  /** `porchlight ARGV` with only PATH and `env` set: no GH_TOKEN, no --api-url, no HOME. */
  const porchlight = async (argv: string[], env: Record<string, string> = {}) => {
    const io = captureIO({ cwd: w.tmp, env: { PATH: process.env.PATH ?? "", ...env } });
    const code = await main(argv, io);
    return { code, stdout: io.out(), stderr: io.err() };
  };
  const rpkg = (args: string[], env: Record<string, string> = {}) => porchlight(["rpkg", ...args], env);
  const authorOf = async (head: string) => {
    const pulls = (await w.octokit(w.alice).rest.pulls.list({ owner: "acme", repo: "blueprints" })).data;
    return pulls.find((p) => p.head.ref === head)?.user?.login;
  };

  beforeAll(async () => {
    w = await apiWorld();
    for (const pkg of ["one", "two", "three", "four"]) {
      const r = await w.rpkg(w.alice, ["init", pkg, "--repository=acme/blueprints", "--workspace=v1"]);
      expect(r.stderr).toBe("");
    }
    const r = await w.rpkg(w.alice, [
      "init",
      "hello",
      "--repository=acme/blueprints",
      "--workspace=my-change",
    ]);
    expect(r.stderr).toBe("");
  }, 120_000);
  afterAll(() => w.stop());

  it("lists the context's namespace with only --kubeconfig, and with porchctl's `list`", async () => {
    for (const verb of ["get", "list"]) {
      const r = await rpkg([verb, "--kubeconfig", w.kubeconfig("carol")]);
      expect(r.stderr).toBe("");
      expect(rows(r.stdout)).toContain("blueprints.one.v1 one v1 0 false Draft blueprints");
    }
  });

  it("proposes as the context's user: KUBECONFIG's first file sets the current context, --context chooses another", async () => {
    const KUBECONFIG = `${w.kubeconfig("carol")}:${w.kubeconfig("alice")}`;
    const current = await rpkg(["propose", "blueprints.one.v1"], { KUBECONFIG });
    expect(current).toMatchObject({ code: 0, stderr: "", stdout: "blueprints.one.v1 proposed\n" });
    expect(await authorOf("drafts/one/v1")).toBe("carol");
    const chosen = await rpkg(["propose", "blueprints.four.v1", "--context", "alice@porchlight"], {
      KUBECONFIG,
    });
    expect(chosen).toMatchObject({ code: 0, stderr: "", stdout: "blueprints.four.v1 proposed\n" });
    expect(await authorOf("drafts/four/v1")).toBe("alice");
  });

  it("runs docs/rpkg.md's example: the kubeconfig exported, get lists its namespace, propose acts as its user", async () => {
    const [exported, ...commands] = docBlock(
      "docs/rpkg.md",
      "export KUBECONFIG=/path/to/data/kubeconfig-reviewer.yaml",
    )
      .text.trim()
      .split("\n")
      .map((l) => l.replace(/\s+#.*$/, ""));
    expect(exported).toBe("export KUBECONFIG=/path/to/data/kubeconfig-reviewer.yaml");
    const outs: string[] = [];
    for (const line of commands) {
      const [command, group, ...args] = line.split(/\s+/);
      expect([command, group]).toEqual(["porchlight", "rpkg"]);
      const r = await rpkg(args, { KUBECONFIG: w.kubeconfig("alice") });
      expect(r).toMatchObject({ code: 0, stderr: "" });
      outs.push(r.stdout);
    }
    expect(rows(outs[0] ?? "")).toContain(
      "blueprints.hello.my-change hello my-change 0 false Draft blueprints",
    );
    expect(outs[1]).toBe("blueprints.hello.my-change proposed\n");
    expect(await authorOf("drafts/hello/my-change")).toBe("alice");
  });

  it("lets GH_TOKEN, --api-url and -n win over the kubeconfig", async () => {
    const carol = w.kubeconfig("carol");
    const asBob = await rpkg(["propose", "blueprints.two.v1", "--kubeconfig", carol], { GH_TOKEN: w.bob });
    expect(asBob).toMatchObject({ code: 0, stderr: "" });
    expect(await authorOf("drafts/two/v1")).toBe("bob");
    // a kubeconfig naming a GitHub where nothing listens (port 9 of loopback): --api-url's is asked
    const nowhere = join(w.tmp, "kube", "nowhere.yaml");
    writeFileSync(
      nowhere,
      readFileSync(carol, "utf8").replace(/github-api-url: \S+/, "github-api-url: http://127.0.0.1:9/api/v3"),
    );
    const listed = await rpkg(["get", "--kubeconfig", nowhere, `--api-url=${w.forge.apiUrl}`]);
    expect(listed.stderr).toBe("");
    expect(rows(listed.stdout)).toContain("blueprints.three.v1 three v1 0 false Draft blueprints");
    const other = await rpkg(["get", "--kubeconfig", carol, "-n", "nobody"]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/namespace nobody/);
  });

  it("reads a user's tokenFile, relative to its kubeconfig", async () => {
    const file = join(w.tmp, "kube", "alice-tokenfile.yaml");
    writeFileSync(join(w.tmp, "kube", "alice.token"), `${w.alice}\n`);
    writeFileSync(
      file,
      readFileSync(w.kubeconfig("alice"), "utf8").replace(/token: \S+/, "tokenFile: alice.token"),
    );
    const r = await rpkg(["propose", "blueprints.three.v1", "--kubeconfig", file]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(await authorOf("drafts/three/v1")).toBe("alice");
  });

  it("names the file and the context it cannot use: a context not there, a user without a token, a cluster not porchlight's", async () => {
    const alice = w.kubeconfig("alice");
    expect(await rpkg(["get", "--kubeconfig", alice, "--context", "nobody@porchlight"])).toEqual({
      code: 1,
      stdout: "",
      stderr: `porchlight rpkg: context "nobody@porchlight" is not in ${alice}; contexts there: alice@porchlight\n`,
    });
    const tokenless = join(w.tmp, "kube", "tokenless.yaml");
    writeFileSync(
      tokenless,
      readFileSync(alice, "utf8").replace(/ {6}token: \S+\n/, "      username: alice\n"),
    );
    const r = await rpkg(["get"], { KUBECONFIG: tokenless });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `porchlight rpkg: context "alice@porchlight" (${tokenless}): its user "alice" has no token (nor tokenFile): rpkg acts on GitHub as that token's holder; give the user a GitHub token (token: or tokenFile:), or set GH_TOKEN\n`,
    );
    const foreign = join(w.tmp, "kube", "foreign.yaml");
    writeFileSync(foreign, readFileSync(alice, "utf8").replace(/ {6}extensions:\n(?: {8}.*\n)+/, ""));
    const f = await rpkg(["get", "--kubeconfig", foreign]);
    expect(f.code).toBe(1);
    expect(f.stderr).toContain(
      `porchlight rpkg: context "alice@porchlight" (${foreign}): its cluster "porchlight" (${w.url}) is not a porchlight API's`,
    );
  });

  it("gives `porchlight repo` the same: get lists the context's namespace, and a refusal names repo", async () => {
    const KUBECONFIG = w.kubeconfig("carol");
    const listed = await porchlight(
      ["repo", "get", "--no-headers", "-o", "custom-columns=NAME:.metadata.name"],
      {
        KUBECONFIG,
      },
    );
    expect(listed).toEqual({ code: 0, stdout: "blueprints\ndeploy\n", stderr: "" });
    // --context chooses in KUBECONFIG's files, as rpkg's does: alice (carol only reads) registers
    const both = { KUBECONFIG: `${KUBECONFIG}:${w.kubeconfig("alice")}` };
    const asAlice = ["--context", "alice@porchlight"];
    const registered = await porchlight(
      ["repo", "register", "acme/deploy", "--name=extra", ...asAlice],
      both,
    );
    expect(registered).toMatchObject({ code: 0, stdout: "" });
    const extra = await porchlight(["repo", "get", "extra", "-o", "jsonpath={.spec.git.repo}"], both);
    expect(extra).toEqual({ code: 0, stdout: "acme/deploy", stderr: "" });
    const unregistered = await porchlight(["repo", "unregister", "extra", ...asAlice], both);
    expect(unregistered).toEqual({ code: 0, stdout: "", stderr: "" });

    const tokenless = join(w.tmp, "kube", "repo-tokenless.yaml");
    writeFileSync(
      tokenless,
      readFileSync(w.kubeconfig("alice"), "utf8").replace(/ {6}token: \S+\n/, "      username: alice\n"),
    );
    expect(await porchlight(["repo", "get"], { KUBECONFIG: tokenless })).toEqual({
      code: 1,
      stdout: "",
      stderr: `porchlight repo: context "alice@porchlight" (${tokenless}): its user "alice" has no token (nor tokenFile): repo acts on GitHub as that token's holder; give the user a GitHub token (token: or tokenFile:), or set GH_TOKEN\n`,
    });
    const none = await porchlight(["repo", "register", "acme/deploy"], {
      KUBECONFIG: join(w.tmp, "nothere.yaml"),
    });
    expect(none.stderr).toBe(
      "porchlight repo: no token: set GH_TOKEN (or GITHUB_TOKEN) to a token that can read the namespace's repositories (and write OWNER/.porchlight to change its registrations), or use a kubeconfig porchlight wrote (--kubeconfig FILE, KUBECONFIG, ~/.kube/config)\n",
    );
    const flag = await porchlight(["repo", "get", "--bogus"], { KUBECONFIG });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/^porchlight repo get: unknown flag --bogus; /);
  });

  it("reads no kubeconfig with GH_TOKEN set and no kubeconfig flag, as before", async () => {
    const broken = join(w.tmp, "kube", "broken.yaml");
    writeFileSync(broken, "clusters: {not: a list}\n");
    const io = { KUBECONFIG: broken, GH_TOKEN: w.carol };
    const r = await rpkg(["get", "--repository=acme/blueprints", `--api-url=${w.forge.apiUrl}`], io);
    expect(r.stderr).toBe("");
    expect(rows(r.stdout)).toContain("blueprints.one.v1 one v1 0 false Proposed blueprints");
    // asked for, it is read, and its fault named
    const asked = await rpkg(["get", "--kubeconfig", broken], io);
    expect(asked.code).toBe(1);
    expect(asked.stderr).toMatch(new RegExp(`^porchlight rpkg: ${broken} is not a kubeconfig: clusters: `));
  });
});
