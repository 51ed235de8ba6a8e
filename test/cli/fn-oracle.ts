import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createFnCommand } from "../../src/cli/fn.js";
import { UsageError } from "../../src/cli/io.js";
import { normalizeDurations, readFiles, testRegistry } from "../render/harness.js";
import { captureIO } from "../util/cli-io.js";

/** What one `fn` command did: exit code, output (the work directory written as <base>), the files after. */
export interface FnRun {
  code: number;
  stdout: string;
  stderr: string;
  files: Record<string, string>;
}

/** `porchlight fn ARGS` in-process, as bin/porchlight runs it (usage errors printed, their exit code). */
async function porchlightFn(args: string[], cwd: string, stdin = ""): Promise<Omit<FnRun, "files">> {
  const io = captureIO({ readStdin: async () => stdin, cwd });
  try {
    const code = await createFnCommand(testRegistry)(args, io);
    return { code, stdout: io.out(), stderr: io.err() };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return { code: e.exitCode, stdout: io.out(), stderr: `${io.err()}${e.message}\n` };
  }
}

function kptFn(args: string[], cwd: string, stdin = ""): Omit<FnRun, "files"> {
  const r = spawnSync("kpt", ["fn", ...args], { cwd, encoding: "utf8", input: stdin });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function writeFiles(base: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(join(base, path), text, { mode: path.endsWith(".sh") ? 0o755 : 0o644 });
  }
}

/**
 * Runs the same `fn` command with porchlight and with kpt, each in a fresh directory holding `files`
 * (paths relative to it, `*.sh` executable), and returns both runs, durations and the directory's
 * name normalised so that they compare equal when porchlight does what kpt does.
 */
export async function withBoth(
  args: string[],
  files: Record<string, string>,
  stdin = "",
  setup: (base: string) => void = () => {},
): Promise<{ pl: FnRun; kpt: FnRun }> {
  const runs: FnRun[] = [];
  for (const who of ["pl", "kpt"] as const) {
    const base = mkdtempSync(join(tmpdir(), `porchlight-oracle-${who}-`));
    writeFiles(base, files);
    setup(base);
    const run = who === "pl" ? await porchlightFn(args, base, stdin) : kptFn(args, base, stdin);
    const clean = (t: string): string => normalizeDurations(t).replaceAll(base, "<base>");
    runs.push({
      code: run.code,
      stdout: clean(run.stdout),
      stderr: clean(run.stderr),
      files: readFiles(base),
    });
    rmSync(base, { recursive: true, force: true });
  }
  return { pl: runs[0]!, kpt: runs[1]! };
}
