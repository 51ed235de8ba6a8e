import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hasKpt as HAVE_KPT, skipWithoutKpt } from "../util/kpt.js";
import { files, git, kpt, porchlight, useSandbox, V1, V2 } from "./pkg-fixture.js";

type Edit = (dir: string) => void;

const noEdit: Edit = () => {};
const localEdits: Edit = (dir) => {
  const deploy = join(dir, "deploy.yaml");
  writeFileSync(deploy, readFileSync(deploy, "utf8").replace("replicas: 1", "replicas: 3"));
  writeFileSync(join(dir, "local.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n");
};

describe("porchlight pkg update", () => {
  const box = useSandbox(async (b) => {
    await b.publish("app", V1, "v1");
    await b.publish("app", V2, "v2", "app/v2");
  });

  /** get at v1 into a git working tree, edit, commit: the package directory. */
  async function fetched(name: string, edit: Edit, tool: "porchlight" | "kpt"): Promise<string> {
    const ws = box.dir(name, true);
    if (tool === "kpt") kpt(ws, "pkg", "get", box.url("app", "v1"), "app");
    else expect((await porchlight(ws, "pkg", "get", box.url("app", "v1"), "app")).code).toBe(0);
    edit(join(ws, "app"));
    git(ws, "add", "-A");
    git(ws, "commit", "-q", "-m", "fetched");
    return ws;
  }

  const cases: { strategy: string; edit: Edit; check: (f: Record<string, string>) => void }[] = [
    {
      strategy: "resource-merge",
      edit: localEdits,
      check: (f) => {
        expect(f["deploy.yaml"]).toContain("replicas: 3");
        expect(f["deploy.yaml"]).toContain("image: nginx:2.0");
        expect(f["local.yaml"]).toBeDefined();
        expect(f["extra.yaml"]).toBeDefined();
      },
    },
    {
      strategy: "fast-forward",
      edit: noEdit,
      check: (f) => expect(f["deploy.yaml"]).toContain("image: nginx:2.0"),
    },
    {
      strategy: "force-delete-replace",
      edit: localEdits,
      check: (f) => {
        expect(f["deploy.yaml"]).toContain("replicas: 1");
        expect(f["local.yaml"]).toBeUndefined();
      },
    },
    {
      strategy: "copy-merge",
      edit: localEdits,
      check: (f) => {
        expect(f["deploy.yaml"]).toContain("image: nginx:2.0");
        expect(f["local.yaml"]).toBeDefined();
      },
    },
  ];

  for (const c of cases) {
    it(`moves the package to a new ref with --strategy ${c.strategy}, as kpt does`, async (ctx) => {
      const ws = await fetched(`up-${c.strategy}`, c.edit, "porchlight");
      const r = await porchlight(ws, "pkg", "update", "app@v2", "--strategy", c.strategy);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("Updated to v2");
      const got = await files(join(ws, "app"));
      c.check(got);
      expect(got.Kptfile).toContain(`    ref: v2\n  updateStrategy: ${c.strategy}\n`);
      expect(got["db/cm.yaml"]).toContain("size: large");

      if (c.strategy === "copy-merge") return; // kpt v1 has no copy-merge (Porch's strategy)
      skipWithoutKpt(ctx);
      const kws = await fetched(`up-kpt-${c.strategy}`, c.edit, "kpt");
      kpt(kws, "pkg", "update", "app@v2", "--strategy", c.strategy);
      expect(got).toEqual(await files(join(kws, "app")));
    });
  }

  it("takes DIR@REF with a slash in the ref (porchlight's <package>/v<N> tags), as kpt does", async (ctx) => {
    const ws = await fetched("up-slash", localEdits, "porchlight");
    const r = await porchlight(ws, "pkg", "update", "app@app/v2");
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("Updated to app/v2");
    const got = await files(join(ws, "app"));
    expect(got.Kptfile).toContain("    ref: app/v2\n");
    skipWithoutKpt(ctx);
    const kws = await fetched("up-slash-kpt", localEdits, "kpt");
    kpt(kws, "pkg", "update", "app@app/v2");
    expect(got).toEqual(await files(join(kws, "app")));
  });

  it("uses the ref and strategy the Kptfile records when none is given", async () => {
    const ws = await fetched("up-recorded", localEdits, "porchlight");
    const r = await porchlight(join(ws, "app"), "pkg", "update");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Updated to v1");
  });

  it("merges a README edited on both sides line by line when the edits do not overlap", async () => {
    const ws = await fetched(
      "up-readme",
      (d) => writeFileSync(join(d, "README.md"), "# my app\n\nDeploy it.\n"),
      "porchlight",
    );
    const r = await porchlight(ws, "pkg", "update", "app@v2");
    expect(r.code).toBe(0);
    expect((await files(join(ws, "app")))["README.md"]).toBe("# my app\n\nDeploy it with porchlight.\n");
  });
});

describe("porchlight pkg diff", () => {
  const box = useSandbox(async (b) => {
    await b.publish("app", V1, "v1");
    await b.publish("app", V2, "v2");
  });

  it("shows the local changes since the fetch and the upstream changes up to the ref", async () => {
    const ws = box.dir("diff");
    expect((await porchlight(ws, "pkg", "get", box.url("app", "v1"), "app")).code).toBe(0);
    localEdits(join(ws, "app"));
    const r = await porchlight(ws, "pkg", "diff", "app@v2");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Local changes since the package was fetched:\n");
    expect(r.stdout).toContain("--- modified: deploy.yaml\n");
    expect(r.stdout).toContain("-  replicas: 1\n+  replicas: 3\n");
    expect(r.stdout).toContain("--- added: local.yaml\n");
    expect(r.stdout).toMatch(/Upstream changes up to v2 \([0-9a-f]{12}\):\n/);
    expect(r.stdout).toContain("-        image: nginx:1.0\n+        image: nginx:2.0\n");
    expect(r.stdout).toContain("--- added: extra.yaml\n");
    expect(r.stdout).toContain("--- modified: db/cm.yaml\n");
  });

  it("says so when nothing changed on either side", async () => {
    const ws = box.dir("diff-none");
    expect((await porchlight(ws, "pkg", "get", box.url("app", "v1"), "app")).code).toBe(0);
    const r = await porchlight(join(ws, "app"), "pkg", "diff", ".@v1");
    expect(r.stdout).toContain("Local changes since the package was fetched: none\n");
    expect(r.stdout).toContain("): none\n");
  });
});

describe("porchlight pkg update: subpackages with an upstream of their own", () => {
  const box = useSandbox((b) => b.publish("app", V1, "v1"));
  const dep = useSandbox();

  const publishDep = (data: string) =>
    dep.publish("dep", {
      Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: dep\n",
      "cm.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dep\ndata:\n  d: "${data}"\n`,
    });

  // The subpackage is not named with a prefix of a root file (e.g. `dep` next to `deploy.yaml`):
  // kpt v1.0.0-beta.56 then leaves such root files unmerged, which porchlight does not copy.
  it("updates each from its own upstream at its recorded ref, as kpt does", async (ctx) => {
    await publishDep("1");
    const tools = HAVE_KPT ? (["porchlight", "kpt"] as const) : (["porchlight"] as const);
    const ws: Record<string, string> = {};
    for (const tool of tools) {
      const w = box.dir(`nested-${tool}`, true);
      const run = async (...args: string[]) => {
        if (tool === "kpt") kpt(w, ...args);
        else expect((await porchlight(w, ...args)).code).toBe(0);
      };
      await run("pkg", "get", box.url("app", "main"), "app");
      await run("pkg", "get", dep.url("dep", "main"), "app/vendor");
      git(w, "add", "-A");
      git(w, "commit", "-q", "-m", "fetched");
      ws[tool] = w;
    }
    await publishDep("2");
    await box.publish("app", V2, "v2");

    const r = await porchlight(ws.porchlight!, "pkg", "update", "app");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Updated subpackage vendor from its own upstream to main \([0-9a-f]{12}\)/);
    const got = await files(join(ws.porchlight!, "app"));
    expect(got["vendor/cm.yaml"]).toContain('d: "2"');
    expect(got["deploy.yaml"]).toContain("image: nginx:2.0");
    skipWithoutKpt(ctx);
    kpt(ws.kpt!, "pkg", "update", "app");
    expect(got).toEqual(await files(join(ws.kpt!, "app")));
  });
});
