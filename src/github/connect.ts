import type { z } from "zod";
import type { AnswerCache } from "./conditional.js";
import type { DefaultBranchFiles } from "./default-branch-files.js";
import { GitHubError, mapGitHubErrors, toGitHubError } from "./errors.js";
import { installationPort, repositoryOf } from "./installation.js";
import type { GitObjectCache } from "./object-cache.js";
import { tokenOctokit } from "./octokit.js";
import type { RestClient } from "./octokit-repo.js";
import type { OpenPulls } from "./open-pulls.js";
import type { InstallationPort, Permission, RepoId, RepoPort } from "./port.js";
import {
  parseResponse,
  type RestPermissions,
  restRepositoryForToken,
  restSubmittedReview,
  restUser,
} from "./responses.js";

/** What GitHub says about a repository, as the token sees it. */
interface RepoInfo {
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
  /** What the token reaches, as an installation's door (as a workflow's token is the Action's installation). */
  installation: InstallationPort;
  /** A file of a repository the token reads, at its default branch (configuration files). */
  readFile: InstallationPort["readFile"];
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
  /** Rate-limited requests are retried this many times (default 3), as the app does. */
  rateLimitRetries?: number;
  /** Milliseconds per second of `retry-after` and of a 5xx back-off (default 1000; tests shorten it). */
  retryAfterUnitMs?: number;
  /** Aborts the connection's API requests (a command's deadline for this repository). */
  signal?: AbortSignal | undefined;
  /** Where GETs keep their answers, asked again as conditional requests (a server's, per token). */
  conditional?: AnswerCache | undefined;
  /**
   * What GitHub answered this token about the repository a moment ago, kept by the caller for as long as
   * it trusts it (the API server's: src/porch/repo-metadata.ts): used instead of asking again.
   */
  metadata?: RepoMetadataCache | undefined;
  /**
   * Default-branch files kept by commit (default-branch-files.ts, the API server's): the connection's
   * `readFile` then reads a file once per commit of its repository's default branch, asking git where
   * that is. Absent (a command): read every time.
   */
  files?: DefaultBranchFiles | undefined;
  /**
   * The open pull requests of each repository as the API server knows them (open-pulls.ts): the
   * connection lists them through it and tells it of its writes. Absent (a command): listed each time.
   */
  openPulls?: OpenPulls | undefined;
  /**
   * Which commits the cache clones hold, and trees and files' bytes by id, kept across connections (the
   * API server's, as the app keeps its own: object-cache.ts): a connection asks git only what none
   * before it read. Absent (a command): each connection asks git.
   */
  objects?: GitObjectCache | undefined;
}

/** GitHub's answer to `GET /repos/{owner}/{repo}` for a token, as connectRepo reads it. */
export type RepoMetadata = z.infer<typeof restRepositoryForToken>;

/** Where a token's answers about repositories are kept a while (by `owner/repo`). */
export interface RepoMetadataCache {
  lookup(token: string, full: string): RepoMetadata | undefined;
  keep(token: string, full: string, data: RepoMetadata): void;
}

function permissionFrom(p: RestPermissions): Permission {
  if (!p) return "read";
  if (p.admin) return "admin";
  if (p.maintain) return "maintain";
  if (p.push) return "write";
  if (p.triage) return "triage";
  if (p.pull) return "read";
  return "none";
}

/** The few calls a person's token makes outside any repository (the CLI's `repo register`). */
export interface AccountAccess {
  token: string;
  apiUrl?: string | undefined;
  /** Where GETs keep their answers, asked again as conditional requests (a server's, per token). */
  conditional?: AnswerCache | undefined;
}

function accountClient(access: AccountAccess): RestClient {
  return tokenOctokit(access.token, {
    writeIntervalMs: 0,
    rateLimitRetries: 3,
    maxWaitS: 60,
    userAgent: "porchlight-cli",
    ...(access.apiUrl ? { apiUrl: access.apiUrl } : {}),
    conditional: access.conditional,
  });
}

