import { Octokit } from "@octokit/rest";
import { toGitHubError } from "./errors.js";
import { tokenAuthEnv } from "./git-process.js";
import { GitRepo } from "./git-repo.js";
import { OctokitRepo } from "./octokit-repo.js";
import type { Permission, RepoId, RepoPort } from "./port.js";

/** What GitHub says about a repository, as the token sees it. */
export interface RepoInfo {
  id: RepoId;
  /** The repository's name (without the owner). */
  name: string;
  defaultBranch: string;
  cloneUrl: string;
  /** The token's permission on the repository. */
  permission: Permission;
}

/** Who the token acts as; undefined where the server does not say (`GET /user` missing). */
export interface Identity {
  login: string;
  name: string;
  email: string;
}

/**
 * A repository reached with a user's token, for the command line: the RepoPort the lifecycle code uses,
 * plus the few calls only a person at a terminal makes (who am I, create a branch, approve).
 */
export interface RepoConnection {
  port: RepoPort;
  info: RepoInfo;
  whoami(): Promise<Identity | undefined>;
  /** Creates branch `name` at `sha`; "exists" when a branch of that name is already there. */
  createBranch(name: string, sha: string): Promise<"created" | "exists">;
  /** Submits an approving review of `sha` as the token's user; returns the reviewer's login. */
  approvePull(number: number, sha: string, body: string): Promise<string>;
}

export interface ConnectOptions {
  token: string;
  /** REST base URL; default https://api.github.com (GitHub Enterprise: `https://HOST/api/v3`). */
  apiUrl?: string;
  repo: RepoId;
  /** Where the bare cache clone lives. */
  cacheDir: string;
  /** Waits between retries of a rate-limited request (default: a timer). */
  sleep?: (ms: number) => Promise<void>;
}

/** Rate-limited requests are retried this many times, waiting what GitHub asks (at most a minute). */
const RATE_LIMIT_RETRIES = 3;
const MAX_WAIT_S = 60;

/**
 * GitHub's secondary rate limits answer 403 or 429 with `retry-after`: wait and retry here, at the
 * door, as the design asks, instead of failing the user's command. A wait longer than a minute (the
 * primary limit exhausted for the hour) fails with GitHub's message.
 */
function retryRateLimited(octokit: Octokit, sleep: (ms: number) => Promise<void>): void {
  octokit.hook.wrap("request", async (request, options) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await request(options);
      } catch (e) {
        const err = e as {
          status?: number;
          message?: string;
          response?: { headers?: Record<string, unknown> };
        };
        const retryAfter = Number(err.response?.headers?.["retry-after"]);
        const limited =
          (err.status === 403 || err.status === 429) &&
          (Number.isFinite(retryAfter) || /rate limit/i.test(err.message ?? ""));
        const wait = Number.isFinite(retryAfter) ? retryAfter : 1;
        if (!limited || attempt >= RATE_LIMIT_RETRIES || wait > MAX_WAIT_S) throw e;
        await sleep(wait * 1000);
      }
    }
  });
}

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

function permissionFrom(p: Record<string, boolean | undefined> | undefined): Permission {
  if (!p) return "read";
  if (p.admin) return "admin";
  if (p.maintain) return "maintain";
  if (p.push) return "write";
  if (p.triage) return "triage";
  if (p.pull) return "read";
  return "none";
}

/** Reads the repository (`GET /repos/{owner}/{repo}`) and returns a connection to it. */
export async function connectRepo(opts: ConnectOptions): Promise<RepoConnection> {
  const octokit = new Octokit({
    auth: opts.token,
    log: quiet,
    userAgent: "porchlight-cli",
    ...(opts.apiUrl ? { baseUrl: opts.apiUrl.replace(/\/+$/, "") } : {}),
  });
  retryRateLimited(octokit, opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))));
  const where = `${opts.repo.owner}/${opts.repo.repo}`;
  const call = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      throw toGitHubError(e, `${what} in ${where}`);
    }
  };
  const { data } = await call("reading the repository", () => octokit.rest.repos.get({ ...opts.repo }));
  const info: RepoInfo = {
    id: { owner: data.owner.login, repo: data.name },
    name: data.name,
    defaultBranch: data.default_branch,
    cloneUrl: data.clone_url,
    permission: permissionFrom(data.permissions as Record<string, boolean | undefined> | undefined),
  };
  const auth = tokenAuthEnv(opts.token);
  const git = new GitRepo(info.cloneUrl, opts.cacheDir, async () => auth);
  const port = new OctokitRepo(octokit, info.id, git);
  return {
    port,
    info,
    async whoami() {
      try {
        const { data: me } = await octokit.rest.users.getAuthenticated();
        const login = me.login;
        return {
          login,
          name: me.name ?? login,
          email: me.email ?? `${me.id}+${login}@users.noreply.github.com`,
        };
      } catch (e) {
        const status = (e as { status?: number }).status;
        if (status === 404 || status === 403) return undefined;
        throw toGitHubError(e, "reading the token's user");
      }
    },
    async createBranch(name, sha) {
      try {
        await octokit.rest.git.createRef({ ...info.id, ref: `refs/heads/${name}`, sha });
        return "created";
      } catch (e) {
        const status = (e as { status?: number }).status;
        if (status === 422 && /already exists/i.test(String((e as Error).message))) return "exists";
        throw toGitHubError(e, `creating branch ${name} in ${where}`);
      }
    },
    approvePull(number, sha, body) {
      return call(`approving pull request #${number}`, async () => {
        const { data: review } = await octokit.rest.pulls.createReview({
          ...info.id,
          pull_number: number,
          commit_id: sha,
          event: "APPROVE",
          body,
        });
        return review.user?.login ?? "";
      });
    },
  };
}
