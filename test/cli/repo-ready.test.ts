import { writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type RpkgWorld, rows, rpkgWorld } from "./rpkg/world.js";

/**
 * Porch registers any git repository and says whether it is Ready; one that cannot be reached holds no
 * listing up. Its immutable fields stay as registered.
 */
describe("porchlight repo: any git URL, Ready with its reason, bounded waits, immutable fields", () => {
  let w: RpkgWorld;
  let silent: Server;
  const sockets = new Set<Socket>();
  let silentUrl = "";
  const NS = "--namespace=acme";

  beforeAll(async () => {
    w = await rpkgWorld();
    await w.forge.createRepo("acme/.porchlight", { autoInit: true, private: true });
    w.forge.setPermission("acme/.porchlight", "alice", "admin");
    // a server that accepts connections and never answers
    silent = createServer((s) => {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    });
    await new Promise<void>((done) => silent.listen(0, "127.0.0.1", done));
    const address = silent.address();
    silentUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/acme/silent.git`;
  }, 60_000);
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((done) => silent.close(done));
    await w.stop();
  });

  const readyColumns =
    "--output=custom-columns=NAME:.metadata.name,READY:.status.conditions[?(@.type=='Ready')].status,REASON:.status.conditions[0].reason";

  it("registers a URL whose host does not resolve, and shows it not Ready with the reason", async () => {
    const reg = await w.cli(w.alice, [
      "repo",
      "register",
      "https://repo.invalid/repository.git",
      NS,
      "--name=repo-with-error",
    ]);
    expect(reg).toEqual({ code: 0, stdout: "", stderr: "" });
    const got = await w.cli(w.alice, [
      "repo",
      "get",
      "repo-with-error",
      NS,
      readyColumns,
      "--request-timeout=5s",
    ]);
    expect(got.code).toBe(0);
    expect(rows(got.stdout)).toEqual(["repo-with-error False Error"]);
    const message = await w.cli(w.alice, [
      "repo",
      "get",
      "repo-with-error",
      NS,
      "--output=jsonpath={.status.conditions[0].message}",
      "--request-timeout=5s",
    ]);
    expect(message.stdout).toMatch(/repo\.invalid/);
    await w.cli(w.alice, ["repo", "unregister", "repo-with-error", NS]);

    // a namespace whose only registration is such a URL: rpkg says so, rather than asking for --repository
    w.forge.createUser("far", { type: "Organization" });
    await w.forge.createRepo("far/.porchlight", { autoInit: true, private: true });
    w.forge.setPermission("far/.porchlight", "alice", "admin");
    const far = ["--namespace=far"];
    expect((await w.cli(w.alice, ["repo", "register", "https://repo.invalid/x.git", ...far])).code).toBe(0);
    const listed = await w.rpkg(w.alice, ["get", ...far]);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain(
      'namespace far registers no repository porchlight can read: "x": https://repo.invalid/x.git is not a repository of',
    );
  });

  it("refuses an address that is no git address, saying what to give", async () => {
    const r = await w.cli(w.alice, ["repo", "register", "not a url", NS]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"not a url" is not a git repository\'s address');
  });

  it("waits at most --request-timeout for a server that never answers, and lists the other repositories", async () => {
    expect((await w.cli(w.alice, ["repo", "register", silentUrl, NS, "--name=hanging"])).code).toBe(0);
    expect((await w.cli(w.alice, ["repo", "register", "acme/blueprints", NS, "--name=working"])).code).toBe(
      0,
    );
    expect((await w.rpkg(w.alice, ["init", "pkg", NS, "--repository=working", "--workspace=ws"])).code).toBe(
      0,
    );

    const started = Date.now();
    const got = await w.cli(w.alice, ["repo", "get", NS, readyColumns, "--request-timeout=1s"]);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(rows(got.stdout)).toEqual(["hanging False Error", "working True Ready"]);
    const why = await w.cli(w.alice, [
      "repo",
      "get",
      "hanging",
      NS,
      "--output=jsonpath={.status.conditions[0].message}",
      "--request-timeout=500ms",
    ]);
    expect(why.stdout).toBe(
      `${silentUrl} did not answer within 500ms (--request-timeout, PORCHLIGHT_REQUEST_TIMEOUT)`,
    );

    // rpkg lists the namespace: the working repository's packages, the other reported, not waited on
    const listed = await w.rpkg(w.alice, ["get", NS]);
    expect(listed.code).toBe(0);
    expect(rows(listed.stdout).map((r) => r.split(" ")[0])).toEqual(["working.pkg.ws"]);
    expect(listed.stderr).toContain('Warning: repository "hanging" is not listed:');
    // spec.repository, as Porch's hanging-repository test lists: only that repository is read
    const one = await w.rpkg(w.alice, ["get", NS, "--field-selector=spec.repository=working"]);
    expect(one.stderr).toBe("");
    expect(rows(one.stdout).map((r) => r.split(" ")[0])).toEqual(["working.pkg.ws"]);
    const named = await w.rpkg(w.alice, ["get", NS, "--repository=hanging"]);
    expect(named.code).toBe(1);
    expect(named.stderr).toContain(`repository "hanging" is not ready: ${silentUrl} is not a repository of`);
  }, 60_000);

  it("reports a repository of this GitHub that does not answer in time, and lists the others", async () => {
    expect((await w.cli(w.alice, ["repo", "unregister", "hanging", NS])).code).toBe(0);
    expect((await w.cli(w.alice, ["repo", "register", "acme/deploy", NS, "--name=slow"])).code).toBe(0);
    expect((await w.rpkg(w.alice, ["init", "other", NS, "--repository=slow", "--workspace=ws"])).code).toBe(
      0,
    );
    // the first of the two repositories to list its pull requests is held unanswered
    const held = w.forge.faults.add({
      route: "/repos/{owner}/{repo}/pulls",
      method: "GET",
      hang: true,
      times: 1,
    });
    try {
      const started = Date.now();
      const listed = await w.rpkg(w.alice, ["get", NS, "--request-timeout=1s"]);
      expect(Date.now() - started).toBeLessThan(8_000);
      expect(listed.code).toBe(0);
      const names = rows(listed.stdout).map((r) => r.split(" ")[0]);
      expect(names).toHaveLength(1);
      expect(["working.pkg.ws", "slow.other.ws"]).toContain(names[0]);
      expect(listed.stderr).toMatch(
        /^Warning: repository "(working|slow)" is not listed: .* did not answer within 1s/,
      );
    } finally {
      w.forge.faults.remove(held);
    }
    // a repository named alone waits as long as it takes, unless the timeout is set
    const again = w.forge.faults.add({
      route: "/repos/{owner}/{repo}/pulls",
      method: "GET",
      hang: true,
      times: 1,
    });
    try {
      const alone = await w.rpkg(w.alice, ["get", "--repository=acme/deploy", "--request-timeout=500ms"]);
      expect(alone.code).toBe(1);
      expect(alone.stderr).toContain("repository acme/deploy did not answer within 500ms");
    } finally {
      w.forge.faults.remove(again);
    }
    // and a bad duration is refused, saying how to write one

    const env = await w.rpkg(w.alice, ["get", NS, "--request-timeout=soon"]);
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('--request-timeout "soon" is not a duration');
  }, 60_000);

  it("refuses a change of Porch's immutable fields with Porch's words, and applies a new description", async () => {
    expect(
      (
        await w.cli(w.alice, [
          "repo",
          "register",
          "acme/deploy",
          NS,
          "--name=immutable",
          "--directory=test-dir",
        ])
      ).code,
    ).toBe(0);
    const yaml = (await w.cli(w.alice, ["repo", "get", "immutable", NS, "-o", "yaml"])).stdout;
    const file = join(w.tmp, "repository.yaml");
    const change = (
      edit: (o: { spec: Record<string, unknown> & { git: Record<string, unknown> } }) => void,
    ) => {
      const obj = parse(yaml);
      edit(obj);
      writeFileSync(file, JSON.stringify(obj));
    };
    const cases: [
      string,
      (o: { spec: Record<string, unknown> & { git: Record<string, unknown> } }) => void,
    ][] = [
      [
        "spec.git.repo",
        (o) => {
          o.spec.git.repo = "https://different-repo.git";
        },
      ],
      [
        "spec.git.branch",
        (o) => {
          o.spec.git.branch = "different-branch";
        },
      ],
      [
        "spec.git.directory",
        (o) => {
          o.spec.git.directory = "different-dir";
        },
      ],
      [
        "spec.type",
        (o) => {
          o.spec.type = "oci";
        },
      ],
    ];
    for (const [field, edit] of cases) {
      change(edit);
      const r = await w.cli(w.alice, ["repo", "apply", "-f", file, NS]);
      expect(r).toEqual({
        code: 1,
        stdout: "",
        stderr: `Error: Repository.config.porch.kpt.dev "immutable" is invalid: <nil>: Invalid value: "object": ${field} is immutable\n`,
      });
    }
    change((o) => {
      o.spec.description = "Updated description for immutability test";
    });
    expect(await w.cli(w.alice, ["repo", "apply", "-f", file, NS])).toEqual({
      code: 0,
      stdout: "repository.config.porch.kpt.dev/immutable configured\n",
      stderr: "",
    });
    expect((await w.cli(w.alice, ["repo", "apply", "-f", file, NS])).stdout).toBe(
      "repository.config.porch.kpt.dev/immutable unchanged\n",
    );
    const after = await w.cli(w.alice, [
      "repo",
      "get",
      "immutable",
      NS,
      "--output=jsonpath={.spec.description} {.spec.git.repo} {.spec.git.directory}",
    ]);
    expect(after.stdout).toBe("Updated description for immutability test acme/deploy test-dir");

    // a new one, without a branch or content (as Porch's TestRepositoryBranchDefault writes it): Porch's defaults
    const fresh = join(w.tmp, "fresh.yaml");
    writeFileSync(
      fresh,
      "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: branch-default\nspec:\n  type: git\n  git:\n    repo: acme/deploy\n",
    );
    expect((await w.cli(w.alice, ["repo", "apply", "-f", fresh, NS])).stdout).toBe(
      "repository.config.porch.kpt.dev/branch-default created\n",
    );
    const branch = await w.cli(w.alice, [
      "repo",
      "get",
      "branch-default",
      NS,
      "--output=jsonpath={.spec.git.branch} {.spec.content}",
    ]);
    expect(branch.stdout).toBe("main Package");

    // labels and annotations the API server would refuse are not committed
    const registry = async () =>
      (await w.octokit(w.alice).rest.repos.getBranch({ owner: "acme", repo: ".porchlight", branch: "main" }))
        .data.commit.sha;
    const before = await registry();
    const labelled = join(w.tmp, "labelled.yaml");
    writeFileSync(
      labelled,
      'apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: labelled\n  labels:\n    "../../etc passwd": x\nspec:\n  type: git\n  git:\n    repo: acme/deploy\n',
    );
    const refused = await w.cli(w.alice, ["repo", "apply", "-f", labelled, NS]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'Error: Repository.config.porch.kpt.dev "labelled" is invalid: metadata.labels: Invalid value: "../../etc passwd": a qualified name must consist',
    );
    expect(await registry()).toBe(before);
  }, 60_000);
});