/** Who the token acts as; undefined where the server does not say. */
export async function tokenIdentity(access: AccountAccess): Promise<Identity | undefined> {
  try {
    const { data } = await accountClient(access).rest.users.getAuthenticated();
    const me = parseResponse(restUser, data, "reading the token's user");
    return {
      login: me.login,
      name: me.name ?? me.login,
      email: me.email ?? `${me.id}+${me.login}@users.noreply.github.com`,
    };
  } catch {
    return undefined;
  }
}

/**
 * Whom a token speaks for, as GitHub says at `GET /user`: refused (a 401, the only no), a user (their
 * login), or a token with no user (an installation's, answered 403 there, and a token all the same).
 */
export type TokenHolder = { kind: "refused" } | { kind: "user"; login: string } | { kind: "no-user" };

/** Whether GitHub accepts the token, and whose it is (`GET /user`); any failure but 401 and 403 is thrown. */
export async function tokenHolder(access: AccountAccess & { signal?: AbortSignal }): Promise<TokenHolder> {
  const client = tokenOctokit(access.token, {
    writeIntervalMs: 0,
    rateLimitRetries: 0,
    maxWaitS: 0,
    userAgent: "porchlight-cli",
    ...(access.apiUrl ? { apiUrl: access.apiUrl } : {}),
    ...(access.signal ? { signal: access.signal } : {}),
    conditional: access.conditional,
  });
  try {
    const { data } = await mapGitHubErrors("checking the token", () => client.rest.users.getAuthenticated());
    return { kind: "user", login: parseResponse(restUser, data, "reading the token's user").login };
  } catch (e) {
    if (e instanceof GitHubError && e.kind === "unauthorized") return { kind: "refused" };
    if (e instanceof GitHubError && e.kind === "forbidden") return { kind: "no-user" };
    throw e;
  }
}

/** Whether `login` names a user or organization the token can see (`GET /users/{login}`). */
export async function accountExists(access: AccountAccess, login: string): Promise<boolean> {
  try {
    await mapGitHubErrors(`reading the account ${login}`, () =>
      accountClient(access).rest.users.getByUsername({ username: login }),
    );
    return true;
  } catch (e) {
    if (e instanceof GitHubError && e.kind === "not-found") return false;
    throw e;
  }
}

/**
 * Creates repository `owner/name` (private, with a first commit): under the token's user when `owner`
 * is that user, else in the organization `owner`. Throws a GitHubError GitHub's refusal maps to.
 */
export async function createOwnedRepository(
  access: AccountAccess,
  owner: string,
  name: string,
  description: string,
): Promise<void> {
  const octokit = accountClient(access);
  const body = { name, description, private: true, auto_init: true };
  const me = await tokenIdentity(access);
  await mapGitHubErrors(`creating ${owner}/${name}`, async () => {
    if (me && me.login.toLowerCase() === owner.toLowerCase())
      await octokit.rest.repos.createForAuthenticatedUser(body);
    else await octokit.rest.repos.createInOrg({ org: owner, ...body });
  });
}

/**
 * Gives read access on `to` to everyone who can read `from` and cannot read `to` yet (GitHub's
 * collaborators of each, organization members with access included): listing `from`'s needs push
 * access there, adding to `to` admin. Returns the logins given access (on GitHub, someone outside an
 * organization gets an invitation to accept). Throws a GitHubError GitHub's refusal maps to.
 */
export async function shareReaders(access: AccountAccess, from: RepoId, to: RepoId): Promise<string[]> {
  const octokit = accountClient(access);
  const readers = async (id: RepoId) =>
    mapGitHubErrors(`listing the collaborators of ${id.owner}/${id.repo}`, () =>
      octokit.paginate(octokit.rest.repos.listCollaborators, { ...id, affiliation: "all", per_page: 100 }),
    );
  const already = new Set((await readers(to)).map((u) => u.login.toLowerCase()));
  const missing = (await readers(from))
    .filter((u) => u.permissions?.pull && !already.has(u.login.toLowerCase()))
    .map((u) => u.login);
  for (const username of missing)
    await mapGitHubErrors(`giving ${username} read access to ${to.owner}/${to.repo}`, () =>
      octokit.rest.repos.addCollaborator({ ...to, username, permission: "pull" }),
    );
  return missing;
}

