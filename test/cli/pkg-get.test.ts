import { execFileSync } from "node:child_process";
import { existsSync, symlinkSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { skipWithoutKpt } from "../util/kpt.js";
import { files, kpt, porchlight, Sandbox, useSandbox, V1, V2 } from "./pkg-fixture.js";

describe("porchlight pkg get", () => {
  let c1: string;
  let c2: string;
  const box = useSandbox(async (b) => {
    c1 = await b.publish("app", V1, "v1");
    c2 = await b.publish("app", V2, "app/v2");
  });

  const forms: { name: string; spec: () => string; ref: string; lockRef: string; commit: () => string }[] = [
    {
      name: "a local path at a branch",
      spec: () => `${box.up}.git/app@main`,
      ref: "main",
      lockRef: "main",
      commit: () => c2,
    },
    {
      name: "a file:// URL at a tag",
      spec: () => `file://${box.up}.git/app@v1`,
      ref: "v1",
      lockRef: "v1",
      commit: () => c1,
    },
    {
      name: "a file:// URL at a <directory>/<version> tag",
      spec: () => `file://${box.up}.git/app@v2`,
      ref: "v2",
      lockRef: "app/v2",
      commit: () => c2,
    },
    {
      name: "a file:// URL at a tag holding a slash (porchlight's <package>/v<N>)",
      spec: () => `file://${box.up}.git/app@app/v2`,
      ref: "app/v2",
      lockRef: "app/v2",
      commit: () => c2,
    },
    {
      name: "a file:// URL at a commit",
      spec: () => `file://${box.up}.git/app@${c1}`,
      ref: "<c1>",
      lockRef: "<c1>",
      commit: () => c1,
    },
    {
      name: "a file:// URL at an abbreviated commit",
      spec: () => `file://${box.up}.git/app@${c1.slice(0, 10)}`,
      ref: "<c1 abbreviated>",
      lockRef: "<c1 abbreviated>",
      commit: () => c1.slice(0, 10),
    },
    {
      name: "a file:// URL without a ref (the default branch)",
      spec: () => `file://${box.up}.git/app`,
      ref: "main",
      lockRef: "main",
      commit: () => c2,
    },
  ];

  forms.forEach((form, i) => {
    it(`fetches from ${form.name}, with the Kptfile upstream and upstreamLock kpt writes`, async (ctx) => {
      const work = box.dir(`get-${i}`);
      const r = await porchlight(work, "pkg", "get", form.spec(), "app");
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const got = await files(join(work, "app"));

      const commit = form.commit();
      // A hex hash that reads as a number in YAML (all digits, or digits with one `e`) is quoted, as
      // kpt (yaml.v3) quotes any string that would otherwise resolve to a number.
      const scalar = (s: string) => (/^[0-9]+([eE][0-9]+)?$/.test(s) ? `"${s}"` : s);
      const ref = scalar(form.ref.startsWith("<c1") ? commit : form.ref);
      const lockRef = scalar(form.lockRef.startsWith("<c1") ? commit : form.lockRef);
      const repo = form.spec().startsWith("file://") ? `file://${box.up}` : box.up;
      expect(got.Kptfile).toContain(
        `upstream:\n  type: git\n  git:\n    repo: ${repo}\n    directory: /app\n    ref: ${ref}\n  updateStrategy: resource-merge\n`,
      );
      expect(got.Kptfile).toContain(
        `upstreamLock:\n  type: git\n  git:\n    repo: ${repo}\n    directory: /app\n    ref: ${lockRef}\n    commit: ${scalar(commit)}\n`,
      );
      expect(Object.keys(got).sort()).toEqual(Object.keys(c1.startsWith(commit) ? V1 : V2).sort());
      expect(got["db/Kptfile"]).toBeDefined();

      skipWithoutKpt(ctx);
      const kptWork = box.dir(`get-kpt-${i}`);
      kpt(kptWork, "pkg", "get", form.spec(), "app");
      expect(got).toEqual(await files(join(kptWork, "app")));
    });
  });

  it("fails, writing nothing, when a remote subpackage's upstream cannot be fetched, as kpt does; the message names it", async (ctx) => {
    const kf = (name: string, extra = "") =>
      `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${extra}`;
    const gone =
      "upstream:\n  type: git\n  git:\n    repo: file:///nonexistent/repo\n    directory: /x\n    ref: v1\n";
    const own = new Sandbox();
    onTestFinished(() => own.close());
    await own.publish("broken", { Kptfile: kf("broken"), "far/Kptfile": kf("far", gone) }, "v1");
    const work = own.dir("work");
    const r = await porchlight(work, "pkg", "get", `file://${own.up}.git/broken@v1`, "b");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("pkg get: far/Kptfile: fetching the remote subpackage far");
    expect(r.stderr).toContain('"file:///nonexistent/repo"');
    expect(existsSync(join(work, "b"))).toBe(false);
    skipWithoutKpt(ctx);
    expect(() => kpt(work, "pkg", "get", `file://${own.up}.git/broken@v1`, "k")).toThrow();
    expect(existsSync(join(work, "k"))).toBe(false);
  });

  it("names the local directory after the package directory when none is given", async () => {
    const work = box.dir("get-default-name");
    const r = await porchlight(work, "pkg", "get", `file://${box.up}.git/app@v1`);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`into app`);
    expect((await files(join(work, "app"))).Kptfile).toContain("name: app\n");
  });

  it("records kpt-pkg on Config Connector resources, as kpt pkg get writes them", async (ctx) => {
    const bucket = [
      "apiVersion: storage.cnrm.cloud.google.com/v1beta1",
      "kind: StorageBucket",
      "metadata:",
      "  name: logs",
      "spec:",
      "  location: US",
      "",
    ].join("\n");
    await box.publish("kcc", { Kptfile: V1.Kptfile!, "bucket.yaml": bucket }, "kcc-v1");
    const work = box.dir("get-kcc");
    expect((await porchlight(work, "pkg", "get", `file://${box.up}.git/kcc@kcc-v1`, "kcc")).code).toBe(0);
    const got = await files(join(work, "kcc"));
    expect(got["bucket.yaml"]).toBe(
      [
        "apiVersion: storage.cnrm.cloud.google.com/v1beta1",
        "kind: StorageBucket",
        "metadata: # kpt-merge: /logs",
        "  name: logs",
        "  annotations:",
        "    internal.kpt.dev/upstream-identifier: 'storage.cnrm.cloud.google.com|StorageBucket|default|logs'",
        "    cnrm.cloud.google.com/blueprint: 'kpt-pkg'",
        "spec:",
        "  location: US",
        "",
      ].join("\n"),
    );
    skipWithoutKpt(ctx);
    const kptWork = box.dir("get-kcc-kpt");
    kpt(kptWork, "pkg", "get", `file://${box.up}.git/kcc@kcc-v1`, "kcc");
    expect(got["bucket.yaml"]).toBe((await files(join(kptWork, "kcc")))["bucket.yaml"]);
  });

  it("--for-deployment generates the package context anew, data.name the package's own name, as kpt does", async (ctx) => {
    const context = (name: string, extra = "") =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  name: ${name}\n${extra}`;
    await box.publish(
      "blueprint",
      {
        ...V1,
        "package-context.yaml": context("blueprint", "  env: upstream\n"),
        // Subpackages' contexts, alone in a file or beside another resource.
        "db/package-context.yaml": context("db"),
        "db/more.yaml": `${context("db")}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\n`,
        "db/only.yaml": context("other"),
        "web/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n",
      },
      "blueprint-v1",
    );
    const work = box.dir("get-deploy");
    const r = await porchlight(
      work,
      "pkg",
      "get",
      `file://${box.up}.git/blueprint@blueprint-v1`,
      "ns-a",
      "--for-deployment",
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Customized package for deployment.");
    const got = await files(join(work, "ns-a"));
    expect(got["package-context.yaml"]).toBe(
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  name: ns-a\n',
    );
    // Each subpackage gets its own, named after its Kptfile; a file that keeps other resources keeps them.
    expect(got["db/package-context.yaml"]).toContain("data:\n  name: db\n");
    expect(got["web/package-context.yaml"]).toContain("data:\n  name: web\n");
    expect(got["db/more.yaml"]).toContain("name: kept");
    expect(got["db/more.yaml"]).not.toContain("kptfile.kpt.dev");
    expect(got["db/only.yaml"]).toBeUndefined();
    // Without the flag the upstream's context stays, data.name the upstream's, as kpt pkg get keeps it.
    const plain = box.dir("get-plain");
    expect(
      (await porchlight(plain, "pkg", "get", `file://${box.up}.git/blueprint@blueprint-v1`, "ns-a")).code,
    ).toBe(0);
    expect((await files(join(plain, "ns-a")))["package-context.yaml"]).toContain(
      "  name: blueprint\n  env: upstream\n",
    );

    skipWithoutKpt(ctx);
    const kptWork = box.dir("get-deploy-kpt");
    kpt(kptWork, "pkg", "get", `file://${box.up}.git/blueprint@blueprint-v1`, "ns-a", "--for-deployment");
    expect(got).toEqual(await files(join(kptWork, "ns-a")));
  });

  it("passes a symbolic link over, saying so in kpt's words", async () => {
    const src = box.dir("links-src", true);
    await writeFile(join(src, "Kptfile"), "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: l\n");
    await writeFile(join(src, "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n");
    symlinkSync("cm.yaml", join(src, "link.yaml"));
    execFileSync("git", ["add", "-A"], { cwd: src });
    execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "m"], { cwd: src });
    const work = box.dir("links-get");
    const r = await porchlight(work, "pkg", "get", `file://${src}/.git@main`, "l");
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('[Warn] Ignoring symlink "link.yaml" \n');
    expect(Object.keys(await files(join(work, "l"))).sort()).toEqual(["Kptfile", "cm.yaml"]);
  });
});
