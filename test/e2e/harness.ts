import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { Octokit } from "@octokit/rest";
import { type Forge, startForge } from "@porchlight/forge";
import { pino } from "pino";
import { expect } from "vitest";
import { TEST_KEY } from "../../packages/forge/test/helpers.js";
import {
  type AppServer,
  type AppServerOptions,
  type RedisSettings,
  startAppServer,
} from "../../src/app/server.js";
import type { Runtime } from "../../src/config/schema.js";
import type { PackageWorkSettings } from "../../src/jobs/bounded/bounded.js";
import type { MirrorAccess } from "../../src/jobs/mirror/index.js";
import type { Renderer } from "../../src/jobs/renderer.js";
import { porchlightWith } from "../cli/pkg-fixture.js";
import { kptfile, pipeline, settings } from "../util/krm.js";
import { useStarted } from "../util/use-started.js";

export interface World {
  forge: Forge;
  app: AppServer;
  repo: string;
  users: Record<string, { pat: string; rest: Octokit }>;
  /** Waits until every webhook is delivered and every job they started has run. */
  settle(): Promise<void>;
  /** A working clone of the repository (or of `other`, another `owner/name` on the forge) as `user`. */
  clone(user: string, other?: string): Promise<Clone>;
  /** Pushes `files` to draft `branch` of the repository as `user`, opens its proposal; settles. */
  propose(branch: string, files: Record<string, string>, user?: string): Promise<{ number: number }>;
  /** Comments `body` on #`n` of the repository as `user`, settles; the bot's reply to it ("" when none). */
  say(user: string, n: number, body: string): Promise<string>;
  /**
   * The app stopped and another started with the same settings, the webhooks sent to it (`app` is the new
   * one). `abandon`: the old one leaves its running jobs as a process that dies would (with Redis, another
   * replica takes them up once their lock expires).
   */
  restart(opts?: { abandon?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

export interface Clone {
  dir: string;
  git(...args: string[]): Promise<string>;
  write(files: Record<string, string>): void;
  /** Checks out `branch` from `from`, writes files, commits and pushes; returns the new head. */
  push(branch: string, files: Record<string, string>, from?: string): Promise<string>;
}

/** git runs as a child process without blocking: the forge serves it from this same process. */
const run = promisify(execFile);

/**
 * The forge records a push's webhook once git's request has finished, which may be just after the
 * client returns: wait (event-loop turns, not a clock) until the delivery for `sha` exists.
 */
async function pushDelivered(forge: Forge, sha: string): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    if (forge.webhooks.find("push").some((d) => (d.payload as { after?: string }).after === sha)) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`the forge never delivered the push of ${sha}`);
}

export interface WorldOptions {
  /** The runtimes the app's operator allows (default: builtin only). */
  operatorRuntimes?: Runtime[];
  /** Make `acme/blueprints` public, so anyone can fork it (default: private). */
  public?: boolean;
  /** The app's renderer (default: a KptRenderer of its own), to look at what it did. */
  renderer?: Renderer;
  /** Registry access for publish.oci (default: none configured, from the test's environment). */
  mirror?: MirrorAccess;
  /**
   * The app's clock (soak times, schedules, catalog times); default the system's. The forge keeps the
   * system's unless `forgeNow` is given.
   */
  now?: () => Date;
  /**
   * The forge's clock (token expiry, merge dates). The app signs its JWT with the system's clock, so this
   * may run ahead of it by a few minutes at most (the JWT lives ten).
   */
  forgeNow?: () => Date;
  /** The longest a GitHub call of the app waits for a rate limit before its job is parked (default 60 s). */
  maxWaitS?: number;
  /** How often the app looks whether parked jobs' limits have reset (default 1000 ms). */
  parkPollMs?: number;
  /** Distributed mode: the app's jobs go through Redis (BullMQ) instead of its in-process queue. */
  redis?: RedisSettings;
  /** Package work on worker threads within a bound, as `porchlight serve` runs it (default: on the app's thread). */
  packageWork?: PackageWorkSettings;
}

/** The options that point the app at the forge as the app `creds` (no write pacing, any free port). */
export function appOnForge(forge: Forge, creds: ReturnType<Forge["createApp"]>) {
  return {
    appId: creds.appId,
    privateKey: creds.privateKeyPem,
    webhookSecret: creds.webhookSecret,
    baseUrl: forge.apiUrl,
    port: 0,
    writeIntervalMs: 0,
  } satisfies AppServerOptions;
}

/** A forge with `acme/blueprints` holding its README and `files`, the app installed, and users at each level. */
/** Waits until every webhook of `forge` is delivered and every job they started in `app` has run. */
export async function settleApp(forge: Forge, app: AppServer): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const before = forge.webhooks.deliveries.length;
    await forge.webhooks.idle();
    await app.idle();
    await forge.webhooks.idle();
    if (forge.webhooks.deliveries.length === before && app.queues.size === 0) return;
  }
  throw new Error("the forge and the app did not settle");
}

