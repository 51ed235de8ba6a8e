/**
 * `npm run porch-e2e -- PORCH_CHECKOUT [--case NAME]... [--diff]`: Porch's own CLI end-to-end suite
 * (PORCH_CHECKOUT/test/e2e/cli/testdata/<case>/config.yaml) run against `porchlight repo` and
 * `porchlight rpkg` on the embedded forge, with the porchlight app serving it, and compared as Porch's
 * test/e2e/cli/suite.go compares: exit code, stdout (its lines after the first sorted, or YAML re-encoded
 * with keys sorted when the case says `yaml: true`), stderr exactly (or as a substring with
 * `containsErrorString`), whitespace squeezed with `ignoreWhitespace`.
 *
 * The translation, stated once:
 * - a namespace is a GitHub owner: each case's namespace is an organization on the forge;
 * - Porch's gitea (http://gitea.gitea.svc.cluster.local:3000) is the forge: the user `nephio` owns
 *   `nephio/porch-test` (empty, made afresh for each case that says `usesPorchTestRepo`) and
 *   `nephio/test-blueprints` (PORCH_CHECKOUT/test/pkgs/test-pkgs/test-blueprints.bundle pushed there);
 * - `porchctl repo|rpkg ARGS` is `porchlight repo|rpkg ARGS --api-url=<forge>` run as `nephio`;
 * - `kubectl get packagerevisions… NAME --namespace=NS -o=…` is `porchlight rpkg get NAME --namespace=NS
 *   -o …`; `kubectl annotate packagerevisions… NAME K=V` is `porchlight rpkg annotate NAME K=V`;
 * - `kpt fn eval` is `porchlight fn eval` (a catalog image runs as its builtin); `sh` and `sleep` run as
 *   they are, from PORCH_CHECKOUT/test/e2e/cli as Porch's suite runs them.
 * Not in `npm test`: it needs a copy of Porch's repository, which CI does not fetch.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { parse, stringify } from "yaml";
import { type Outcome as StageOutcome, startPorchStage } from "./porch-forge.js";

const run = promisify(execFile);
const GITEA = "http://gitea.gitea.svc.cluster.local:3000";

interface Command {
  args: string[];
  stdin?: string;
  stdout?: string;
  stderr?: string;
  exitCode?: number;
  yaml?: boolean;
  ignoreWhitespace?: boolean;
  stdErrTabToWhitespace?: boolean;
  containsErrorString?: boolean;
}

interface TestCase {
  usesPorchTestRepo?: boolean;
  commands: Command[];
  skip?: string;
}

type Outcome = StageOutcome;

/** suite.go's reorderCommandStdout: the first line, then the others sorted, each ending in a line break. */
function reorderLines(out: string): string {
  if (out === "") return "";
  const lines = out.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const [head, ...body] = lines;
  return [head, ...body.sort()].map((l) => `${l}\n`).join("");
}

/** suite.go's reorderYamlStdout: without resourceVersion and creationTimestamp lines, keys sorted. */
function reorderYaml(out: string): string {
  if (out === "") return "";
  const kept = out
    .split("\n")
    .filter((l) => !l.includes("resourceVersion:") && !l.includes("creationTimestamp:"))
    .join("\n");
  try {
    return stringify(parse(kept), { sortMapEntries: true, indent: 2, lineWidth: 0 });
  } catch {
    return out;
  }
}

/** suite.go's cleanupStderr: every line without `[PASS]`, each ending in a line break. */
function cleanupStderr(err: string): string {
  if (err === "") return "";
  const lines = err.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines
    .filter((l) => !l.includes("[PASS]"))
    .map((l) => `${l}\n`)
    .join("");
}

const squeeze = (s: string) =>
  s
    .split(" ")
    .filter((p) => p !== "")
    .join(" ");

/** What Porch's suite would say about `got` for `want`: undefined when it passes. */
function compare(want: Command, got: Outcome, forgeUrl: string): string | undefined {
  const sub = (s: string | undefined) => (s ?? "").replaceAll(GITEA, forgeUrl);
  let wantOut = sub(want.stdout);
  let wantErr = sub(want.stderr);
  let gotOut = want.yaml ? reorderYaml(got.stdout) : reorderLines(got.stdout);
  if (want.yaml) wantOut = reorderYaml(wantOut);
  let gotErr = cleanupStderr(got.stderr);
  if (want.stdErrTabToWhitespace) gotErr = gotErr.replaceAll("\t", "  ");
  if (want.ignoreWhitespace) {
    wantOut = squeeze(wantOut);
    wantErr = squeeze(wantErr);
    gotOut = squeeze(gotOut);
    gotErr = squeeze(gotErr);
  }
  const problems: string[] = [];
  if (got.exitCode !== (want.exitCode ?? 0))
    problems.push(`exit code ${got.exitCode}, want ${want.exitCode ?? 0}`);
  if (gotOut !== wantOut) problems.push(`stdout:\n--- want\n${wantOut}--- got\n${gotOut}`);
  const errOk = want.containsErrorString ? gotErr.includes(wantErr) : gotErr === wantErr;
  if (!errOk) problems.push(`stderr:\n--- want\n${wantErr}--- got\n${gotErr}`);
  return problems.length > 0 ? problems.join("\n") : undefined;
}

