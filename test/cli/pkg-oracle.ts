import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readFiles } from "../render/harness.js";
import { hasKpt } from "../util/kpt.js";
import { porchlight } from "./pkg-fixture.js";

/** What one `pkg` command did: exit code, output (the work directory written as <base>), the files after. */
export interface PkgRun {
  code: number;
  stdout: string;
  stderr: string;
  files: Record<string, string>;
}

/** A file's text, or a symbolic link (`{ link: target }`). */
export type Entry = string | { link: string };

function writeEntries(base: string, files: Record<string, Entry>): void {
  for (const [path, entry] of Object.entries(files)) {
    const full = join(base, path);
    mkdirSync(dirname(full), { recursive: true });
    if (path.endsWith("/")) mkdirSync(full, { recursive: true });
    else if (typeof entry === "string") writeFileSync(full, entry);
    else symlinkSync(entry.link, full);
  }
}

async function runIn(
  who: "pl" | "kpt",
  args: string[],
  files: Record<string, Entry>,
  cwd: string,
): Promise<PkgRun> {
  const base = mkdtempSync(join(tmpdir(), `porchlight-pkg-oracle-${who}-`));
  try {
    writeEntries(base, files);
    const at = join(base, cwd);
    mkdirSync(at, { recursive: true });
    const run =
      who === "pl"
        ? await porchlight(at, "pkg", ...args)
        : (() => {
            const r = spawnSync("kpt", ["pkg", ...args], { cwd: at, encoding: "utf8" });
            return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
          })();
    const clean = (t: string): string => t.replaceAll(base, "<base>");
    return {
      code: run.code,
      stdout: clean(run.stdout),
      stderr: clean(run.stderr),
      files: readFiles(base),
    };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * Runs `pkg ARGS` with porchlight and, where kpt is installed, with kpt, each in a fresh directory
 * holding `files` (a path ending in `/` is an empty directory), from the directory `cwd` below it.
 */
export async function pkgWithBoth(
  args: string[],
  files: Record<string, Entry>,
  cwd = ".",
): Promise<{ pl: PkgRun; kpt?: PkgRun }> {
  const pl = await runIn("pl", args, files, cwd);
  return hasKpt ? { pl, kpt: await runIn("kpt", args, files, cwd) } : { pl };
}
