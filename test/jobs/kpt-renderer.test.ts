import { describe, expect, it } from "vitest";
import { KptRenderer } from "../../src/jobs/kpt-renderer/index.js";
import { treeFromText, treeToText } from "../../src/kpt/tree.js";
import { kptfile, noBadValue, pipeline } from "../util/krm.js";

const KPTFILE = kptfile(
  "web",
  pipeline(["ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2", { team: "blue" }]),
);
const CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: '1'\n";
const STARLARK = noBadValue("no-latest");

describe("KptRenderer", () => {
  const renderer = new KptRenderer();

  it("refuses a package holding a YAML file that is not KRM, naming it, and changes no file", async () => {
    const kptfile = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n";
    const input = treeFromText({ Kptfile: kptfile, "cm.yaml": CM, "values.yaml": "replicas: 3\n" });
    const result = await renderer.render(input, { runtimes: ["builtin"] });
    expect(result.ok).toBe(false);
    expect(result.error).toBe(
      "input resource list must contain only KRM resources: values.yaml: resource must have `apiVersion`",
    );
    expect(treeToText(result.tree)).toEqual(treeToText(input));
    const again = await renderer.render(input, { runtimes: ["builtin"] });
    expect(again.error).toBe(result.error);
  });

  it("renders a package with a builtin mutator", async () => {
    const result = await renderer.render(treeFromText({ Kptfile: KPTFILE, "cm.yaml": CM }), {
      runtimes: ["builtin"],
    });
    expect(result.ok).toBe(true);
    expect(treeToText(result.tree)["cm.yaml"]).toContain("team: blue");
  });

  it("fails on an image that is no builtin when containers are not allowed, and says why", async () => {
    const kptfile = KPTFILE.replace("set-labels:v0.2", "not-a-builtin:v1");
    const result = await renderer.render(treeFromText({ Kptfile: kptfile, "cm.yaml": CM }), {
      runtimes: ["builtin"],
    });
    expect(result.ok).toBe(false);
    expect(result.error).toContain("not-a-builtin");
    expect(renderer.runtimesNeeded(treeFromText({ Kptfile: kptfile }))).toEqual(["builtin", "container"]);
  });

  it("runs guardrails as validators over the committed files, with configPath from the repository", async () => {
    const tree = treeFromText({ Kptfile: KPTFILE, "cm.yaml": CM.replace("'1'", "bad") });
    const guardrails = [{ image: "starlark", configPath: "policies/no-bad.yaml" }];
    const configs = new Map([["policies/no-bad.yaml", STARLARK]]);
    const bad = await renderer.validate(tree, guardrails, configs, { runtimes: ["builtin"] });
    expect(bad.ok).toBe(false);
    expect(bad.error).toContain("bad value");
    const good = await renderer.validate(
      treeFromText({ Kptfile: KPTFILE, "cm.yaml": CM }),
      guardrails,
      configs,
      {
        runtimes: ["builtin"],
      },
    );
    expect(good.ok).toBe(true);
  });
  it("keeps a guardrail's config out of the resources the guardrails check (it is not the package's)", async () => {
    const tree = treeFromText({ Kptfile: KPTFILE, "cm.yaml": CM });
    const guardrails = [
      {
        image: "ghcr.io/kptdev/krm-functions-catalog/kubeconform:v0.1",
        configMap: { strict: "true", skip_kinds: "Kptfile" },
      },
      { image: "starlark", configPath: "policies/no-bad.yaml" },
    ];
    const configs = new Map([["policies/no-bad.yaml", STARLARK]]);
    const result = await renderer.validate(tree, guardrails, configs, { runtimes: ["builtin"] });
    expect(result.findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(result.ok).toBe(true);
    // A package with a .krmignore of its own keeps its rules.
    const own = treeFromText({
      Kptfile: KPTFILE,
      "cm.yaml": CM,
      ".krmignore": "tests",
      "tests/x.yaml": "not: krm",
    });
    expect((await renderer.validate(own, guardrails, configs, { runtimes: ["builtin"] })).ok).toBe(true);
  });

  it("places apply-setters' findings on the document it set, though kpt's result names the file only", async () => {
    const deploy = (name: string, replicas: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\nspec:\n  replicas: ${replicas}\n`;
    const result = await renderer.render(
      treeFromText({
        Kptfile: `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\npipeline:\n  mutators:\n    - image: gcr.io/kpt-fn/apply-setters:v0.2.0\n      configMap:\n        replicas: "3"\n`,
        "deploy.yaml": `${deploy("a", "1")}---\n${deploy("b", `1 # kpt-set: \${replicas}`)}---\n${deploy("c", `2 # kpt-set: \${replicas}`)}`,
      }),
      { runtimes: ["builtin"] },
    );
    expect(result.ok).toBe(true);
    expect(result.findings.map(({ file, line, message }) => ({ file, line, message }))).toEqual([
      { file: "deploy.yaml", line: 13, message: 'set field value to "3"' },
      { file: "deploy.yaml", line: 20, message: 'set field value to "3"' },
    ]);
  });

  it("places search-replace's matches on the documents they are in, though kpt's result names the file only", async () => {
    const cm = (name: string, mode: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  mode: ${mode}\n`;
    const result = await renderer.render(
      treeFromText({
        Kptfile: `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\npipeline:\n  validators:\n    - image: gcr.io/kpt-fn/search-replace:v0.2.0\n      configMap:\n        by-path: data.mode\n        by-value: debug\n`,
        "cms.yaml": `${cm("a", "prod")}---\n${cm("b", "debug")}`,
      }),
      { runtimes: ["builtin"] },
    );
    expect(result.findings.map(({ file, line, message }) => ({ file, line, message }))).toEqual([
      { file: "cms.yaml", line: 13, message: 'Matched field value "debug"' },
    ]);
  });

  describe("findings on resources of subpackages (kpt names their files relative to the subpackage)", () => {
    const kptfile = (name: string, pipeline = "") =>
      `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${pipeline}`;
    const KUBECONFORM =
      "pipeline:\n  validators:\n    - image: ghcr.io/kptdev/krm-functions-catalog/kubeconform:v0.1\n";
    // Both packages hold a deploy.yaml: the finding goes to the one holding the resource named.
    const deploy = (name: string, replicas: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\nspec:\n  replicas: ${replicas}\n`;
    const files = (rootPipeline: string, subPipeline: string) =>
      treeFromText({
        Kptfile: kptfile("web", rootPipeline),
        "deploy.yaml": deploy("web", "1"),
        "db/Kptfile": kptfile("db", subPipeline),
        "db/deploy.yaml": `# the database\n${deploy("db", "two")}`,
      });
    const replicas = { file: "db/deploy.yaml", line: 7 };

    it("places a root pipeline's finding in the subpackage's file, at the field", async () => {
      const result = await renderer.render(files(KUBECONFORM, ""), { runtimes: ["builtin"] });
      expect(result.findings.map(({ file, line }) => ({ file, line }))).toContainEqual(replicas);
    });

    it("places a subpackage pipeline's finding in its own file", async () => {
      const result = await renderer.render(files("", KUBECONFORM), { runtimes: ["builtin"] });
      expect(result.findings.map(({ file, line }) => ({ file, line }))).toContainEqual(replicas);
    });

    it("places a guardrail's finding (run from the root) in the subpackage's file", async () => {
      const guardrails = [{ image: "kubeconform:v0.1" }];
      const result = await renderer.validate(files("", ""), guardrails, new Map(), { runtimes: ["builtin"] });
      expect(result.ok).toBe(false);
      expect(result.findings.map(({ file, line }) => ({ file, line }))).toContainEqual(replicas);
    });
  });

  it("advises the app's settings, not the command line's flags, for a function it may not run", async () => {
    const kptfile =
      "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\npipeline:\n  mutators:\n    - image: example.com/acme/mystery:v1\n";
    const result = await renderer.render(treeFromText({ Kptfile: kptfile, "cm.yaml": CM }), {
      runtimes: ["builtin"],
    });
    expect(result.ok).toBe(false);
    expect(result.error).toContain(
      "to run it as a container image, the app's operator allows container functions (PORCHLIGHT_ALLOW_CONTAINER=1, with docker or podman on the app's host) and the repository lists `container` in `functions.runtimes` of .github/porchlight.yml",
    );
    expect(result.error).toContain("which the app's operator allows with PORCHLIGHT_ALLOW_EXEC=1");
    expect(result.error).not.toContain("--allow-");
  });
});
