import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { startForge } from "@porchlight/forge";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { rows, useRpkgWorld } from "./world.js";

const UP = "--repository=acme/blueprints";
const DOWN = "--repository=acme/deploy";

describe("rpkg clone and upgrade: downstream packages follow upstream revisions", () => {
  /** Pulls `name`, lets `edit` change the files, pushes them back. */
  const edit = async (repo: string, name: string, dir: string, change: (dir: string) => void) => {
    const path = join(w.tmp, dir);
    expect((await w.rpkg(w.alice, ["pull", name, path, repo])).code).toBe(0);
    change(path);
    const pushed = await w.rpkg(w.alice, ["push", name, path, repo]);
    expect(pushed.stderr).not.toContain("failed");
    expect(pushed.code).toBe(0);
  };
  const setData = (file: string, from: string, to: string) =>
    writeFileSync(file, readFileSync(file, "utf8").replace(from, to));

  const w = useRpkgWorld();
  beforeAll(async () => {
    await w.rpkg(w.alice, ["init", "basens", UP, "--workspace=first"]);
    await edit(UP, "blueprints.basens.first", "basens-1", (dir) =>
      writeFileSync(
        join(dir, "cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  color: blue\n  size: small\n",
      ),
    );
    const published = await w.publish("acme/blueprints", "blueprints.basens.first");
    expect(published.stdout).toBe("blueprints.basens.first approved\n");
  });

  it("clones a published revision of another repository, recording upstream and lock", async () => {
    const r = await w.rpkg(w.alice, ["clone", "blueprints.basens.v1", "web", DOWN, "--workspace=first"]);
    expect(r.stderr).not.toContain("failed");
    expect(r).toMatchObject({ code: 0, stdout: "deploy.web.first created\n" });
    const dir = join(w.tmp, "web-clone");
    await w.rpkg(w.alice, ["pull", "deploy.web.first", dir, DOWN]);
    const kf = parse(readFileSync(join(dir, "Kptfile"), "utf8"));
    expect(kf.metadata.name).toBe("web");
    // as Porch's clone writes it: the directory as named, no update strategy unless --strategy says
    // one, the Kptfile's own upstream identifier, and the render's outcome
    expect(kf.upstream).toEqual({
      type: "git",
      git: { repo: kf.upstream.git.repo, directory: "basens", ref: "basens/v1" },
    });
    expect(kf.metadata.annotations["internal.kpt.dev/upstream-identifier"]).toBe(
      "kpt.dev|Kptfile|default|web",
    );
    expect(kf.status.conditions).toEqual([{ type: "Rendered", status: "True", reason: "RenderSuccess" }]);
    expect(kf.upstream.git.repo).toMatch(/\/acme\/blueprints\.git$/);
    expect(kf.upstreamLock.git.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(readFileSync(join(dir, "cm.yaml"), "utf8")).toContain("color: blue");
    // Porch's clone task, read back from the draft's first commit: the source revision by its name
    const task = await w.rpkg(w.alice, ["get", "deploy.web.first", DOWN, "--output=jsonpath={.spec.tasks}"]);
    expect(JSON.parse(task.stdout)).toEqual([
      { type: "clone", clone: { upstreamRef: { upstreamRef: { name: "blueprints.basens.first" } } } },
    ]);
  });

  it("a clone into a deployment repository names itself in its package context; elsewhere it keeps the upstream's", async () => {
    await w.forge.createRepo("acme/deploy-prod", {
      files: { "README.md": "# prod\n", ".github/porchlight.yml": "deployment: true\n" },
    });
    w.forge.setPermission("acme/deploy-prod", "alice", "write");
    const r = await w.rpkg(w.alice, [
      "clone",
      "blueprints.basens.v1",
      "ns-a",
      "--repository=acme/deploy-prod",
    ]);
    expect(r.stderr).not.toContain("failed");
    expect(r.code).toBe(0);
    const dir = join(w.tmp, "ns-a-clone");
    await w.rpkg(w.alice, ["pull", "deploy-prod.ns-a.v1", dir, "--repository=acme/deploy-prod"]);
    // As Porch's clone task in a deployment repository, and kpt pkg get --for-deployment.
    expect(readFileSync(join(dir, "package-context.yaml"), "utf8")).toBe(
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  name: ns-a\n',
    );
    // acme/deploy is not one: web's context is the upstream's (kpt pkg init names it "example").
    const web = join(w.tmp, "web-context");
    await w.rpkg(w.alice, ["pull", "deploy.web.first", web, DOWN]);
    expect(readFileSync(join(web, "package-context.yaml"), "utf8")).toContain("  name: example\n");
  });

  it("a repository registered with --deployment is a deployment repository: its clones get the package context", async () => {
    // as Porch's TestCloneIntoDeploymentRepository: the registration says so, the repository's own
    // configuration does not
    // (a namespace of its own: its registrations would name acme's repositories for the other cases)
    w.forge.createUser("sites", { type: "Organization" });
    await w.forge.createRepo("sites/.porchlight", { autoInit: true });
    w.forge.setPermission("sites/.porchlight", "alice", "write");
    await w.forge.createRepo("sites/deploy-reg", { files: { "README.md": "# reg\n" } });
    w.forge.setPermission("sites/deploy-reg", "alice", "write");
    const reg = await w.cli(w.alice, [
      "repo",
      "register",
      "sites/deploy-reg",
      "--namespace=sites",
      "--name=deployreg",
      "--deployment",
    ]);
    expect(reg.stderr).toBe("");
    const r = await w.rpkg(w.alice, [
      "clone",
      "acme/blueprints:basens/v1",
      "istions-deployment",
      "--namespace=sites",
      "--repository=deployreg",
      "--workspace=clone-deployment-workspace",
    ]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("deployreg.istions-deployment.clone-deployment-workspace created\n");
    const dir = join(w.tmp, "deployreg-clone");
    await w.rpkg(w.alice, [
      "pull",
      "deployreg.istions-deployment.clone-deployment-workspace",
      dir,
      "--namespace=sites",
    ]);
    expect(parse(readFileSync(join(dir, "package-context.yaml"), "utf8"))).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "kptfile.kpt.dev", annotations: { "config.kubernetes.io/local-config": "true" } },
      data: { name: "istions-deployment" },
    });
  });

  it("a clone of a blueprint pinning apply-setters:v0.2.2 (as Porch's bucket blueprint) is rendered", async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a kpt setter comment, not a template
    const setter = "# kpt-set: ${project-id}-${name}";
    await w.forge.createRepo("acme/gcp-blueprints", {
      files: {
        "README.md": "# blueprints\n",
        "bucket/Kptfile":
          'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: bucket\n  annotations:\n    config.kubernetes.io/local-config: "true"\npipeline:\n  mutators:\n    - image: ghcr.io/kptdev/krm-functions-catalog/apply-setters:v0.2.2\n      configPath: setters.yaml\n',
        "bucket/setters.yaml":
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setters\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  name: bucket2\n  project-id: blueprints-project\n',
        "bucket/bucket.yaml": `apiVersion: storage.cnrm.cloud.google.com/v1beta1\nkind: StorageBucket\nmetadata:\n  name: blueprints-project-bucket ${setter}\n`,
      },
    });
    w.forge.setPermission("acme/gcp-blueprints", "alice", "read");
    const url = w.forge.cloneUrl("acme/gcp-blueprints");
    const r = await w.rpkg(w.alice, ["clone", url, "my-bucket", DOWN, "--directory=bucket", "--ref=main"]);
    expect(r.stderr).toBe("");
    const dir = join(w.tmp, "my-bucket");
    await w.rpkg(w.alice, ["pull", "deploy.my-bucket.v1", dir, DOWN]);
    expect(readFileSync(join(dir, "bucket.yaml"), "utf8")).toContain(
      `name: blueprints-project-bucket2 ${setter}\n`,
    );
    expect(parse(readFileSync(join(dir, "Kptfile"), "utf8")).status.conditions).toEqual([
      { type: "Rendered", status: "True", reason: "RenderSuccess" },
    ]);
  });

  it("names another repository's revision as OWNER/REPO:NAME, and refuses an existing package", async () => {
    const taken = await w.rpkg(w.alice, ["clone", "acme/blueprints:basens/v1", "web", DOWN]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(
      'cannot create a new revision for package "web" that already exists in repo "deploy"; make subsequent revisions using `copy`',
    );
    const r = await w.rpkg(w.alice, ["clone", "acme/blueprints:basens/v1", "api", DOWN, "--workspace=first"]);
    expect(r).toMatchObject({ code: 0, stdout: "deploy.api.first created\n" });
  });

  it("upgrade merges the upstream's new revision into the downstream's own changes", async () => {
    await edit(DOWN, "deploy.web.first", "web-local", (dir) =>
      setData(join(dir, "cm.yaml"), "size: small", "size: large"),
    );
    expect((await w.publish("acme/deploy", "deploy.web.first")).code).toBe(0);

    expect((await w.rpkg(w.alice, ["copy", "blueprints.basens.v1", "--workspace=second", UP])).code).toBe(0);
    await edit(UP, "blueprints.basens.second", "basens-2", (dir) =>
      setData(join(dir, "cm.yaml"), "color: blue", "color: green"),
    );
    expect((await w.publish("acme/blueprints", "blueprints.basens.second")).stdout).toBe(
      "blueprints.basens.second approved\n",
    );

    const missing = await w.rpkg(w.alice, ["upgrade", "web/v1", "--revision=7", "--workspace=up", DOWN]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      "revision 7 does not exist for package basens in acme/blueprints (its latest is v2)",
    );

    // porchctl's discovery: which upstream revisions each downstream one could take, and the reverse
    const up = await w.rpkg(w.alice, ["upgrade", "--discover=upstream", "deploy.web.first", DOWN]);
    expect(up).toEqual({
      code: 0,
      stdout:
        "PACKAGE REVISION   UPSTREAM REPOSITORY   UPSTREAM UPDATES\ndeploy.web.first   blueprints            v2\n",
      stderr: "",
    });
    const down = await w.rpkg(w.alice, [
      "upgrade",
      "--discover=downstream",
      "blueprints.basens.second",
      DOWN,
    ]);
    expect(down.stdout.split("\n")[0]).toMatch(/^PACKAGE REVISION\s+DOWNSTREAM PACKAGE\s+DOWNSTREAM UPDATE$/);
    expect(rows(down.stdout)).toEqual(
      expect.arrayContaining([
        "blueprints.basens.second deploy.web.first v1->v2",
        "blueprints.basens.second deploy.web.main v1->v2",
      ]),
    );
    const none = await w.rpkg(w.alice, ["upgrade", "--discover=downstream", "blueprints.basens.first", DOWN]);
    expect(none.stdout).toBe("All downstream packages are up to date.\n");
    const bad = await w.rpkg(w.alice, ["upgrade", "--discover=sideways", DOWN]);
    expect(bad.stderr).toBe("Error: argument for 'discover' must be one of 'upstream' or 'downstream' \n");

    const strategy = await w.rpkg(w.alice, ["upgrade", "web/v1", "--workspace=x", "--strategy=merge", DOWN]);
    expect(strategy.stderr).toBe(
      'Error: invalid strategy "merge"; must be one of: [resource-merge fast-forward force-delete-replace copy-merge] \n',
    );
    // fast-forward refuses a package with local changes, as kpt's does
    const ff = await w.rpkg(w.alice, ["upgrade", "web/v1", "--workspace=x", "--strategy=fast-forward", DOWN]);
    expect(ff.code).toBe(1);
    expect(ff.stderr).toContain("fast-forward only updates unchanged packages");

    const r = await w.rpkg(w.alice, ["upgrade", "web/v1", "--workspace=up", DOWN]);
    expect(r.stderr).not.toContain("failed");
    expect(r).toMatchObject({ code: 0, stdout: "deploy.web.first upgraded to deploy.web.up\n" });
    const dir = join(w.tmp, "web-up");
    await w.rpkg(w.alice, ["pull", "deploy.web.up", dir, DOWN]);
    const cm = readFileSync(join(dir, "cm.yaml"), "utf8");
    expect(cm).toContain("color: green");
    expect(cm).toContain("size: large");
    const kf = parse(readFileSync(join(dir, "Kptfile"), "utf8"));
    expect(kf.upstreamLock.git.ref).toBe("basens/v2");
    // Porch's upgrade task: from which upstream revision to which, over which local one
    const task = await w.rpkg(w.alice, ["get", "deploy.web.up", DOWN, "--output=jsonpath={.spec.tasks[0]}"]);
    expect(JSON.parse(task.stdout)).toEqual({
      type: "upgrade",
      upgrade: {
        oldUpstreamRef: { name: "blueprints.basens.first" },
        newUpstreamRef: { name: "blueprints.basens.second" },
        localPackageRevisionRef: { name: "deploy.web.first" },
        strategy: "resource-merge",
      },
    });
  });

  it("an upgrade that conflicts pushes nothing and lists the conflicts", async () => {
    const readme = (to: string) => (dir: string) => setData(join(dir, "README.md"), "## Description", to);
    expect((await w.rpkg(w.alice, ["copy", "web/v1", "--workspace=docs", DOWN])).code).toBe(0);
    await edit(DOWN, "deploy.web.docs", "web-docs", readme("## About this deployment"));
    expect((await w.publish("acme/deploy", "deploy.web.docs")).stdout).toBe("deploy.web.docs approved\n");
    expect((await w.rpkg(w.alice, ["copy", "basens/v2", "--workspace=docs", UP])).code).toBe(0);
    await edit(UP, "blueprints.basens.docs", "basens-docs", readme("## Summary"));
    expect((await w.publish("acme/blueprints", "blueprints.basens.docs")).stdout).toBe(
      "blueprints.basens.docs approved\n",
    );

    const r = await w.rpkg(w.alice, ["upgrade", "web/v2", "--workspace=conflicted", DOWN]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "upgrading web/v2 to basens/v3 conflicts with its local changes; nothing was pushed:",
    );
    expect(r.stderr).toMatch(/ {2}web\/README\.md:\d+-\d+: /);
    const get = await w.rpkg(w.alice, ["get", DOWN, "--workspace=conflicted"]);
    expect(get.stdout).toBe("");
  });

  it("refuses to upgrade a package with no upstream", async () => {
    const none = await w.rpkg(w.alice, ["upgrade", "basens/v1", "--workspace=x", UP]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no upstream");
  });

  it("clones from a git repository elsewhere with --directory and --ref, where the operator allows it", async () => {
    // another git server (a second forge, on loopback): reached only as PORCHLIGHT_EGRESS_ALLOW lets it
    const other = await startForge();
    try {
      other.createUser("olive", { type: "Organization" });
      await other.createRepo("olive/pkgs", {
        private: false,
        files: {
          "pkgs/hello/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: hello\n",
          "pkgs/hello/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hello\n",
        },
      });
      const { pat } = other.createUser("oscar", { pat: true });
      other.setPermission("olive/pkgs", "oscar", "write");
      const gh = new Octokit({ baseUrl: other.apiUrl, auth: pat });
      const main = await gh.rest.git.getRef({ owner: "olive", repo: "pkgs", ref: "heads/main" });
      await gh.rest.git.createRef({
        owner: "olive",
        repo: "pkgs",
        ref: "refs/tags/pkgs/hello/v3",
        sha: main.data.object.sha,
      });
      const url = other.cloneUrl("olive/pkgs");
      const args = ["clone", url, "hello", DOWN, "--directory=pkgs/hello", "--ref=v3"];
      const refused = await w.rpkg(w.alice, args);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`SOURCE: "${url}" is refused by the egress policy`);
      const r = await w.rpkg(w.alice, args, {
        env: { PORCHLIGHT_EGRESS_ALLOW: new URL(url).host },
      });
      expect(r).toMatchObject({ code: 0, stdout: "deploy.hello.v1 created\n", stderr: "" });
      const dir = join(w.tmp, "hello");
      await w.rpkg(w.alice, ["pull", "deploy.hello.v1", dir, DOWN]);
      const kf = parse(readFileSync(join(dir, "Kptfile"), "utf8"));
      expect(kf.upstream.git).toMatchObject({ repo: url, directory: "pkgs/hello", ref: "v3" });
      expect(kf.upstreamLock.git.ref).toBe("pkgs/hello/v3");
    } finally {
      await other.stop();
    }
  });
});
