import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { files, git, porchlight, Sandbox, V1, V2 } from "./pkg-fixture.js";

/** Every bad input gets a clear message, a non-zero exit, and leaves the local package as it was. */
describe("porchlight pkg: bad input", () => {
  let box: Sandbox;
  let url: string;

  beforeAll(async () => {
    box = new Sandbox();
    await box.publish("app", V1, "v1");
    await box.publish("app", V2, "v2");
    url = `file://${box.up}.git/app`;
  });
  afterAll(() => box.close());

  /** A package fetched at v1 into a git working tree and committed; `edit` then changes it (committed). */
  async function fetched(name: string, edit?: (dir: string) => void): Promise<{ ws: string; pkg: string }> {
    const ws = box.dir(name, true);
    expect((await porchlight(ws, "pkg", "get", `${url}@v1`, "app")).code).toBe(0);
    const pkg = join(ws, "app");
    edit?.(pkg);
    git(ws, "add", "-A");
    git(ws, "commit", "-q", "-m", "fetched");
    return { ws, pkg };
  }

  function rewrite(path: string, f: (s: string) => string): void {
    writeFileSync(path, f(readFileSync(path, "utf8")));
  }

  describe("pkg get", () => {
    it("refuses an unreachable upstream and creates nothing", async () => {
      const ws = box.dir("get-unreachable");
      const r = await porchlight(ws, "pkg", "get", `file://${box.root}/missing.git/app@v1`, "app");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`cannot reach upstream repository "file://${box.root}/missing"`);
      expect(existsSync(join(ws, "app"))).toBe(false);
    });

    it("refuses a ref that does not exist, listing the branches and tags", async () => {
      const ws = box.dir("get-noref");
      const r = await porchlight(ws, "pkg", "get", `${url}@v9`, "app");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('ref "v9" does not exist in upstream repository');
      expect(r.stderr).toContain("(branches: main; tags: v1, v2)");
      expect(existsSync(join(ws, "app"))).toBe(false);
    });

    it("refuses a directory that does not exist at the ref", async () => {
      const ws = box.dir("get-nodir");
      const r = await porchlight(ws, "pkg", "get", `file://${box.up}.git/nope@v1`, "app");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('directory "/nope" does not exist in upstream repository');
      expect(existsSync(join(ws, "app"))).toBe(false);
    });

    it("refuses a destination that exists", async () => {
      const { ws, pkg } = await fetched("get-exists");
      const before = await files(pkg);
      const r = await porchlight(ws, "pkg", "get", `${url}@v2`, "app");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("already exists");
      expect(await files(pkg)).toEqual(before);
    });
  });

  describe("pkg update", () => {
    it("refuses an unreachable upstream", async () => {
      const { ws, pkg } = await fetched("up-unreachable", (d) =>
        rewrite(join(d, "Kptfile"), (s) => s.replaceAll(`file://${box.up}`, `file://${box.root}/gone`)),
      );
      const before = await files(pkg);
      const r = await porchlight(ws, "pkg", "update", "app@v2");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`cannot reach upstream repository "file://${box.root}/gone"`);
      expect(await files(pkg)).toEqual(before);
    });

    it("writes nothing when a subpackage's own upstream is unreachable", async () => {
      const { ws, pkg } = await fetched("up-sub-unreachable", (d) => {
        mkdirSync(join(d, "vendor"));
        writeFileSync(
          join(d, "vendor", "Kptfile"),
          `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: vendor\nupstream:\n  type: git\n  git:\n    repo: file://${box.root}/nowhere\n    directory: /vendor\n    ref: main\n`,
        );
      });
      const before = await files(pkg);
      const r = await porchlight(ws, "pkg", "update", "app@v2");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`cannot reach upstream repository "file://${box.root}/nowhere"`);
      expect(await files(pkg)).toEqual(before);
    });

    it("refuses a ref that does not exist", async () => {
      const { ws, pkg } = await fetched("up-noref");
      const before = await files(pkg);
      const r = await porchlight(ws, "pkg", "update", "app@v9");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('ref "v9" does not exist in upstream repository');
      expect(await files(pkg)).toEqual(before);
    });

    it("refuses a directory with no Kptfile", async () => {
      const ws = box.dir("up-nokptfile");
      writeFileSync(join(ws, "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n");
      const r = await porchlight(ws, "pkg", "update");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("no Kptfile here");
      expect(await files(ws)).toEqual({
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
      });
    });

    it("refuses a Kptfile without an upstream", async () => {
      const ws = box.dir("up-noupstream");
      writeFileSync(join(ws, "Kptfile"), "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: x\n");
      const before = await files(ws);
      const r = await porchlight(ws, "pkg", "update");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("Kptfile: the package has no upstream (upstream.git.repo is not set)");
      expect(await files(ws)).toEqual(before);
    });

    it("refuses a package with uncommitted changes (kpt v1 updates anyway; porchlight keeps them apart)", async () => {
      const { ws, pkg } = await fetched("up-dirty");
      rewrite(join(pkg, "deploy.yaml"), (s) => s.replace("replicas: 1", "replicas: 5"));
      const before = await files(pkg);
      const r = await porchlight(ws, "pkg", "update", "app@v2");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("has uncommitted changes; commit them first");
      expect(await files(pkg)).toEqual(before);
      const allowed = await porchlight(ws, "pkg", "update", "app@v2", "--allow-dirty");
      expect(allowed.code).toBe(0);
      expect((await files(pkg))["deploy.yaml"]).toContain("replicas: 5");
    });

    it("refuses to write a conflicting non-KRM edit without --allow-conflicts", async () => {
      const { ws, pkg } = await fetched("up-conflict", (d) =>
        writeFileSync(join(d, "README.md"), "# app\n\nDeploy it by hand.\n"),
      );
      const before = await files(pkg);
      const r = await porchlight(ws, "pkg", "update", "app@v2");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("conflict: README.md:3-3: upstream and local both changed lines 3-3");
      expect(r.stderr).toContain("nothing written");
      expect(await files(pkg)).toEqual(before);

      const forced = await porchlight(ws, "pkg", "update", "app@v2", "--allow-conflicts");
      expect(forced.code).toBe(1);
      expect((await files(pkg))["README.md"]).toBe(
        "# app\n\n<<<<<<< local\nDeploy it by hand.\n||||||| original\nDeploy it.\n=======\nDeploy it with porchlight.\n>>>>>>> upstream\n",
      );
    });

    it("refuses fast-forward over local changes", async () => {
      const { ws, pkg } = await fetched("up-ff", (d) =>
        rewrite(join(d, "deploy.yaml"), (s) => s.replace("replicas: 1", "replicas: 2")),
      );
      const before = await files(pkg);
      const r = await porchlight(ws, "pkg", "update", "app@v2", "--strategy", "fast-forward");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("the local package has changes (deploy.yaml)");
      expect(await files(pkg)).toEqual(before);
    });

    it("refuses an unknown strategy, naming the known ones", async () => {
      const { ws, pkg } = await fetched("up-strategy");
      const before = await files(pkg);
      const r = await porchlight(ws, "pkg", "update", "app@v2", "--strategy", "merge-harder");
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        'unknown --strategy "merge-harder"; known: resource-merge, fast-forward, force-delete-replace, copy-merge',
      );
      expect(await files(pkg)).toEqual(before);
    });
  });
});
