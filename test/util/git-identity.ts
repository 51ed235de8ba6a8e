import { execFile } from "node:child_process";
import { promisify } from "node:util";

/** Who commits in a test's git repositories: set in git's environment, so no user configuration is needed. */
export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "a",
  GIT_AUTHOR_EMAIL: "a@x",
  GIT_COMMITTER_NAME: "a",
  GIT_COMMITTER_EMAIL: "a@x",
} as const;

/** git's environment for commits by `name` <name@example.com>, as author and committer. */
export function identity(name: string): Record<string, string> {
  const email = `${name.toLowerCase()}@example.com`;
  return {
    GIT_AUTHOR_NAME: name,
    GIT_AUTHOR_EMAIL: email,
    GIT_COMMITTER_NAME: name,
    GIT_COMMITTER_EMAIL: email,
  };
}

/**
 * git in `cwd`, committing as `name`: asynchronous, as a forge in the test's own process answers it
 * (a synchronous git would wait on it forever).
 */
export function gitAs(name: string): (cwd: string, ...args: string[]) => Promise<{ stdout: string }> {
  const run = promisify(execFile);
  return (cwd, ...args) => run("git", args, { cwd, env: { ...process.env, ...identity(name) } });
}