async function main_(argv: string[]): Promise<number> {
  const porch = argv.find((a) => !a.startsWith("--"));
  if (!porch || !existsSync(join(porch, "test/e2e/cli/testdata"))) {
    process.stderr.write(
      "usage: npm run porch-e2e -- PORCH_CHECKOUT [--case NAME]... [--diff]\n(PORCH_CHECKOUT: a copy of nephio-project/porch, holding test/e2e/cli/testdata)\n",
    );
    return 2;
  }
  const only = argv.flatMap((a, i) => (a === "--case" ? [argv[i + 1] as string] : []));
  const showDiff = argv.includes("--diff");
  const cliDir = join(porch, "test/e2e/cli");
  const testdata = join(cliDir, "testdata");

  // as suite.go prepares it: the directory the cases pull into, emptied once per run
  rmSync("/tmp/porch-e2e", { recursive: true, force: true });
  mkdirSync("/tmp/porch-e2e");
  const stage = await startPorchStage(porch, cliDir);
  const { forge } = stage;
  const porchlight = (args: string[], stdin: string | undefined): Promise<Outcome> =>
    stage.porchlight(args, stdin === undefined ? {} : { stdin });

  const execute = async (c: Command): Promise<Outcome> => {
    const args = c.args.map((a) => a.replaceAll(GITEA, forge.url));
    const [cmd, ...rest] = args;
    if (cmd === "porchctl") return porchlight(rest, c.stdin);
    if (cmd === "kubectl" && rest[0] === "get" && rest[1]?.startsWith("packagerevisions")) {
      const out = rest.slice(2).map((a) => a.replace(/^-o=/, "--output="));
      return porchlight(["rpkg", "get", ...out], c.stdin);
    }
    if (cmd === "kubectl" && rest[0] === "annotate" && rest[1]?.startsWith("packagerevisions"))
      return porchlight(["rpkg", "annotate", ...rest.slice(2)], c.stdin);
    if (cmd === "kpt" && rest[0] === "fn") return porchlight(["fn", ...rest.slice(1)], c.stdin);
    if (cmd === "kubectl")
      return {
        exitCode: 1,
        stdout: "",
        stderr: "porch-e2e: no porchlight twin for this kubectl command\n",
      };
    try {
      const r = await run(cmd as string, rest, { cwd: cliDir, encoding: "utf8" });
      return { exitCode: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      return {
        exitCode: typeof err.code === "number" ? err.code : 1,
        stdout: err.stdout ?? "",
        stderr: err.stderr ?? "",
      };
    }
  };

  let passed = 0;
  let total = 0;
  const failures: string[] = [];
  for (const name of readdirSync(testdata).sort()) {
    if (only.length > 0 && !only.includes(name)) continue;
    const tc = parse(readFileSync(join(testdata, name, "config.yaml"), "utf8")) as TestCase;
    if (tc.skip) {
      process.stdout.write(`${name}: skipped (${tc.skip})\n`);
      continue;
    }
    await stage.ensureNamespace(name);
    let casePassed = 0;
    for (const [i, c] of tc.commands.entries()) {
      total++;
      const got = await execute(c);
      const problem = compare(c, got, forge.url);
      if (problem === undefined) {
        passed++;
        casePassed++;
      } else {
        const label = `${name} #${i + 1}: ${c.args.join(" ").replaceAll("\n", "\\n").slice(0, 160)}`;
        failures.push(label);
        if (showDiff) process.stdout.write(`FAIL ${label}\n${problem}\n\n`);
      }
    }
    process.stdout.write(`${name}: ${casePassed}/${tc.commands.length}\n`);
    if (tc.usesPorchTestRepo) await stage.recreatePorchTest();
  }
  process.stdout.write(
    `\n${passed}/${total} commands pass (${((100 * passed) / Math.max(total, 1)).toFixed(1)}%)\n`,
  );
  if (!showDiff) for (const f of failures) process.stdout.write(`  FAIL ${f}\n`);
  await stage.close();
  return passed === total ? 0 : 1;
}

main_(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
