import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { request } from "node:https";
import { join } from "node:path";
import { startPorchApi } from "../../src/cli/api.js";
import { kubeconfigYaml } from "../../src/cli/kubeconfig.js";
import { type RpkgWorld, rpkgWorld } from "../cli/rpkg/world.js";

interface Kubectl {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ApiWorld extends RpkgWorld {
  /** Porch's API, served by porchlight over the forge. */
  url: string;
  /** Its certificate (PEM), for a client of the test's own. */
  caPem: string;
  /** The folder of its callers' cache clones. */
  cacheRoot: string;
  /** Runs the real kubectl as `user` (alice, bob: write; carol: read), with their kubeconfig. */
  kubectl(
    user: "alice" | "bob" | "carol",
    args: string[],
    opts?: { stdin?: string; timeoutMs?: number },
  ): Promise<Kubectl>;
  /** The kubeconfig file of `user`. */
  kubeconfig(user: "alice" | "bob" | "carol"): string;
  /** One HTTPS request to the API (trusting its certificate), as `token` when given. */
  request(
    path: string,
    opts?: { token?: string; method?: string; headers?: Record<string, string>; body?: string },
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>;
}

/**
 * rpkg's world (acme/blueprints and acme/deploy; alice and bob write, carol reads) with both repositories
 * registered in namespace acme, and Porch's API served over it on a free loopback port, each user with
 * a kubeconfig of their own (their PAT as the token, namespace acme).
 */
export async function apiWorld(
  opts: { watchPollMs?: number; env?: Record<string, string> } = {},
): Promise<ApiWorld> {
  const w = await rpkgWorld();
  await w.forge.createRepo("acme/.porchlight", { autoInit: true });
  for (const u of ["alice", "bob"]) w.forge.setPermission("acme/.porchlight", u, "write");
  w.forge.setPermission("acme/.porchlight", "carol", "read");
  for (const repo of ["blueprints", "deploy"]) {
    const r = await w.cli(w.alice, ["repo", "register", `acme/${repo}`, "--namespace=acme"]);
    if (r.code !== 0) throw new Error(`repo register ${repo}: ${r.stderr}`);
  }
  const server = await startPorchApi({
    host: "127.0.0.1",
    port: 0,
    apiUrl: w.forge.apiUrl,
    env: { PORCHLIGHT_API_WATCH_POLL_MS: String(opts.watchPollMs ?? 200), ...opts.env },
  });
  const home = join(w.tmp, "kube");
  mkdirSync(home, { recursive: true });
  const tokens = { alice: w.alice, bob: w.bob, carol: w.carol };
  const kubeconfig = (user: keyof typeof tokens) => join(home, `${user}.yaml`);
  for (const [user, token] of Object.entries(tokens))
    writeFileSync(
      kubeconfig(user as keyof typeof tokens),
      kubeconfigYaml({
        server: server.url,
        githubApiUrl: w.forge.apiUrl,
        name: "porchlight",
        user,
        token,
        namespace: "acme",
        caPem: server.caPem,
      }),
    );
  const stop = w.stop;
  return Object.assign(w, {
    url: server.url,
    caPem: server.caPem ?? "",
    cacheRoot: server.cacheRoot,
    kubeconfig,
    kubectl: (user: keyof typeof tokens, args: string[], o: { stdin?: string; timeoutMs?: number } = {}) =>
      new Promise<Kubectl>((resolve) => {
        const child = execFile(
          "kubectl",
          args,
          {
            env: {
              PATH: process.env.PATH ?? "",
              HOME: home,
              KUBECONFIG: kubeconfig(user),
              KUBECACHEDIR: join(home, "cache"),
            },
            timeout: o.timeoutMs ?? 60_000,
          },
          (err, stdout, stderr) =>
            resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
        );
        if (o.stdin !== undefined) child.stdin?.end(o.stdin);
      }),
    request: (
      path: string,
      o: { token?: string; method?: string; headers?: Record<string, string>; body?: string } = {},
    ) =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
        const req = request(
          `${server.url}${path}`,
          {
            method: o.method ?? "GET",
            ca: server.caPem,
            headers: { ...(o.token ? { authorization: `Bearer ${o.token}` } : {}), ...o.headers },
          },
          (res) => {
            let body = "";
            res.setEncoding("utf8");
            res.on("data", (c: string) => {
              body += c;
            });
            res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
          },
        );
        req.on("error", reject);
        req.end(o.body);
      }),
    async stop() {
      await server.close();
      await stop();
    },
  });
}
