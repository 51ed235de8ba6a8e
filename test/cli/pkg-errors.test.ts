import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { skipWithoutKpt } from "../util/kpt.js";
import { CM, files, git, porchlight, type Sandbox, SUB_KPTFILE, useSandbox, V1, V2 } from "./pkg-fixture.js";

/** Every bad input gets a clear message, a non-zero exit, and leaves the local package as it was. */
describe("porchlight pkg: bad input", () => {
  const box = useSandbox(async (b) => {
    await b.publish("app", V1, "v1");
    await b.publish("app", V2, "v2");
  });

  /** A package fetched at v1 into a git working tree and committed; `edit` then changes it (committed). */
  async function fetched(name: string, edit?: (dir: string) => void): Promise<{ ws: string; pkg: string }> {
    const ws = box.dir(name, true);
    expect((await porchlight(ws, "pkg", "get", box.url("app", "v1"), "app")).code).toBe(0);
    const pkg = join(ws, "app");
    edit?.(pkg);
    git(ws, "add", "-A");
    git(ws, "commit", "-q", "-m", "fetched");
    return { ws, pkg };
  }

  /** porchlight run in the workspace `at.ws` with `argv`, which must leave the package `at.pkg` as it was. */
  async function unchangedBy(at: { ws: string; pkg: string }, ...argv: string[]) {
    const before = await files(at.pkg);
    const r = await porchlight(at.ws, ...argv);
    expect(await files(at.pkg)).toEqual(before);
    return r;
  }

  function rewrite(path: string, f: (s: string) => string): void {
    writeFileSync(path, f(readFileSync(path, "utf8")));
  }

  describe("pkg get", () => {
    /** `pkg get` of `spec` into a fresh directory `name`: refused, saying each of `says`, and creating nothing. */
    async function refusedGet(name: string, spec: string, ...says: string[]) {
      const ws = box.dir(name);
      const r = await porchlight(ws, "pkg", "get", spec, "app");
      expect(r.code).toBe(1);
      for (const text of says) expect(r.stderr).toContain(text);
      expect(existsSync(join(ws, "app"))).toBe(false);
    }

    it("refuses an unreachable upstream and creates nothing", () =>
      refusedGet(
        "get-unreachable",
        `file://${box.root}/missing.git/app@v1`,
        `cannot reach upstream repository "file://${box.root}/missing"`,
      ));

    it("refuses a ref that does not exist, listing the branches and tags", () =>
      refusedGet(
        "get-noref",
        box.url("app", "v9"),
        'ref "v9" does not exist in upstream repository',
        "(branches: main; tags: v1, v2)",
      ));

    it("refuses a directory that does not exist at the ref", () =>
      refusedGet(
        "get-nodir",
        box.url("nope", "v1"),
        'directory "/nope" does not exist in upstream repository',
      ));

    it("refuses a destination that exists", async () => {
      const at = await fetched("get-exists");
      const r = await unchangedBy(at, "pkg", "get", box.url("app", "v2"), "app");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("already exists");
    });
  });

  describe("pkg update", () => {
    it("refuses an unreachable upstream", async () => {
      const at = await fetched("up-unreachable", (d) =>
        rewrite(join(d, "Kptfile"), (s) => s.replaceAll(`file://${box.up}`, `file://${box.root}/gone`)),
      );
      const r = await unchangedBy(at, "pkg", "update", "app@v2");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`cannot reach upstream repository "file://${box.root}/gone"`);
    });

    it("writes nothing when a subpackage's own upstream is unreachable", async () => {
      const at = await fetched("up-sub-unreachable", (d) => {
        mkdirSync(join(d, "vendor"));
        writeFileSync(
          join(d, "vendor", "Kptfile"),
          `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: vendor\nupstream:\n  type: git\n  git:\n    repo: file://${box.root}/nowhere\n    directory: /vendor\n    ref: main\n`,
        );
      });
      const r = await unchangedBy(at, "pkg", "update", "app@v2");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`cannot reach upstream repository "file://${box.root}/nowhere"`);
    });

    it("refuses a ref that does not exist", async () => {
      const at = await fetched("up-noref");
      const r = await unchangedBy(at, "pkg", "update", "app@v9");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('ref "v9" does not exist in upstream repository');
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
      const r = await unchangedBy({ ws, pkg }, "pkg", "update", "app@v2");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("has uncommitted changes; commit them first");
      const allowed = await porchlight(ws, "pkg", "update", "app@v2", "--allow-dirty");
      expect(allowed.code).toBe(0);
      expect((await files(pkg))["deploy.yaml"]).toContain("replicas: 5");
    });

    it("refuses to write a conflicting non-KRM edit without --allow-conflicts", async () => {
      const { ws, pkg } = await fetched("up-conflict", (d) =>
        writeFileSync(join(d, "README.md"), "# app\n\nDeploy it by hand.\n"),
      );
      const r = await unchangedBy({ ws, pkg }, "pkg", "update", "app@v2");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("conflict: README.md:3-3: upstream and local both changed lines 3-3");
      expect(r.stderr).toContain("nothing written");

      const forced = await porchlight(ws, "pkg", "update", "app@v2", "--allow-conflicts");
      expect(forced.code).toBe(1);
      expect((await files(pkg))["README.md"]).toBe(
        "# app\n\n<<<<<<< local\nDeploy it by hand.\n||||||| original\nDeploy it.\n=======\nDeploy it with porchlight.\n>>>>>>> upstream\n",
      );
    });

    it("refuses fast-forward over local changes", async () => {
      const at = await fetched("up-ff", (d) =>
        rewrite(join(d, "deploy.yaml"), (s) => s.replace("replicas: 1", "replicas: 2")),
      );
      const r = await unchangedBy(at, "pkg", "update", "app@v2", "--strategy", "fast-forward");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("the local package has changes (deploy.yaml)");
    });

    it("refuses an unknown strategy, naming the known ones", async () => {
      const at = await fetched("up-strategy");
      const r = await unchangedBy(at, "pkg", "update", "app@v2", "--strategy", "merge-harder");
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        'unknown --strategy "merge-harder"; known: resource-merge, fast-forward, force-delete-replace, copy-merge',
      );
    });
  });
});

