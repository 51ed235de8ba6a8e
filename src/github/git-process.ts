import { spawn } from "node:child_process";
import { GitSpawner } from "./git-spawner.js";

export interface GitRunOptions {
  cwd: string;
  /** Extra environment (merged over a scrubbed base: no tokens from the process environment leak in). */
  env?: Record<string, string>;
  input?: string | Buffer;
}

export class GitCommandError extends Error {
  constructor(
    readonly args: string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(
      `git ${args[0] ?? ""} failed (exit ${exitCode}): ${stderr.trim().split("\n").slice(-3).join(" / ")}`,
    );
    this.name = "GitCommandError";
  }
}

/** The environment git runs with: enough to work, nothing secret, never a prompt. */
function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    LANG: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    ...extra,
  };
}

/**
 * Runs git and returns stdout as bytes; a non-zero exit throws GitCommandError with stderr. The one
 * runner for porchlight's git outside the forge. Not simple-git: porchlight feeds plumbing on stdin
 * (`cat-file --batch`, `update-index --index-info`, `commit-tree`) and reads blobs back as bytes, and
 * simple-git's `raw()` can do neither (docs/dependencies.md has the measurement).
 */
export function runGit(args: string[], opts: GitRunOptions): Promise<Buffer> {
  if (spawner) {
    return spawner.run(args, { cwd: opts.cwd, env: gitEnv(opts.env), input: opts.input }).then((r) => {
      if (r.exit === 0) return r.stdout;
      throw new GitCommandError(args, r.exit, r.stderr.toString("utf8"));
    });
  }
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, {
      cwd: opts.cwd,
      env: gitEnv(opts.env),
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new GitCommandError(args, code, Buffer.concat(err).toString("utf8")));
    });
    child.stdin.on("error", () => {});
    child.stdin.end(opts.input ?? "");
  });
}

let spawner: GitSpawner | undefined;
let holders = 0;

/**
 * Routes runGit through a small process of its own (git-spawner.ts: a fork from a large heap costs the
 * app more than the git it starts) until every holder has released it. The server holds one for its
 * life; the command line starts git itself.
 */
export function acquireGitSpawner(): { release(): void; readonly pid: number | undefined } {
  spawner ??= new GitSpawner();
  holders++;
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      if (--holders === 0) {
        spawner?.close();
        spawner = undefined;
      }
    },
    get pid() {
      return spawner?.pid;
    },
  };
}

/**
 * Environment that authenticates git over HTTPS with a token the way GitHub Apps do
 * (`x-access-token:<token>`), through GIT_CONFIG_* variables: the token is in no URL, no argument and
 * no file, so it cannot show in a process list, a remote name or an error message.
 */
export function tokenAuthEnv(token: string): Record<string, string> {
  const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
  return {
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "http.extraHeader",
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
  };
}
