import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { FROM_SOURCE } from "../e2e/serve-child.js";

/** The seeded users of `porchlight serve`'s embedded forge, by their permission on acme's repositories. */
type SeededUser = "maintainer" | "reviewer" | "reader";

export interface ServeWorld {
  /** The data folder (`--data`): the forge's repositories, the kubeconfigs. */
  data: string;
  /** The forge's base URL (git over HTTP at `${forge}/OWNER/REPO.git`). */
  forge: string;
  /** Porch's API. */
  api: string;
  tokens: Record<SeededUser, string>;
  kubeconfig(user: SeededUser): string;
  /** A client of `user`'s kubeconfig, as a controller loads one. */
  kube(user: SeededUser): { kc: KubeConfig; api: CustomObjectsApi };
  /** One HTTPS request to the API as `user`: its status and body (for the subresources client-node has no call for). */
  request(
    user: SeededUser,
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<{ status: number; body: string }>;
  /** A clone URL of `repo` (`acme/blueprints`) as `user`. */
  cloneUrl(repo: string, user: SeededUser): string;
  output(): string;
  /** Stops serve (SIGTERM) and starts it again on the same data folder: a restart as a user makes one. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `porchlight serve` as a newcomer starts it (`npm start`: the embedded forge seeded with acme's
 * blueprints and two deployment repositories, the app, Porch's API), from the sources in a child
 * process, with its own data folder: the bot renders, checks, publishes and fans out beside the API, as
 * it does for a user. Resolves once it printed its kubeconfigs.
 */
export async function serveWorld(env: Record<string, string> = {}): Promise<ServeWorld> {
  const data = mkdtempSync(join(tmpdir(), "porchlight-serve-world-"));
  let out = "";
  let child: ChildProcess;
  const start = async () => {
    out = "";
    child = spawn(process.execPath, [...FROM_SOURCE, "test/e2e/app-process.ts", "serve", "--data", data], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? "/tmp",
        PORT: "0",
        HOST: "127.0.0.1",
        LOG_LEVEL: (process.env.E2E_LOG ?? "warn") as NodeJS.ProcessEnv["LOG_LEVEL"],
        PORCHLIGHT_RECONCILE_INTERVAL_MS: "0",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const started = child;
    started.stdout?.on("data", (d) => {
      out += d;
    });
    started.stderr?.on("data", (d) => {
      out += d;
    });
    await new Promise<void>((resolve, reject) => {
      started.stdout?.on("data", () => {
        if (/export KUBECONFIG=\S+/.test(out)) resolve();
      });
      started.once("exit", (code) =>
        reject(new Error(`porchlight serve exited (${code}) before serving:\n${out}`)),
      );
    });
  };
  const halt = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((done) => child.once("exit", done));
    child.kill("SIGTERM");
    await exited;
  };
  await start();
  const forge = /forge: (\S+) /.exec(out)?.[1] ?? "";
  const token = (user: SeededUser) => new RegExp(`^  ${user}\\t[^\\t]+\\t(\\S+)$`, "m").exec(out)?.[1] ?? "";
  const tokens = { maintainer: token("maintainer"), reviewer: token("reviewer"), reader: token("reader") };
  const kubeconfig = (user: SeededUser) => join(data, `kubeconfig-${user}.yaml`);
  const kube = (user: SeededUser) => {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig(user));
    return { kc, api: kc.makeApiClient(CustomObjectsApi) };
  };
  const cluster = kube("reviewer").kc.getCurrentCluster();
  const api = cluster?.server ?? "";
  const ca = Buffer.from(cluster?.caData ?? "", "base64");
  return {
    data,
    forge,
    api,
    tokens,
    kubeconfig,
    kube,
    cloneUrl: (repo, user) => {
      const url = new URL(`${forge}/${repo}.git`);
      url.username = user;
      url.password = tokens[user];
      return url.toString();
    },
    request: (user, method, path, body, contentType = "application/json") =>
      new Promise((resolve, reject) => {
        const req = request(
          `${api}${path}`,
          {
            method,
            ca,
            headers: {
              authorization: `Bearer ${tokens[user]}`,
              ...(body === undefined ? {} : { "content-type": contentType }),
            },
          },
          (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (c: string) => {
              text += c;
            });
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
          },
        );
        req.on("error", reject);
        req.end(body === undefined ? undefined : JSON.stringify(body));
      }),
    output: () => out,
    async restart() {
      await halt();
      await start();
    },
    async stop() {
      await halt();
      if (!process.env.KEEP_SERVE_DATA) rmSync(data, { recursive: true, force: true });
    },
  };
}
