import { type ChildProcess, fork } from "node:child_process";
import { type Forge, startForge } from "@porchlight/forge";

/** A request the forge served to the app (its installation token), as the bench counts them. */
export interface AppRequest {
  method: string;
  path: string;
  route: string;
  /** When the forge answered it, in milliseconds since the epoch (the bench may run the forge apart). */
  atMs: number;
}

/**
 * What the bot bench asks of the forge playing GitHub, whether the forge runs in the bench's process or
 * in one of its own (as a deployment has GitHub apart from the app): a world of one organization, its
 * repository `acme/blueprints`, the app installed there and a person, alice, who may write to it.
 */
export interface ForgeView {
  url: string;
  /** The repository's clone URL with alice's token in it. */
  cloneUrl: string;
  /** The forge's REST API, and alice's token for it (she opens the proposal). */
  apiUrl: string;
  alicePat: string;
  creds: ReturnType<Forge["createApp"]>;
  setWebhookUrl(url: string | null): Promise<void>;
  /** Resolves when no webhook delivery is pending. */
  idle(): Promise<void>;
  /** How many requests the forge has served. */
  requestCount(): Promise<number>;
  /** The app's requests from the `from`-th request the forge served on. */
  appRequestsSince(from: number): Promise<AppRequest[]>;
  /** The check run `name` on `sha` once completed: its conclusion; undefined before. */
  check(sha: string, name: string): Promise<string | null | undefined>;
  /** The head commit of the repository's open pull request (the proposal), if one is open. */
  proposalHead(): Promise<string | undefined>;
  /** The forge's process when it has one of its own (its CPU is read from /proc). */
  pid?: number;
  stop(): Promise<void>;
}

const REPO = "acme/blueprints";

/** Sets up the world on a forge; what the bench needs of it. */
async function setUp(forge: Forge) {
  const creds = forge.createApp({ name: "porchlight", owner: "acme" });
  forge.createUser("acme", { type: "Organization" });
  await forge.createRepo(REPO, { files: { "README.md": "# blueprints\n" } });
  forge.createInstallation(creds.appId, "acme");
  const { pat } = forge.createUser("alice", { pat: true });
  forge.setPermission(REPO, "alice", "write");
  const u = new URL(forge.cloneUrl(REPO));
  u.username = "alice";
  u.password = pat as string;
  return { url: forge.url, cloneUrl: u.toString(), apiUrl: forge.apiUrl, alicePat: pat as string, creds };
}

function appRequests(forge: Forge, from: number): AppRequest[] {
  return forge.requestLog.entries
    .slice(from)
    .filter((e) => e.installationId !== null)
    .map((e) => ({ method: e.method, path: e.path, route: e.route, atMs: performance.timeOrigin + e.at }));
}

function proposalHead(forge: Forge): string | undefined {
  return forge.core.store.data.issues.find((i) => i.pull && i.state === "open")?.pull?.headSha;
}

function check(forge: Forge, sha: string, name: string): string | null | undefined {
  const run = forge.core.store.data.checkRuns.find(
    (r) => r.headSha === sha && r.name === name && r.status === "completed",
  );
  return run ? run.conclusion : undefined;
}

/** The forge in the bench's process. */
export async function forgeHere(): Promise<ForgeView> {
  const forge = await startForge();
  const world = await setUp(forge);
  return {
    ...world,
    setWebhookUrl: async (url) => forge.setWebhookUrl(url),
    idle: () => forge.webhooks.idle(),
    requestCount: async () => forge.requestLog.entries.length,
    appRequestsSince: async (from) => appRequests(forge, from),
    check: async (sha, name) => check(forge, sha, name),
    proposalHead: async () => proposalHead(forge),
    stop: () => forge.stop(),
  };
}

type Ask =
  | { op: "setWebhookUrl"; url: string | null }
  | { op: "idle" }
  | { op: "requestCount" }
  | { op: "appRequestsSince"; from: number }
  | { op: "check"; sha: string; name: string }
  | { op: "proposalHead" }
  | { op: "stop" };

/** The forge in a process of its own (this file, run as a child of the bench), asked over IPC. */
export async function forgeApart(): Promise<ForgeView> {
  const child: ChildProcess = fork(new URL(import.meta.url).pathname, ["--serve-forge"], {
    execArgv: ["--conditions=@porchlight/source", "--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let next = 0;
  const waiting = new Map<number, (value: unknown) => void>();
  const ready = new Promise<Awaited<ReturnType<typeof setUp>>>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the forge's process exited (${code})`)));
    child.on("message", (m: { id?: number; ready?: Awaited<ReturnType<typeof setUp>>; value?: unknown }) => {
      if (m.ready) resolve(m.ready);
      else if (m.id !== undefined) {
        waiting.get(m.id)?.(m.value);
        waiting.delete(m.id);
      }
    });
  });
  const world = await ready;
  const ask = <T>(q: Ask): Promise<T> =>
    new Promise((resolve) => {
      const id = ++next;
      waiting.set(id, resolve as (value: unknown) => void);
      child.send({ id, ...q });
    });
  return {
    ...world,
    setWebhookUrl: (url) => ask({ op: "setWebhookUrl", url }),
    idle: () => ask({ op: "idle" }),
    requestCount: () => ask({ op: "requestCount" }),
    appRequestsSince: (from) => ask({ op: "appRequestsSince", from }),
    check: async (sha, name) => (await ask<string | null>({ op: "check", sha, name })) ?? undefined,
    proposalHead: async () => (await ask<string | null>({ op: "proposalHead" })) ?? undefined,
    ...(child.pid ? { pid: child.pid } : {}),
    stop: async () => {
      const exited = new Promise((r) => child.once("exit", r));
      child.send({ id: ++next, op: "stop" });
      await exited;
    },
  };
}

/** The child's side: the forge, answering the bench's questions until told to stop. */
async function serveForge(): Promise<void> {
  const forge = await startForge();
  const world = await setUp(forge);
  const send = (m: unknown) => process.send?.(m);
  process.on("message", async (q: Ask & { id: number }) => {
    const answer = async (): Promise<unknown> => {
      switch (q.op) {
        case "setWebhookUrl":
          forge.setWebhookUrl(q.url);
          return null;
        case "idle":
          await forge.webhooks.idle();
          return null;
        case "requestCount":
          return forge.requestLog.entries.length;
        case "appRequestsSince":
          return appRequests(forge, q.from);
        case "check":
          // (a completed check always has a conclusion: null crosses IPC where undefined does not)
          return check(forge, q.sha, q.name) ?? null;
        case "proposalHead":
          return proposalHead(forge) ?? null;
        case "stop":
          await forge.stop();
          process.exit(0);
      }
    };
    send({ id: q.id, value: await answer() });
  });
  send({ ready: world });
}

if (process.argv.includes("--serve-forge")) void serveForge();
