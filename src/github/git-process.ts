import { spawn } from "node:child_process";
import { GitSpawner } from "./git-spawner.js";

export interface GitRunOptions {
  cwd: string;
  /** Extra environment (merged over a scrubbed base: no tokens from the process environment leak in). */
  env?: Record<string, string>;
  input?: string | Buffer;
}

/**
 * What a git failure was, as its callers tell failures apart: decided once, where it happened — from
 * the HTTP status where porchlight spoke git's protocol itself (git-refs-http.ts, git-fetch-http.ts),
 * from git's own words only where git ran (gitFailureKind) — and read by kind everywhere else, never
 * out of the text.
 */
export type GitFailureKind =
  /** The server refused the credentials themselves (HTTP 401: no token, a bad or expired one). */
  | "auth"
  /** The server refused the credentials this operation (HTTP 403: a push with a token that may only read). */
  | "forbidden"
  /** No such repository (HTTP 404, or a path that is no git repository). */
  | "not-found"
  /** No such ref or object: a branch the remote lacks, a commit or a file the clone lacks. */
  | "missing"
  /** A push the remote would not take as asked: its ref moved (non-fast-forward, a lease lost, a ref gone). */
  | "rejected"
  /** The server could not be reached, or failed (a network error, an HTTP 5xx). */
  | "unreachable"
  /** The server's answer was not git's protocol as understood here (a server that does not speak v2). */
  | "protocol"
  /** Anything else. */
  | "other";

export class GitCommandError extends Error {
  constructor(
    readonly args: string[],
    readonly exitCode: number | null,
    /** What git said (or would have said): for the user's eyes, never read to decide anything. */
    readonly stderr: string,
    readonly kind: GitFailureKind,
  ) {
    super(
      `git ${args[0] ?? ""} failed (exit ${exitCode}): ${stderr.trim().split("\n").slice(-3).join(" / ")}`,
    );
    this.name = "GitCommandError";
  }
}

/**
 * git's words for each kind, in the order they are asked: a refusal of the credentials before a
 * missing repository (GitHub answers 404 for a private one too), the network before what the server
 * said of the push, a push's refusal (whose lines also name the ref that `does not exist`) before a
 * ref or object missing. curl's `The requested URL returned error: N` carries an HTTP status.
 */
const GIT_WORDS: readonly [GitFailureKind, RegExp][] = [
  [
    "auth",
    /Authentication failed|Invalid username or password|could not read (?:Username|Password)|error: 401\b/,
  ],
  ["forbidden", /Permission to \S+ denied|error: 403\b/],
  ["not-found", /[Rr]epository (?:'[^']*' )?not found|does not appear to be a git repository|error: 404\b/],
  [
    "unreachable",
    /Could not resolve host|Failed to connect|Connection refused|Connection timed out|Connection reset|error: 5\d\d\b/,
  ],
  ["protocol", /protocol error/],
  [
    "rejected",
    /\[(?:remote )?rejected\]|non-fast-forward|fetch first|stale info|remote ref does not exist|failed to push some refs/,
  ],
  [
    "missing",
    /couldn't find remote ref|invalid object name|unknown revision|bad revision|bad object|not a valid object name|does not exist|not our ref/i,
  ],
];

/**
 * The kind of a failure git reported on stderr: the one place porchlight reads git's words to decide
 * anything (a porcelain push says there only that some refs failed, which is the push's refusal too).
 */
export function gitFailureKind(stderr: string): GitFailureKind {
  return GIT_WORDS.find(([, words]) => words.test(stderr))?.[0] ?? "other";
}

/** The failure of git run with `args`, its kind read from what it said. */
function failed(args: string[], exitCode: number | null, stderr: string): GitCommandError {
  return new GitCommandError(args, exitCode, stderr, gitFailureKind(stderr));
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
 * Runs git and returns stdout as bytes; a non-zero exit throws GitCommandError with stderr and the
 * failure's kind. The one runner for porchlight's git outside the forge. Not simple-git: porchlight
 * feeds plumbing on stdin (`cat-file --batch`, `update-index --index-info`, `commit-tree`) and reads
 * blobs back as bytes, and simple-git's `raw()` can do neither (docs/dependencies.md has the
 * measurement).
 */
export function runGit(args: string[], opts: GitRunOptions): Promise<Buffer> {
  if (spawner) {
    return spawner.run(args, { cwd: opts.cwd, env: gitEnv(opts.env), input: opts.input }).then((r) => {
      if (r.exit === 0) return r.stdout;
      throw failed(args, r.exit, r.stderr.toString("utf8"));
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
      else reject(failed(args, code, Buffer.concat(err).toString("utf8")));
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
