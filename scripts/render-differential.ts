/**
 * The loop scripts/comments-diff.ts and scripts/shapes-diff.ts share: for each seed, writes the files
 * a generator makes into a package, renders one copy with kpt and one with porchlight (bin/porchlight.js,
 * so build dist first), and prints the files that differ (and both tools' messages where either failed).
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { differingFiles, kptAvailable, kptRender, readTextTree } from "../test/conformance/realworld.js";

const BIN = join(import.meta.dirname, "..", "bin", "porchlight.js");
const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n";

export const FUNCTIONS = ["none", "exec", "builtin"];

export interface DifferentialOptions {
  /** Names the work directory. */
  name: string;
  from: number;
  to: number;
  /**
   * `none`, `exec` (both run an exec function that echoes its input, `cat`), or `builtin` (kpt runs
   * that exec function, porchlight a builtin that changes nothing: it stands for a container).
   */
  fn: string;
  /** The files' lines end in CRLF. */
  crlf: boolean;
  keep: boolean;
  quiet: boolean;
  /** A package's resource files for a seed (the Kptfile is written here). */
  generate: (seed: number) => Map<string, string>;
}

/**
 * The command line both scripts take: `--seeds FROM-TO` (default 1-10), `--function KIND`, `--crlf`,
 * `--keep`, `--quiet`; `opt` reads any other `--name value`. `from` is NaN where the seeds do not parse.
 */
export function differentialArgs(
  args: readonly string[],
): Omit<DifferentialOptions, "name" | "generate"> & { opt: (name: string) => string | undefined } {
  const opt = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const [from = Number.NaN, to] = (opt("seeds") ?? "1-10").split("-").map(Number);
  return {
    opt,
    from,
    to: to ?? from,
    fn: opt("function") ?? "none",
    crlf: args.includes("--crlf"),
    keep: args.includes("--keep"),
    quiet: args.includes("--quiet"),
  };
}

/** Runs the seeds; the exit code: 0 when every file is the same (or kpt is not here), else 1. */
export function runDifferential(o: DifferentialOptions): number {
  if (!kptAvailable()) {
    process.stderr.write("kpt is not installed: nothing to compare with\n");
    return 0;
  }
  const work = mkdtempSync(join(tmpdir(), `porchlight-${o.name}-`));
  const cat = join(work, "cat.sh");
  writeFileSync(cat, "#!/bin/sh\ncat\n", { mode: 0o755 });
  const pipeline = (step: string) => `pipeline:\n  mutators:\n  - ${step}\n`;
  const kptPipeline = o.fn === "none" ? "" : pipeline(`exec: ${cat}`);
  const ourPipeline =
    o.fn === "builtin"
      ? pipeline("image: gcr.io/kpt-fn/apply-setters:v0.2.0\n    configMap:\n      unused: x")
      : kptPipeline;
  let total = 0;
  for (let seed = o.from; seed <= o.to; seed++) {
    const dir = join(work, `s${seed}`);
    const input = join(dir, "input");
    mkdirSync(input, { recursive: true });
    for (const [name, text] of o.generate(seed))
      writeFileSync(join(input, name), o.crlf ? text.replaceAll("\n", "\r\n") : text);
    cpSync(input, join(dir, "kpt"), { recursive: true });
    cpSync(input, join(dir, "porchlight"), { recursive: true });
    writeFileSync(join(dir, "kpt", "Kptfile"), KPTFILE + kptPipeline);
    writeFileSync(join(dir, "porchlight", "Kptfile"), KPTFILE + ourPipeline);
    const kpt = kptRender(join(dir, "kpt"));
    const ours = spawnSync("node", [BIN, "fn", "render", "--allow-exec", "."], {
      cwd: join(dir, "porchlight"),
      encoding: "utf8",
    });
    // the Kptfiles name different functions with `--function builtin`: only the resources are compared
    const differing = differingFiles(
      readTextTree(join(dir, "kpt")),
      readTextTree(join(dir, "porchlight")),
    ).filter((f) => f !== "Kptfile");
    total += differing.length;
    process.stdout.write(`seed ${seed}: ${differing.length} differing\n`);
    if (kpt.code !== 0 || ours.status !== 0) {
      process.stdout.write(`  kpt exit ${kpt.code}: ${lastLine(kpt.stderr)}\n`);
      process.stdout.write(`  porchlight exit ${ours.status}: ${lastLine(ours.stderr)}\n`);
    }
    if (!o.quiet) {
      for (const f of differing) {
        const d = spawnSync("diff", ["-u", join(dir, "kpt", f), join(dir, "porchlight", f)], {
          encoding: "utf8",
        });
        process.stdout.write(d.stdout);
      }
    }
  }
  process.stdout.write(`${total} differing files in all\n`);
  if (o.keep) process.stdout.write(`packages kept in ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
  return total === 0 ? 0 : 1;
}

function lastLine(text: string): string {
  return text.trim().split("\n").pop() ?? "";
}
