import { execFile, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { conformanceDir } from "./realworld.js";

/**
 * kpt's own end-to-end cases (shared/conformance: kpt v1.0.0-beta.56's e2e/testdata), run against
 * `node bin/porchlight.js` by the reference runner shared/conformance/run. passing.txt lists the
 * cases (`suite name`) that pass: each must keep passing, so the list only grows. Add a case to it
 * once the runner shows it passing (`shared/conformance/run --impl "node $PWD/bin/porchlight.js"
 * --suite render|eval`, after `npm run build`).
 */
const ROOT = join(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin", "porchlight.js");
const conformance = conformanceDir();
const runner = conformance && join(conformance, "run");

const why =
  runner === undefined || !existsSync(runner)
    ? "shared/conformance/run is not beside the repository (or set PORCHLIGHT_CONFORMANCE_DIR)"
    : spawnSync("python3", ["-c", "import yaml"], { stdio: "ignore" }).status !== 0
      ? "python3 with the yaml module is needed to run shared/conformance/run"
      : undefined;
if (why) console.warn(`skipping kpt's e2e conformance cases: ${why}`);

const cases = readFileSync(join(import.meta.dirname, "passing.txt"), "utf8")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l !== "" && !l.startsWith("#"))
  .map((l) => {
    const [suite, name] = l.split(/\s+/) as [string, string];
    return { suite, name };
  });

function run(cmd: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      // The runner exits non-zero when a case fails; the test reads its lines either way.
      if (err && typeof err.code !== "number") reject(err);
      else resolve({ stdout, stderr });
    });
  });
}

/** The newest modification time of the files below `dir` (0 when absent). */
function newest(dir: string): number {
  if (!existsSync(dir)) return 0;
  let t = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) t = Math.max(t, statSync(join(e.parentPath, e.name)).mtimeMs);
  }
  return t;
}

/**
 * Each case's report from one run of the runner over a whole suite: its `ok` or `FAIL` line and, for a
 * failure, the details `-v` prints after it. One run a suite, not one a case: `--case` selects by
 * substring (`basicpipeline` ran six cases) and each run copies the suite's corpus and starts Python
 * again, so running the listed cases one by one ran 176 cases for 131 and doubled the file's time. The
 * suite's other cases (those porchlight does not pass yet) run too, and are not looked at.
 */
async function suiteReports(suite: string): Promise<Map<string, string>> {
  const r = await run(runner!, ["--impl", `node ${BIN}`, "--suite", suite, "-v"]);
  const reports = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of r.stdout.split("\n")) {
    const head = /^(?:ok {3}(\S+)$|FAIL (\S+) )/.exec(line);
    if (head) {
      current = [];
      reports.set((head[1] ?? head[2])!, current);
    } else if (/^skipped \d+ cases/.test(line)) current = undefined;
    current?.push(line);
  }
  if (reports.size === 0)
    throw new Error(`the runner reported no case of ${suite}:\n${r.stdout}\n${r.stderr}`);
  return new Map([...reports].map(([name, lines]) => [name, lines.join("\n")]));
}

describe.skipIf(why !== undefined)("kpt's e2e cases that porchlight passes keep passing", () => {
  const reports = new Map<string, Promise<Map<string, string>>>();
  beforeAll(() => {
    // bin/porchlight.js runs dist/bundle: build it when it is missing or older than the sources.
    const main = join(ROOT, "dist", "bundle", "main.js");
    if (!existsSync(main) || statSync(main).mtimeMs < newest(join(ROOT, "src"))) {
      const r = spawnSync("npm", ["run", "build"], { cwd: ROOT, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`npm run build failed:\n${r.stdout}${r.stderr}`);
    }
    // Both suites at once: each is a chain of processes that mostly wait on each other.
    for (const suite of new Set(cases.map((c) => c.suite))) {
      const p = suiteReports(suite);
      p.catch(() => {}); // the tests that await it report the failure
      reports.set(suite, p);
    }
  }, 180_000);

  // A suite's first case waits for the whole suite's run (a minute on a busy machine): the timeout only
  // stops a run that hangs.
  it.each(cases)(
    "$suite: $name",
    async ({ suite, name }) => {
      const report = (await reports.get(suite)!).get(name) ?? `${name}: the ${suite} suite has no such case`;
      expect(report.split("\n")[0], report).toBe(`ok   ${name}`);
    },
    240_000,
  );
});