/**
 * The owners of the repositories named `name` the token's user can see among their own and those they
 * collaborate on or reach as an organization member (`GET /user/repos`), sorted.
 */
export async function ownersOfRepositoriesNamed(access: AccountAccess, name: string): Promise<string[]> {
  const octokit = accountClient(access);
  const repos = await mapGitHubErrors("listing the token user's repositories", () =>
    octokit.paginate(octokit.rest.repos.listForAuthenticatedUser, { per_page: 100 }),
  );
  const owners = repos.filter((r) => r.name === name).map((r) => r.owner.login);
  return [...new Set(owners)].sort();
}

/** Reads the repository (`GET /repos/{owner}/{repo}`) and returns a connection to it. */
export async function connectRepo(opts: ConnectOptions): Promise<RepoConnection> {
  // A person's commands are sequential and few: writes are not paced, rate limits are waited out.
  const client = tokenOctokit(opts.token, {
    writeIntervalMs: 0,
    rateLimitRetries: opts.rateLimitRetries ?? 3,
    maxWaitS: 60,
    userAgent: "porchlight-cli",
    ...(opts.apiUrl ? { apiUrl: opts.apiUrl } : {}),
    ...(opts.retryAfterUnitMs !== undefined ? { retryAfterUnitMs: opts.retryAfterUnitMs } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    conditional: opts.conditional,
  });
  const octokit: RestClient = client;
  const where = `${opts.repo.owner}/${opts.repo.repo}`;
  const call = <T>(what: string, fn: () => Promise<T>): Promise<T> =>
    mapGitHubErrors(`${what} in ${where}`, fn);
  const read = async () => {
    const answer = await call("reading the repository", async () =>
      parseResponse(
        restRepositoryForToken,
        (await octokit.rest.repos.get({ ...opts.repo })).data,
        `reading ${where}`,
      ),
    );
    opts.metadata?.keep(opts.token, where, answer);
    return answer;
  };
  const data = opts.metadata?.lookup(opts.token, where) ?? (await read());
  const repository = repositoryOf(data);
  const info: RepoInfo = {
    id: repository.id,
    name: data.name,
    defaultBranch: data.default_branch,
    cloneUrl: data.clone_url,
    permission: permissionFrom(data.permissions),
  };
  // a command's clone lives for the command: its refs are read in process (git-refs-http.ts)
  const installation = installationPort(
    client,
    opts.cacheDir,
    opts.objects,
    true,
    undefined,
    opts.files,
    undefined,
    opts.openPulls,
  );
  return {
    port: installation.repo(repository),
    info,
    installation,
    readFile: (file) => installation.readFile(file),
    async whoami() {
      try {
        const { data } = await octokit.rest.users.getAuthenticated();
        const me = parseResponse(restUser, data, "reading the token's user");
        const login = me.login;
        return {
          login,
          name: me.name ?? login,
          email: me.email ?? `${me.id}+${login}@users.noreply.github.com`,
        };
      } catch (e) {
        const err = toGitHubError(e, "reading the token's user");
        // An installation or workflow token has no user; a server without `GET /user` says 404.
        if (err instanceof GitHubError && (err.kind === "not-found" || err.kind === "forbidden"))
          return undefined;
        throw err;
      }
    },
    async createBranch(name, sha) {
      try {
        await octokit.rest.git.createRef({ ...info.id, ref: `refs/heads/${name}`, sha });
        return "created";
      } catch (e) {
        const err = toGitHubError(e, `creating branch ${name} in ${where}`);
        if (err instanceof GitHubError && err.kind === "validation" && /already exists/i.test(err.message))
          return "exists";
        throw err;
      }
    },
    approvePull(number, sha, body) {
      return call(`approving pull request #${number}`, async () => {
        const { data } = await octokit.rest.pulls.createReview({
          ...info.id,
          pull_number: number,
          commit_id: sha,
          event: "APPROVE",
          body,
        });
        return (
          parseResponse(restSubmittedReview, data, `approving pull request #${number}`).user?.login ?? ""
        );
      });
    },
  };
}