export async function startWorld(files: Record<string, string>, opts: WorldOptions = {}): Promise<World> {
  const forge = await startForge(opts.forgeNow ? { now: opts.forgeNow } : {});
  const creds = forge.createApp({ name: "porchlight", owner: "acme", privateKeyPem: TEST_KEY });
  const startApp = () =>
    startAppServer({
      ...appOnForge(forge, creds),
      retryAfterUnitMs: 1,
      ...(opts.operatorRuntimes ? { operatorRuntimes: opts.operatorRuntimes } : {}),
      ...(opts.renderer ? { renderer: opts.renderer } : {}),
      ...(opts.mirror ? { mirror: opts.mirror } : {}),
      ...(opts.now ? { now: opts.now } : {}),
      ...(opts.maxWaitS !== undefined ? { maxWaitS: opts.maxWaitS } : {}),
      ...(opts.parkPollMs !== undefined ? { parkPollMs: opts.parkPollMs } : {}),
      ...(opts.redis ? { redis: opts.redis } : {}),
      ...(opts.packageWork ? { packageWork: opts.packageWork } : {}),
      log: pino({ level: process.env.E2E_LOG ?? "silent" }),
    });
  let app = await startApp();
  forge.setWebhookUrl(app.webhookUrl);
  forge.createUser("acme", { type: "Organization" });
  const repo = "acme/blueprints";
  await forge.createRepo(repo, {
    files: { "README.md": "# blueprints\n", ...files },
    private: opts.public !== true,
  });
  forge.createInstallation(creds.appId, "acme");
  const users: World["users"] = {};
  for (const [login, level] of [
    ["alice", "write"],
    ["bob", "write"],
    ["rita", "read"],
  ] as const) {
    const { pat } = forge.createUser(login, { pat: true });
    forge.setPermission(repo, login, level);
    users[login] = { pat: pat as string, rest: new Octokit({ baseUrl: forge.apiUrl, auth: pat }) };
  }
  const temp = mkdtempSync(join(tmpdir(), "porchlight-e2e-"));
  const settle = () => settleApp(forge, app);
  const clone = async (user: string, other = repo): Promise<Clone> => {
    const u = new URL(forge.cloneUrl(other));
    u.username = user;
    u.password = users[user]?.pat ?? "";
    const dir = join(temp, `${user}-${Math.random().toString(36).slice(2)}`);
    const env = {
      ...process.env,
      GIT_AUTHOR_NAME: user,
      GIT_AUTHOR_EMAIL: `${user}@x`,
      GIT_COMMITTER_NAME: user,
      GIT_COMMITTER_EMAIL: `${user}@x`,
    };
    const git = async (...args: string[]) => (await run("git", args, { cwd: dir, env })).stdout.trim();
    await run("git", ["clone", "--quiet", u.toString(), dir], { env });
    const write = (f: Record<string, string>) => {
      for (const [path, text] of Object.entries(f)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
    };
    return {
      dir,
      git,
      write,
      async push(branch, f, from = "origin/main") {
        await git("fetch", "--quiet", "origin");
        await git("checkout", "--quiet", "-B", branch, from);
        write(f);
        await git("add", "-A");
        await git("commit", "--quiet", "-m", `edit ${branch}`);
        await git("push", "--quiet", "origin", `HEAD:refs/heads/${branch}`);
        const sha = await git("rev-parse", "HEAD");
        await pushDelivered(forge, sha);
        return sha;
      },
    };
  };
  const [owner, name] = repo.split("/") as [string, string];
  const propose: World["propose"] = async (branch, f, user = "alice") => {
    await (await clone(user)).push(branch, f);
    await settle();
    const rest = users[user]!.rest;
    const { data } = await rest.pulls.create({
      owner,
      repo: name,
      head: branch,
      base: "main",
      title: branch,
    });
    await settle();
    return { number: data.number };
  };
  const say: World["say"] = async (user, n, body) => {
    const rest = users[user]!.rest;
    const { data } = await rest.issues.createComment({ owner, repo: name, issue_number: n, body });
    await settle();
    const comments = (await rest.issues.listComments({ owner, repo: name, issue_number: n })).data;
    return comments.find((c) => c.body?.includes(`reply comment=${data.id}`))?.body ?? "";
  };
  return {
    forge,
    get app() {
      return app;
    },
    repo,
    users,
    settle,
    clone,
    propose,
    say,
    restart: async ({ abandon = false } = {}) => {
      forge.setWebhookUrl(null);
      await app.close({ abandon });
      app = await startApp();
      forge.setWebhookUrl(app.webhookUrl);
    },
    stop: async () => {
      await app.close();
      await forge.stop();
      rmSync(temp, { recursive: true, force: true });
    },
  };
}

/**
 * The world of the describe block that calls this: started (`files` and `opts` as `startWorld` takes
 * them) before its tests and its own `beforeAll` hooks, stopped after its own `afterAll` hooks. Each
 * member is the started world's, so the block's helpers and hooks use it as they would the world.
 */
export function useWorld(files: Record<string, string>, opts: WorldOptions = {}): World {
  return useStarted(
    "the world",
    () => startWorld(files, opts),
    async (world) => world?.stop(),
    120_000,
  );
}

/**
 * Publishes a revision the way a team does: alice pushes `files` to draft `branch` and proposes it, bob
 * approves; the proposal's number, or a throw with the bot's reply when that did not publish.
 */
export async function publishDraft(w: World, branch: string, files: Record<string, string>): Promise<number> {
  const { number } = await w.propose(branch, files);
  const reply = await w.say("bob", number, "/approve");
  if (!reply.includes("Published")) throw new Error(reply);
  return number;
}

/** The app's sweep (what its schedule runs every few minutes), then all it started, settled. */
export async function sweep(w: World): Promise<void> {
  await w.app.sweep();
  await w.settle();
}

/** A sweep, and the forge's write requests it made (git fetches and token mints write nothing). */
export async function sweepWrites(w: World): Promise<string[]> {
  const before = w.forge.requestLog.entries.length;
  await sweep(w);
  return w.forge.requestLog.entries
    .slice(before)
    .filter(
      (e) => e.method !== "GET" && !e.route.includes("access_tokens") && !e.route.endsWith("git-upload-pack"),
    )
    .map((e) => `${e.method} ${e.route}`);
}

/** The check runs on `ref` (a sha or a branch) of `repo` (default the world's), as alice sees them. */
export async function checkRuns(w: World, ref: string, repo = w.repo) {
  const [owner, name] = repo.split("/") as [string, string];
  return (await w.users.alice!.rest.checks.listForRef({ owner, repo: name, ref })).data.check_runs;
}

/** File `path` of `repo` (`owner/name`) at `ref` (default its default branch), as alice reads it through the contents API. */
export async function fileOf(w: World, repo: string, path: string, ref?: string) {
  const [owner, name] = repo.split("/") as [string, string];
  const { data } = await w.users.alice!.rest.repos.getContent({
    owner,
    repo: name,
    path,
    ...(ref ? { ref } : {}),
  });
  const file = data as { content: string; sha: string };
  return { text: Buffer.from(file.content, "base64").toString("utf8"), sha: file.sha };
}

/**
 * Alice's commit through the contents API: file `path` of `repo` (`owner/name`) rewritten by `edit` (its
 * text in, the new text out), with `message`, on `branch` (default the default branch). Does not settle.
 */
export async function editFile(
  w: World,
  repo: string,
  path: string,
  edit: (text: string) => string,
  { message = "local edit", branch }: { message?: string; branch?: string } = {},
): Promise<void> {
  const [owner, name] = repo.split("/") as [string, string];
  const { text, sha } = await fileOf(w, repo, path, branch);
  await w.users.alice!.rest.repos.createOrUpdateFileContents({
    owner,
    repo: name,
    path,
    message,
    content: Buffer.from(edit(text)).toString("base64"),
    sha,
    ...(branch ? { branch } : {}),
  });
}

/** The commit `branch` of `repo` (default the world's) points at, as alice sees it. */
export async function branchHead(w: World, branch: string, repo = w.repo): Promise<string> {
  const [owner, name] = repo.split("/") as [string, string];
  return (await w.users.alice!.rest.git.getRef({ owner, repo: name, ref: `heads/${branch}` })).data.object
    .sha;
}

/** The package `web` of the bot's tests: its pipeline labels its resources `team: web` (set-labels). */
export const WEB_KPTFILE = kptfile(
  "web",
  pipeline(["ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2", { team: "web" }]),
);

/** The ConfigMap `settings` of the package `web`, holding `v`. */
export const webSettings = settings;

/** The body of the world's dashboard (its issue labelled porchlight/dashboard), as alice reads it; "" when none. */
export async function dashboardOf(w: World): Promise<string> {
  const [owner, repo] = w.repo.split("/") as [string, string];
  const { data } = await w.users.alice!.rest.issues.listForRepo({
    owner,
    repo,
    labels: "porchlight/dashboard",
  });
  return data[0]?.body ?? "";
}

/** The bodies of the comments on issue or pull request `n` of `repo` (default the world's), oldest first. */
export async function commentsOn(w: World, n: number, repo = w.repo): Promise<string[]> {
  const [owner, name] = repo.split("/") as [string, string];
  const { data } = await w.users.alice!.rest.issues.listComments({ owner, repo: name, issue_number: n });
  return data.map((c) => c.body ?? "");
}

/** The tags of `repo` (default the world's) whose names start with `prefix`: name → the sha it points to. */
export async function tagsOf(w: World, prefix = "", repo = w.repo): Promise<Record<string, string>> {
  const [owner, name] = repo.split("/") as [string, string];
  const { data } = await w.users.alice!.rest.git.listMatchingRefs({
    owner,
    repo: name,
    ref: `tags/${prefix}`,
  });
  return Object.fromEntries(data.map((r) => [r.ref.slice("refs/tags/".length), r.object.sha]));
}

/** The head of every branch of each repository (`owner/name`, read with its Octokit): `owner/name@branch` → sha. */
export async function branchHeads(
  repos: readonly (readonly [Octokit, string])[],
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [gh, full] of repos) {
    const [owner, repo] = full.split("/") as [string, string];
    for (const b of (await gh.repos.listBranches({ owner, repo })).data)
      out[`${full}@${b.name}`] = b.commit.sha;
  }
  return out;
}

