import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The git commands `work` ran (their arguments, `-c` settings left out), read from a `git` ahead of the
 * real one on PATH that notes each call.
 */
export async function gitCalls(dir: string, work: () => Promise<void>): Promise<string[]> {
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  const bin = join(dir, "noting-git");
  const log = join(dir, "git-calls.log");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "git"), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
  writeFileSync(log, "");
  const path = process.env.PATH;
  process.env.PATH = `${bin}:${path ?? ""}`;
  try {
    await work();
  } finally {
    process.env.PATH = path;
  }
  return readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => l.replace(/^(-c \S+ )+/, ""));
}
