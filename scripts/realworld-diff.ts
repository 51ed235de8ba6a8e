/**
 * Renders every package of shared/conformance/realworld with kpt and with porchlight (bin/porchlight.js,
 * so build dist first) and prints where their files differ.
 *
 * usage: tsx scripts/realworld-diff.ts [--mode none|exec-cat|exec-sed|all] [--only SUBSTR] [--quiet]
 *   none: the Kptfile pipelines removed, so only reading, formatting and writing happen (default);
 *   exec-cat / exec-sed: every Kptfile's pipeline replaced by one exec function (cat, or a sed edit).
 * Prints the unified diff of each differing package (unless --quiet) and a closing count per mode.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import {
  differingFiles,
  kptAvailable,
  kptRender,
  listPackages,
  PIPELINE_MODES,
  type PipelineMode,
  preparePackage,
  REALWORLD_DIR,
  type RunResult,
  readTextTree,
  unifiedDiff,
  writeExecFunctions,
} from "../test/conformance/realworld.js";

const BIN = join(import.meta.dirname, "..", "bin", "porchlight.js");

function porchlightRender(dir: string): RunResult {
  const r = spawnSync("node", [BIN, "fn", "render", "--allow-exec", "."], { cwd: dir, encoding: "utf8" });
  return { code: r.status ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

function main(): number {
  const args = process.argv.slice(2);
  const opt = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const modeArg = opt("mode") ?? "none";
  const modes = modeArg === "all" ? PIPELINE_MODES : [modeArg as PipelineMode];
  if (!modes.every((m) => PIPELINE_MODES.includes(m))) {
    process.stderr.write(`unknown --mode ${modeArg}; one of ${PIPELINE_MODES.join(", ")}, all\n`);
    return 2;
  }
  const only = opt("only");
  const quiet = args.includes("--quiet");
  const corpus = REALWORLD_DIR;
  if (corpus === undefined) {
    process.stderr.write("shared/conformance/realworld not found (set PORCHLIGHT_CONFORMANCE_DIR)\n");
    return 2;
  }
  if (!kptAvailable()) {
    process.stderr.write("kpt is not installed: nothing to compare with\n");
    return 2;
  }
  const packages = listPackages().filter((p) => !only || p.includes(only));
  const work = mkdtempSync(join(tmpdir(), "porchlight-realworld-"));
  const execs = writeExecFunctions(work);
  let failed = 0;
  try {
    for (const mode of modes) {
      let same = 0;
      const differing: string[] = [];
      for (const [i, pkg] of packages.entries()) {
        const base = join(work, mode, String(i));
        const sides = ["kpt", "porchlight"].map((who) => {
          const dir = join(base, who, basename(pkg));
          mkdirSync(join(base, who), { recursive: true });
          preparePackage(join(corpus, pkg), dir, mode, mode === "none" ? undefined : execs[mode]);
          return dir;
        });
        const [kptDir, plDir] = sides as [string, string];
        const k = kptRender(kptDir);
        const p = porchlightRender(plDir);
        const files = differingFiles(readTextTree(kptDir), readTextTree(plDir));
        if (files.length === 0 && k.code === p.code) {
          same++;
          continue;
        }
        differing.push(pkg);
        process.stdout.write(`\n=== ${mode} ${pkg}: ${files.length} file(s) differ`);
        process.stdout.write(k.code === p.code ? "\n" : `; exit ${k.code} (kpt) vs ${p.code} (porchlight)\n`);
        if (k.code !== p.code)
          process.stdout.write(`kpt: ${k.stderr.trim()}\nporchlight: ${p.stderr.trim()}\n`);
        if (!quiet) process.stdout.write(unifiedDiff(kptDir, plDir).replaceAll(base, ""));
      }
      failed += differing.length;
      process.stdout.write(`\n${mode}: ${same} of ${packages.length} packages byte-identical to kpt\n`);
      for (const d of differing) process.stdout.write(`  differs: ${d}\n`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return failed === 0 ? 0 : 1;
}

process.exitCode = main();
