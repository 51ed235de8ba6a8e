import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

/** The source files `npm run build` compiles into dist/ (and so into the published package). */
function built(): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, "tsconfig.build.json"), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    },
  });
  if (!parsed) throw new Error("tsconfig.build.json did not parse");
  return parsed.fileNames.map((f) => relative(ROOT, f));
}

describe("what the build ships", () => {
  it("leaves the development tools out of dist/, the kubeconform bundle generator among them", () => {
    const generator = "src/fn/builtins/kubeconform/tools/generate-bundle.ts";
    expect(existsSync(join(ROOT, generator))).toBe(true);
    const files = built();
    expect(files).toContain("src/cli/main.ts");
    expect(files).toContain("src/fn/builtins/kubeconform/schemas/k8s-bundle.generated.ts");
    expect(files.filter((f) => f.includes("/tools/"))).toEqual([]);
  });
});

describe("the forge in the bundle", () => {
  it("is built into the command line (an installed porchlight has no workspace package): forge seed runs", () => {
    const bundle = join(ROOT, "dist", "bundle");
    const naming = readdirSync(bundle).filter(
      (f) => /\.c?js$/.test(f) && readFileSync(join(bundle, f), "utf8").includes('"@porchlight/forge"'),
    );
    expect(naming, "files of dist/bundle that import the forge's package instead of holding it").toEqual([]);
    const data = mkdtempSync(join(tmpdir(), "porchlight-bundled-forge-"));
    try {
      const out = execFileSync(
        process.execPath,
        [join(ROOT, "bin/porchlight.js"), "forge", "seed", "--data", data],
        {
          encoding: "utf8",
        },
      );
      expect(out).toContain("# porchlight forge: seeded.");
      expect(out).toMatch(/^# repository: http:\/\/127\.0\.0\.1:\d+\/acme\/blueprints\.git$/m);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});

describe.each([
  ["fn", "fn.cjs"],
  ["rpkg and repo", "rpkg.cjs"],
])("the code cache of `porchlight %s`", (_commands, file) => {
  const bundle = join(ROOT, "dist", "bundle", file);

  it("is built beside its bundle, an ASCII file that imports no module at run time (vm.Script could not)", () => {
    expect(existsSync(`${bundle}.cache`)).toBe(true);
    expect(readFileSync(bundle, "utf8")).not.toMatch(/[\u0080-\uffff]/);
    const code = readFileSync(bundle, "utf8")
      .split("\n")
      .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line));
    expect(code.filter((line) => /\bimport\(/.test(line))).toEqual([]);
  });

  it("is taken by V8 under the flags bin/porchlight.js sets for its commands, and refused under others", () => {
    const load = (tune: boolean) =>
      execFileSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import { loadBundle, tuneForShortRun } from ${JSON.stringify(join(ROOT, "bin", "short-run.js"))};
${tune ? "tuneForShortRun();" : ""}
const { exports, cacheUsed } = loadBundle(${JSON.stringify(bundle)}, ${JSON.stringify(`${bundle}.cache`)});
console.log(JSON.stringify({ cacheUsed, main: typeof exports.main }));`,
        ],
        { encoding: "utf8" },
      );
    expect(JSON.parse(load(true))).toEqual({ cacheUsed: true, main: "function" });
    expect(JSON.parse(load(false))).toEqual({ cacheUsed: false, main: "function" });
  });
});

describe("a checkout that was never built", () => {
  it("says to run npm ci, naming the folder, rather than failing on a missing module", () => {
    const dir = mkdtempSync(join(tmpdir(), "porchlight-unbuilt-"));
    try {
      cpSync(join(import.meta.dirname, "../../bin"), join(dir, "bin"), { recursive: true });
      for (const args of [["--version"], ["fn", "render", "."]]) {
        const r = spawnSync(process.execPath, [join(dir, "bin/porchlight.js"), ...args], {
          encoding: "utf8",
        });
        expect(r.status).toBe(1);
        expect(r.stderr).toBe(
          `porchlight: not built yet: run \`npm ci\` in ${dir} (it installs the dependencies and builds dist/, about half a minute), then run this again\n`,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
