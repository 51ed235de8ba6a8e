import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPackage, packagesBottomUp } from "../../src/kpt/package.js";
import { nameOf } from "../../src/kpt/resource.js";
import { diffTrees, readTree, treeFromText, writeTree } from "../../src/kpt/tree.js";
import { codeBlock } from "../util/codeblock.js";

const kptfile = (name: string) => `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n`;

describe("loadPackage", () => {
  const tree = treeFromText({
    Kptfile: kptfile("root"),
    "deploy.yaml": codeBlock`
      # a comment
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
      ---
      apiVersion: v1
      kind: Service
      metadata:
        name: web
      ---
    `,
    "README.md": "# root\n",
    "more/cm.yml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
    "db/Kptfile": kptfile("db"),
    "db/sts.yaml": "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\n",
    "db/backup/Kptfile": kptfile("backup"),
    "db/backup/job.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: backup\n",
    "db/backup/notes/x.txt": "x\n",
  });

  it("gives each file to the deepest package that contains it", () => {
    const root = loadPackage(tree);
    expect(root.resourceFiles.map((f) => f.path)).toEqual(["deploy.yaml", "more/cm.yml"]);
    expect(root.otherFiles).toEqual(["README.md"]);
    const [db] = root.subpackages;
    expect(db?.path).toBe("db");
    expect(db?.resourceFiles.map((f) => f.path)).toEqual(["db/sts.yaml"]);
    const [backup] = db?.subpackages ?? [];
    expect(backup?.path).toBe("db/backup");
    expect(backup?.otherFiles).toEqual(["db/backup/notes/x.txt"]);
  });

  it("splits multi-document files and drops empty documents", () => {
    const root = loadPackage(tree);
    expect(root.resourceFiles[0]?.docs.map(nameOf)).toEqual(["web", "web"]);
  });

  it("orders packages for render: subpackages before their parent", () => {
    expect(packagesBottomUp(loadPackage(tree)).map((p) => p.path)).toEqual(["db/backup", "db", ""]);
  });

  it("loads a package rooted below the tree root", () => {
    expect(loadPackage(tree, "db").subpackages.map((p) => p.kptfile.metadata?.name)).toEqual(["backup"]);
  });

  it("treats files matched by .krmignore as plain files", () => {
    const t = treeFromText({
      Kptfile: kptfile("a"),
      ".krmignore": "generated/\n",
      "generated/x.yaml": "a: [\n",
    });
    expect(loadPackage(t).otherFiles).toEqual([".krmignore", "generated/x.yaml"]);
  });

  it("names the file and line of a resource that does not parse", () => {
    const t = treeFromText({ Kptfile: kptfile("a"), "sub/bad.yaml": "kind: A\nmetadata:\n  name: [x\n" });
    expect(() => loadPackage(t)).toThrow(/^sub\/bad\.yaml:4:1: invalid YAML/);
  });

  it("names the missing Kptfile", () => {
    expect(() => loadPackage(treeFromText({ "a.yaml": "" }))).toThrow('no Kptfile: "." is not a kpt package');
  });
});

describe("trees on disk", () => {
  it("writes only what changed, deletes what is gone, and reads back the same bytes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "porchlight-tree-"));
    try {
      const before = treeFromText({ "a.yaml": "a: 1\n", "sub/b.yaml": "b: 1\n", "sub/deep/c.txt": "c\n" });
      await writeTree(dir, new Map(), before);
      expect(await readTree(dir)).toEqual(before);
      await writeFile(join(dir, "a.yaml"), "a: 1\n");
      const after = treeFromText({ "a.yaml": "a: 2\n", "sub/b.yaml": "b: 1\n" });
      const change = await writeTree(dir, before, after);
      expect(change).toEqual({ added: [], modified: ["a.yaml"], deleted: ["sub/deep/c.txt"] });
      expect(await readFile(join(dir, "a.yaml"), "utf8")).toBe("a: 2\n");
      expect(diffTrees(await readTree(dir), after)).toEqual({ added: [], modified: [], deleted: [] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads no file through a symbolic link, even one that points back into the package", async () => {
    const dir = await mkdtemp(join(tmpdir(), "porchlight-tree-"));
    try {
      const files = treeFromText({ Kptfile: "kind: Kptfile\n", "sub/a.yaml": "a: 1\n" });
      await writeTree(dir, new Map(), files);
      await symlink("./", join(dir, "loop"));
      await symlink("a.yaml", join(dir, "sub", "alias.yaml"));
      expect([...(await readTree(dir)).keys()]).toEqual(["Kptfile", "sub/a.yaml"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps the permissions of a file it rewrites", async () => {
    const dir = await mkdtemp(join(tmpdir(), "porchlight-tree-"));
    try {
      const before = treeFromText({ "secret.yaml": "a: 1\n", "run.sh": "echo 1\n", "open.yaml": "b: 1\n" });
      await writeTree(dir, new Map(), before);
      await chmod(join(dir, "secret.yaml"), 0o600);
      await chmod(join(dir, "run.sh"), 0o755);
      await chmod(join(dir, "open.yaml"), 0o666);
      await writeTree(
        dir,
        before,
        treeFromText({ "secret.yaml": "a: 2\n", "run.sh": "echo 2\n", "open.yaml": "b: 2\n" }),
      );
      expect((await stat(join(dir, "secret.yaml"))).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir, "run.sh"))).mode & 0o777).toBe(0o755);
      expect((await stat(join(dir, "open.yaml"))).mode & 0o777).toBe(0o666);
      expect(await readFile(join(dir, "secret.yaml"), "utf8")).toBe("a: 2\n");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("leaves no temporary file behind when a file cannot be replaced", async () => {
    const dir = await mkdtemp(join(tmpdir(), "porchlight-tree-"));
    try {
      // What the tree says is a file is a directory on disk: the rename over it fails.
      await mkdir(join(dir, "a.yaml"));
      await writeFile(join(dir, "a.yaml", "keep.txt"), "keep\n");
      const before = treeFromText({ "a.yaml": "a: 1\n" });
      await expect(writeTree(dir, before, treeFromText({ "a.yaml": "a: 2\n" }))).rejects.toThrow();
      expect(await readdir(dir)).toEqual(["a.yaml"]);
      expect(await readFile(join(dir, "a.yaml", "keep.txt"), "utf8")).toBe("keep\n");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