/** How many writes the bot has made so far: REST writes and git pushes by an installation. */
export function botWrites(w: World): number {
  return w.forge.requestLog.entries.filter(
    (e) => e.method !== "GET" && e.installationId !== null && !e.route.endsWith("git-upload-pack"),
  ).length;
}

/**
 * The last comment on #`n` delivered again: the bot writes nothing for it, and of two sweeps after it
 * the second writes nothing either.
 */
export async function expectRedeliveryWritesNothing(w: World, n: number): Promise<void> {
  const delivery = w.forge.webhooks
    .find("issue_comment", "created")
    .filter((d) => (d.payload as { issue?: { number?: number } }).issue?.number === n)
    .at(-1);
  if (delivery === undefined) throw new Error(`no comment on #${n} was delivered`);
  const count = botWrites(w);
  w.forge.webhooks.redeliver(delivery.id);
  await w.settle();
  expect(botWrites(w)).toBe(count);
  await sweep(w);
  const afterFirstSweep = botWrites(w);
  await sweep(w);
  expect(botWrites(w)).toBe(afterFirstSweep);
}

/** `porchlight rpkg ARGS` in-process, as `user` (their token), against the world's forge. */
export function rpkgAs(w: World, user: string, args: string[]) {
  const env = { GH_TOKEN: w.users[user]?.pat ?? "", PATH: process.env.PATH ?? "" };
  return porchlightWith(process.cwd(), env, "rpkg", ...args, `--api-url=${w.forge.apiUrl}`);
}
