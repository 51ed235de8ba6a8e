import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RpkgWorld, rpkgWorld } from "./world.js";

const R = "--repository=acme/blueprints";

/** The `rpkg get` table's rows, spaces squeezed. */
const rows = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => l.trim().replace(/\s+/g, " "));

/**
 * A repository laid out as Porch lays it out (pkg/externalrepo/git): drafts on `drafts/<pkg>/<ws>`,
 * a proposal on `proposed/<pkg>/<ws>`, a published revision tagged `<pkg>/v<N>` on a commit whose
 * message ends in Porch's `kpt:` line, a deletion proposal on `deletionProposed/<pkg>/<ws>` — made here
 * with plain git, as Porch's go-git makes them — is listed and worked on by `rpkg`; and what porchlight
 * writes carries the same lines, so Porch reads it back.
 */
describe("Porch's git layout, both ways", () => {
  let w: RpkgWorld;
  let clone: string;
  // Asynchronous: the forge serves git from this same process.
  const git = async (...args: string[]) =>
    (
      await promisify(execFile)(
        "git",
        ["-c", "user.name=Porch", "-c", "user.email=porch@example.com", ...args],
        { cwd: clone, encoding: "utf8" },
      )
    ).stdout;
  const kptfile = (name: string) => `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n`;
  const commit = async (pkg: string, message: string, annotation: object) => {
    mkdirSync(join(clone, pkg), { recursive: true });
    writeFileSync(join(clone, pkg, "Kptfile"), kptfile(pkg.split("/").pop() as string));
    writeFileSync(
      join(clone, pkg, "cm.yaml"),
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${message.length}\n`,
    );
    await git("add", "-A");
    await git("commit", "-q", "-m", `${message}\n\nkpt:${JSON.stringify(annotation)}\n`);
  };

  /** Porch's init of `pkg` in `workspace`, on its branch `<prefix>/<pkg>/<workspace>` off main. */
  const initOn = async (prefix: string, pkg: string, workspace: string) => {
    const branch = `${prefix}/${pkg}/${workspace}`;
    await git("checkout", "-q", "-b", branch);
    await commit(pkg, "Intializing package", {
      package: pkg,
      workspaceName: workspace,
      task: { type: "init" },
    });
    await git("push", "-q", "origin", branch);
    await git("checkout", "-q", "main");
  };

  beforeAll(async () => {
    w = await rpkgWorld();
    clone = join(w.tmp, "porch-clone");
    await promisify(execFile)("git", ["clone", "-q", w.forge.cloneUrl("acme/blueprints", w.alice), clone]);
    // Published: basens revision 1 made in workspace "first", its tag on Porch's annotated commit.
    await commit("basens", "Intializing package", {
      package: "basens",
      workspaceName: "first",
      revision: "1",
      task: { type: "init" },
    });
    await git("tag", "basens/v1");
    await git("push", "-q", "origin", "HEAD:main", "basens/v1");
    // A draft of a nested package, and a proposal of another, on Porch's own branches.
    await initOn("drafts", "net/dns", "edit");
    await initOn("proposed", "app", "ready");
  }, 60_000);

  afterAll(async () => {
    await w.stop();
  });

  it("lists a repository Porch wrote under Porch's names, the published one by its workspace", async () => {
    const r = await w.rpkg(w.alice, ["get", R]);
    expect(r.stderr).toBe("");
    expect(rows(r.stdout)).toEqual([
      "blueprints.app.ready app ready 0 false Proposed blueprints",
      // Porch's revision of the package on the registered branch
      "blueprints.basens.main basens main -1 false Published blueprints",
      "blueprints.basens.first basens first 1 true Published blueprints",
      "blueprints.net.dns.edit net/dns edit 0 false Draft blueprints",
    ]);
  });

  it("reads the task that began a revision from Porch's kpt: lines", async () => {
    const types = "--output=jsonpath={.spec.tasks[*].type}";
    expect((await w.rpkg(w.alice, ["get", "blueprints.basens.first", R, types])).stdout).toBe("init");
    expect((await w.rpkg(w.alice, ["get", "blueprints.net.dns.edit", R, types])).stdout).toBe("init");
  });

  it("reads a deletion proposal from Porch's deletionProposed branch", async () => {
    await git("push", "-q", "origin", "basens/v1^{commit}:refs/heads/deletionProposed/basens/first");
    expect(rows((await w.rpkg(w.alice, ["get", R, "--name=basens"])).stdout)).toEqual([
      "blueprints.basens.main basens main -1 false Published blueprints",
      "blueprints.basens.first basens first 1 true DeletionProposed blueprints",
    ]);
    await git("push", "-q", "origin", ":refs/heads/deletionProposed/basens/first");
  });

  it("pulls and copies Porch's published revision by its name", async () => {
    const dir = join(w.tmp, "pulled");
    const pulled = await w.rpkg(w.alice, ["pull", "blueprints.basens.first", dir, R]);
    expect(pulled).toMatchObject({ code: 0, stderr: "" });
    // and the package on the branch, by Porch's name for it
    const fromMain = await w.rpkg(w.alice, ["pull", "blueprints.basens.main", join(w.tmp, "pulled-main"), R]);
    expect(fromMain).toMatchObject({ code: 0, stderr: "" });
    expect(readFileSync(join(w.tmp, "pulled-main", "Kptfile"), "utf8")).toBe(
      readFileSync(join(dir, "Kptfile"), "utf8"),
    );
    const back = await w.rpkg(w.alice, ["rollback", "blueprints.basens.main", R]);
    expect(back.code).toBe(1);
    expect(back.stderr).toContain("not a published revision");
    const copied = await w.rpkg(w.alice, ["copy", "blueprints.basens.first", "--workspace=second", R]);
    expect(copied).toMatchObject({ code: 0, stdout: "blueprints.basens.second created\n" });
  });

  it("writes Porch's kpt: line on every commit of a revision, and on the publish", async () => {
    const init = await w.rpkg(w.alice, ["init", "web", "--workspace=w1", R]);
    expect(init.code).toBe(0);
    await git("fetch", "-q", "origin");
    expect(await git("log", "-1", "--format=%B", "origin/drafts/web/w1")).toContain(
      'kpt:{"package":"web","workspaceName":"w1"',
    );
    expect((await w.publish("acme/blueprints", "blueprints.web.w1")).stdout).toBe(
      "blueprints.web.w1 approved\n",
    );
    await git("fetch", "-q", "--tags", "origin");
    expect(await git("log", "-1", "--format=%B", "web/v1")).toContain(
      'kpt:{"package":"web","workspaceName":"w1"}',
    );
    // The same name before and after publish, read from git alone by a fresh process.
    expect(rows((await w.rpkg(w.bob, ["get", "blueprints.web.w1", R])).stdout)).toEqual([
      "blueprints.web.w1 web w1 1 true Published blueprints",
    ]);
    // and the task that began it, from the draft's first commit, which the publish keeps reachable
    const types = "--output=jsonpath={.spec.tasks[*].type}";
    expect((await w.rpkg(w.bob, ["get", "blueprints.web.w1", R, types])).stdout).toBe("init");
  });
});
