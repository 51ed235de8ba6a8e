import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatDuration } from "../../src/cli/fn-print.js";
import { detectEngine } from "../../src/fn/runtime/container.js";
import { normalizeDurations, readFiles, runFn } from "../render/harness.js";
import { hasKpt } from "../render/kpt-oracle.js";

let work: string;
let catFn: string;
let labelFn: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "porchlight-cli-fn-"));
  catFn = join(work, "cat.sh");
  writeFileSync(catFn, "#!/bin/sh\ncat\n", { mode: 0o755 });
  // Adds `metadata.generation: 1` to every item with sed: an editing exec function without node.
  labelFn = join(work, "label.sh");
  writeFileSync(labelFn, "#!/bin/sh\nsed 's/^  metadata:$/  metadata:\\n    generation: 1/'\n", {
    mode: 0o755,
  });
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

function writePackage(base: string, files: Record<string, string>): string {
  const pkg = join(base, "pkg");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(pkg, path)), { recursive: true });
    writeFileSync(join(pkg, path), text);
  }
  return pkg;
}

const PACKAGE = {
  Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n",
  "resources.yaml":
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n  labels:\n    tier: web\n---\napiVersion: v1\nkind: Service\nmetadata:\n    name: two\nspec:\n    ports:\n        - port: 80\n",
  "sub/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub\n",
  "sub/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: three\n",
};

describe.skipIf(!hasKpt)("porchlight fn eval gives what kpt fn eval gives", () => {
  async function both(args: string[]) {
    const out = [];
    for (const who of ["pl", "kpt"]) {
      const base = join(work, `${who}-${Math.random().toString(36).slice(2)}`);
      writePackage(base, PACKAGE);
      const run =
        who === "pl"
          ? await runFn(["eval", "pkg", ...args], base)
          : (() => {
              const r = spawnSync("kpt", ["fn", "eval", "pkg", ...args], { cwd: base, encoding: "utf8" });
              return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
            })();
      out.push({ ...run, stderr: normalizeDurations(run.stderr), files: readFiles(join(base, "pkg")) });
    }
    return { pl: out[0], kpt: out[1] };
  }

  it("runs an exec function over every resource, subpackages and Kptfiles included", async () => {
    const { pl, kpt } = await both(["--exec", labelFn]);
    expect(pl).toEqual(kpt);
  });

  it("applies --match-* and --exclude-* selectors", async () => {
    const { pl, kpt } = await both([
      "--exec",
      labelFn,
      "--match-kind",
      "ConfigMap",
      "--exclude-name",
      "three",
    ]);
    expect(pl).toEqual(kpt);
    expect(pl?.stderr).toContain("on 1 resource(s)");
  });

  it("selects by labels", async () => {
    const { pl, kpt } = await both(["--exec", catFn, "--match-labels", "tier=web"]);
    expect(pl).toEqual(kpt);
  });

  it("writes the ResourceList with --output stdout", async () => {
    const { pl, kpt } = await both(["--exec", catFn, "-o", "stdout"]);
    expect(pl).toEqual(kpt);
  });
});

describe("porchlight fn eval", () => {
  it("runs a builtin by short image name with key=value arguments as a ConfigMap", async () => {
    const base = join(work, "builtin");
    const pkg = writePackage(base, PACKAGE);
    const run = await runFn(["eval", "pkg", "-i", "set-namespace:v0.4.1", "--", "namespace=dev"], base);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      '[RUNNING] "gcr.io/kpt-fn/set-namespace:v0.4.1"\n[PASS] "gcr.io/kpt-fn/set-namespace:v0.4.1"',
    );
    expect(readFileSync(join(pkg, "sub/cm.yaml"), "utf8")).toContain("namespace: dev");
  });

  it("reads the function config from --fn-config", async () => {
    const base = join(work, "fnconfig");
    const pkg = writePackage(base, PACKAGE);
    writeFileSync(
      join(base, "cfg.yaml"),
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  namespace: from-file\n",
    );
    const run = await runFn(["eval", "pkg", "--image", "set-namespace", "--fn-config", "cfg.yaml"], base);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(pkg, "resources.yaml"), "utf8")).toContain("namespace: from-file");
  });

  it("refuses an image that is not a builtin, saying how to run it", async () => {
    const base = join(work, "unknown");
    writePackage(base, PACKAGE);
    const run = await runFn(["eval", "pkg", "-i", "example.com/fns/frobnicate:v1"], base);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error: function image "example.com/fns/frobnicate:v1" is not a builtin function',
    );
    expect(run.stderr).toContain("--allow-container");
  });

  it.skipIf(detectEngine() !== undefined)(
    "says so when --allow-container is given and no engine runs",
    async () => {
      const base = join(work, "container");
      writePackage(base, PACKAGE);
      const run = await runFn(["eval", "pkg", "-i", "example.com/fns/thing:v1", "--allow-container"], base);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        "no container engine is available (`docker info` and `podman info` both failed",
      );
    },
  );

  it("needs exactly one of --image and --exec", async () => {
    await expect(runFn(["eval", "."], work)).rejects.toThrow(/must specify --image or --exec/);
  });
});

describe("porchlight fn render", () => {
  it("refuses a directory without a Kptfile", async () => {
    const run = await runFn(["render", "."], work);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("No Kptfile found at");
  });

  it("rejects unknown flags as kpt does", async () => {
    await expect(runFn(["render", ".", "--frobnicate"], work)).rejects.toThrow(/unknown flag: --frobnicate/);
  });

  it("prints usage", async () => {
    const run = await runFn(["--help"], work);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("porchlight fn render [PKG_PATH]");
  });
});

describe("formatDuration", () => {
  it.each([
    [0, "0s"],
    [40, "0s"],
    [260, "300ms"],
    [1234, "1.2s"],
    [2000, "2s"],
  ])("%d ms is %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe("porchlight fn render and the builtins", () => {
  it("renders a package whose Kptfiles hold no pipeline without loading the builtins", async () => {
    const pkg = writePackage(mkdtempSync(join(work, "nopipe-")), {
      ...PACKAGE,
      "sub/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub\n",
    });
    const refuse = () => {
      throw new Error("the builtins were loaded for a render that runs no function");
    };
    const r = await runFn(["render", pkg], work, refuse);
    expect(r.stderr).toMatch(/Successfully executed 0 function\(s\) in \d+ package\(s\)\./);
    expect(r.code).toBe(0);
  });

  it("runs a pipeline whose key is spelled with an escape", async () => {
    const pkg = writePackage(mkdtempSync(join(work, "escaped-")), {
      ...PACKAGE,
      Kptfile:
        'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n"pip\\x65line":\n  mutators:\n  - image: gcr.io/kpt-fn/set-namespace:v0.4.1\n    configMap:\n      namespace: escaped\n',
    });
    const r = await runFn(["render", pkg], work);
    expect(r.stderr).toMatch(/Successfully executed 1 function\(s\) in \d+ package\(s\)\./);
    expect(readFileSync(join(pkg, "resources.yaml"), "utf8")).toContain("namespace: escaped");
  });
});