/** kpt's own words come first where kpt has some, the same text kpt prints; porchlight's line follows. */
describe("porchlight pkg: errors in kpt's words, then porchlight's", () => {
  const box = useSandbox((b) => b.publish("app", V1, "v1"));

  function kptRun(cwd: string, ...args: string[]): { code: number; stderr: string } {
    const r = spawnSync("kpt", args, { cwd, encoding: "utf8" });
    return { code: r.status ?? -1, stderr: r.stderr };
  }

  /** A git working tree with `files`, committed. */
  function workspace(name: string, files: Record<string, string>): string {
    const ws = box.dir(name, true);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(ws, path, ".."), { recursive: true });
      writeFileSync(join(ws, path), text);
    }
    git(ws, "add", "-A");
    git(ws, "commit", "-q", "--allow-empty", "-m", "files");
    return ws;
  }

  const fetchedKptfile = (repo: string) =>
    `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\nupstream:\n  type: git\n  git:\n    repo: ${repo}\n    directory: /app\n    ref: v1\n  updateStrategy: resource-merge\n`;

  it.for([
    [
      "get: a ref that does not exist",
      () => ["pkg", "get", box.url("app", "v9"), "x"],
      {},
      (b: Sandbox) =>
        `Unknown ref "v9". Please verify that the reference exists in upstream repo "file://${b.up}".`,
    ],
    [
      "get: a directory the repository does not have",
      () => ["pkg", "get", box.url("nope", "v1"), "x"],
      {},
      (b: Sandbox) => `path "/nope" does not exist in repo "file://${b.up}"`,
    ],
    [
      "get: a repository that is not there",
      () => ["pkg", "get", `file://${box.root}/missing.git/app@v1`, "x"],
      {},
      // porchlight names the command it ran, kpt its own longer one
      () => 'Failed to execute git command "git ls-remote',
    ],
    [
      "update: no Kptfile",
      () => ["pkg", "update", "d"],
      { "d/cm.yaml": CM },
      (_: Sandbox, ws: string) => `No Kptfile found at "${ws}/d".`,
    ],
    [
      "update: a Kptfile without upstream",
      () => ["pkg", "update", "d"],
      { "d/Kptfile": SUB_KPTFILE },
      () => "package must have an upstream reference",
    ],
    [
      "update: a Kptfile of another kind",
      () => ["pkg", "update", "d"],
      { "d/Kptfile": SUB_KPTFILE.replace("kind: Kptfile", "kind: Package") },
      (_: Sandbox, ws: string) =>
        `Kptfile at "${ws}/d" has an unknown resource type ("kpt.dev/v1, Kind=Package").`,
    ],
    [
      "update: a ref that does not exist",
      () => ["pkg", "update", "app@v9"],
      { "app/Kptfile": "" },
      (b: Sandbox) =>
        `Unknown ref "v9". Please verify that the reference exists in upstream repo "file://${b.up}".`,
    ],
  ] as const)("%s", async ([name, args, files, text], ctx) => {
    const given = { ...files } as Record<string, string>;
    if ("app/Kptfile" in given) given["app/Kptfile"] = fetchedKptfile(`file://${box.up}`);
    const ws = workspace(name.replace(/[^a-z]+/g, "-"), given);
    const want = `Error: ${text(box, ws)}`;
    const r = await porchlight(ws, ...args());
    expect(r.code).toBe(1);
    expect(r.stderr.startsWith(want)).toBe(true);
    expect(r.stderr).toMatch(/\npkg (get|update): .+\n$/);
    skipWithoutKpt(ctx);
    rmSync(join(ws, "x"), { recursive: true, force: true });
    const k = kptRun(ws, ...args());
    expect(k.code).toBe(1);
    expect(k.stderr).toContain(want);
  });

  it("update and diff: a directory that is not there, in kpt's words", async (ctx) => {
    const ws = workspace("update-missing", {});
    for (const verb of ["update", "diff"]) {
      const r = await porchlight(ws, "pkg", verb, "nope/app");
      expect(r).toEqual({ code: 1, stdout: "", stderr: "error: lstat nope: no such file or directory\n" });
    }
    skipWithoutKpt(ctx);
    expect(kptRun(ws, "pkg", "update", "nope/app")).toEqual({
      code: 1,
      stderr: "error: lstat nope: no such file or directory\n",
    });
  });
});
