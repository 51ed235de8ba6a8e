import { describe, expect, it } from "vitest";
import { DEFAULT_RUN_OPTIONS } from "../../src/fn/runtime/types.js";
import { treeFromText, treeToText } from "../../src/kpt/tree.js";
import { type RenderEvent, render } from "../../src/render/render.js";
import { testRegistry } from "./harness.js";

const kptfile = (name: string, pipeline = "") =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${pipeline}`;
const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;

function env(events: RenderEvent[] = []) {
  return { registry: testRegistry(), run: DEFAULT_RUN_OPTIONS, onEvent: (e: RenderEvent) => events.push(e) };
}

describe("render over a file tree", () => {
  it("renders a package below the tree root and leaves the rest of the tree alone", async () => {
    const tree = treeFromText({
      "README.md": "# repo\n",
      "other/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n    name: untouched\n",
      "pkgs/app/Kptfile": kptfile(
        "app",
        "pipeline:\n  mutators:\n  - image: set-namespace:v0.4.1\n    configMap:\n      namespace: prod\n  - image: fixture-add\n",
      ),
      "pkgs/app/cm.yaml": cm("a"),
      "pkgs/app/db/Kptfile": kptfile("db"),
      "pkgs/app/db/cm.yaml": cm("b"),
    });
    const out = await render(tree, "pkgs/app", env());
    expect(out.ok, out.error?.message).toBe(true);
    const files = treeToText(out.tree);
    expect(files["README.md"]).toBe("# repo\n");
    expect(files["other/cm.yaml"]).toBe("apiVersion: v1\nkind: ConfigMap\nmetadata:\n    name: untouched\n");
    expect(files["pkgs/app/cm.yaml"]).toContain("namespace: prod");
    expect(files["pkgs/app/db/cm.yaml"]).toContain("namespace: prod");
    expect(files["pkgs/app/configmap_added.yaml"]).toBe(
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added\ndata:\n  a: b\n",
    );
    expect(out.records.map((r) => [r.image, r.exitCode])).toEqual([
      // kpt names a short image by its catalog path
      ["gcr.io/kpt-fn/set-namespace:v0.4.1", 0],
      ["gcr.io/kpt-fn/fixture-add", 0],
    ]);
    expect(out.packageCount).toBe(2);
    expect(out.functionCount).toBe(2);
  });

  it("records the package whose pipeline ran each function (a result's file is relative to it or a subpackage)", async () => {
    const setLabels =
      "pipeline:\n  mutators:\n  - image: set-labels:v0.2\n    configMap:\n      team: blue\n";
    const tree = treeFromText({
      "pkgs/app/Kptfile": kptfile("app", setLabels),
      "pkgs/app/cm.yaml": cm("a"),
      "pkgs/app/db/Kptfile": kptfile("db", setLabels),
      "pkgs/app/db/cm.yaml": cm("b"),
    });
    const out = await render(tree, "pkgs/app", { ...env(), rootDir: "/work/repo" });
    expect(out.ok, out.error?.message).toBe(true);
    expect(out.records.map((r) => r.packageDir)).toEqual(["/work/repo/pkgs/app/db", "/work/repo/pkgs/app"]);
    expect(out.records.map((r) => out.packageDirs.get(r.packageDir ?? ""))).toEqual([
      "pkgs/app/db",
      "pkgs/app",
    ]);
  });

  it("reports the events kpt prints, subpackages first, and stops at the first failure with the tree unchanged", async () => {
    const tree = treeFromText({
      Kptfile: kptfile(
        "root",
        "pipeline:\n  mutators:\n  - image: fixture-reject\n    configMap:\n      kind: ConfigMap\n  - image: fixture-add\n",
      ),
      "cm.yaml": cm("a"),
      "sub/Kptfile": kptfile(
        "sub",
        "pipeline:\n  mutators:\n  - image: set-namespace\n    configMap:\n      namespace: x\n",
      ),
      "sub/cm.yaml": cm("b"),
    });
    const events: RenderEvent[] = [];
    const out = await render(tree, "", env(events));
    expect(out.ok).toBe(false);
    expect(out.tree).toBe(tree);
    expect(treeToText(out.tree)["sub/cm.yaml"]).toBe(cm("b"));
    expect(out.error?.shown).toBe(true);
    expect(events.map((e) => (e.type === "package" ? `package ${e.path}` : `${e.type} ${e.name}`))).toEqual([
      "package sub",
      "running gcr.io/kpt-fn/set-namespace",
      "pass gcr.io/kpt-fn/set-namespace",
      "package ",
      "running gcr.io/kpt-fn/fixture-reject",
      "fail gcr.io/kpt-fn/fixture-reject",
    ]);
    expect(out.records.at(-1)).toMatchObject({ image: "gcr.io/kpt-fn/fixture-reject", exitCode: 1 });
  });

  it("names the file and line of a malformed Kptfile and writes nothing", async () => {
    const tree = treeFromText({
      Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: x\npipline:\n  mutators: []\n",
    });
    const out = await render(tree, "", env());
    expect(out.ok).toBe(false);
    expect(out.error?.message).toMatch(/^Kptfile at "." can't be read\.\n\nDetails:\n/);
    expect(out.error?.message).toContain("\nKptfile:5");
    expect(out.tree).toBe(tree);
  });
});

describe("render: what kpt does after each function", () => {
  const starlark = (source: string) =>
    `apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: s\n  annotations:\n    config.kubernetes.io/local-config: "true"\nsource: |\n${source
      .split("\n")
      .map((l) => `  ${l}`)
      .join("\n")}\n`;
  const pipeline =
    "pipeline:\n  mutators:\n  - image: gcr.io/kpt-fn/starlark:v0.3.0\n    configPath: fn.yaml\n";

  it.each([
    ["config.kubernetes.io/path", "moved.yaml"],
    ["internal.config.kubernetes.io/path", "moved.yaml"],
  ])("moves a resource whose %s a function changed (the other form follows)", async (annotation, file) => {
    const tree = treeFromText({
      Kptfile: kptfile("app", pipeline),
      "fn.yaml": starlark(
        `for r in ctx.resource_list["items"]:\n  if r["kind"] == "ConfigMap":\n    r["metadata"]["annotations"]["${annotation}"] = "${file}"`,
      ),
      "cm.yaml": cm("a"),
    });
    const out = await render(tree, "", env());
    expect(out.ok, out.error?.message).toBe(true);
    const files = treeToText(out.tree);
    expect([files["cm.yaml"], files[file]]).toEqual([undefined, cm("a")]);
  });

  it("refuses a generated resource claiming an existing file and index, on the cleaned path", async () => {
    const tree = treeFromText({
      Kptfile: kptfile("app", pipeline),
      "fn.yaml": starlark(
        'ctx.resource_list["items"].append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b", "annotations": {"internal.config.kubernetes.io/path": "./cm.yaml", "internal.config.kubernetes.io/index": 0}}})',
      ),
      "cm.yaml": cm("a"),
    });
    const out = await render(tree, "", env());
    expect(out.error?.message).toBe('resource at path "cm.yaml" and index "0" already exists');
  });

  it("records what a builtin printed as the function's stderr", async () => {
    const tree = treeFromText({
      Kptfile: kptfile("app", pipeline),
      "fn.yaml": starlark('print("hello")'),
      "cm.yaml": cm("a"),
    });
    const events: RenderEvent[] = [];
    const out = await render(tree, "", env(events));
    expect(out.records).toMatchObject([
      { image: "gcr.io/kpt-fn/starlark:v0.3.0", exitCode: 0, stderr: "hello" },
    ]);
    expect(events.find((e) => e.type === "pass")).toMatchObject({ stderr: "hello" });
  });

  it("keeps a flow-style resource's line comment through a builtin where another resource follows it", async () => {
    // no block ends with a flow mapping, so its foot goes to none (this failed: "Cannot read properties
    // of undefined")
    const tree = treeFromText({
      Kptfile: kptfile(
        "app",
        "pipeline:\n  mutators:\n  - image: set-namespace:v0.4.1\n    configMap:\n      namespace: prod\n",
      ),
      "cm.yaml": `{apiVersion: v1, kind: ConfigMap, metadata: {name: a}} # c\n---\n${cm("b")}`,
    });
    const out = await render(tree, "", env());
    expect(out.ok, out.error?.message).toBe(true);
    expect(treeToText(out.tree)["cm.yaml"]).toMatch(
      /^\{apiVersion: v1, kind: ConfigMap, metadata: \{.*\}\} # c\n---\n/,
    );
  });

  it("holds back the exec and container functions it is told to, runs the builtins around them, and names each one left out", async () => {
    const tree = treeFromText({
      Kptfile: kptfile(
        "app",
        "pipeline:\n  mutators:\n  - exec: /nonexistent/steal\n  - image: set-namespace:v0.4.1\n    configMap:\n      namespace: prod\n  - image: example.com/evil/steal:v1\n",
      ),
      "cm.yaml": cm("a"),
      "db/Kptfile": kptfile("db", "pipeline:\n  validators:\n  - exec: /nonexistent/check\n"),
    });
    const out = await render(tree, "", { ...env(), holdBack: ["exec", "container"] });
    expect(out.ok, out.error?.message).toBe(true);
    expect(treeToText(out.tree)["cm.yaml"]).toContain("namespace: prod");
    expect(out.heldBack).toEqual([
      "db: /nonexistent/check",
      "/nonexistent/steal",
      "example.com/evil/steal:v1",
    ]);
    // Without it, the exec function is refused as kpt refuses it.
    const refused = await render(tree, "", env());
    expect(refused.error?.message).toContain("must run with `--allow-exec`");
  });
});
