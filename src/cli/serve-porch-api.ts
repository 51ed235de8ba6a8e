import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Forge, SeedResult } from "@porchlight/forge";
import { openRegistry, registrationObject } from "../porch/registrations.js";
import { type PorchApiStart, startPorchApi, startPorchApiIn } from "./api.js";
import { UsageError } from "./io.js";
import { kubeconfigYaml } from "./kubeconfig.js";
import { writePrivateFile } from "./private-file.js";

/**
 * The seeded repositories registered in the organization's namespace (its `.porchlight` repository, as
 * `porchlight repo register` keeps them), each seeded user reading it as they read the repositories, so
 * that `kubectl get packagerevisions -n acme` lists the seeded packages. Registered once: a data folder
 * that holds the registrations keeps them as they are.
 */
export async function registerSeeded(forge: Forge, world: SeedResult): Promise<void> {
  const cacheDir = await mkdtemp(join(forge.dataDir, "registry-"));
  try {
    const access = { token: world.admin.pat, apiUrl: forge.apiUrl, cacheDir };
    const registry = await openRegistry(access, world.org, { create: true });
    for (const full of world.repos) {
      const name = full.split("/")[1] ?? full;
      if (await registry.get(name)) continue;
      await registry.add(
        registrationObject({ name, namespace: world.org, repo: full, deployment: name.startsWith("deploy") }),
        { name: "porchlight", email: "porchlight@users.noreply.github.com" },
      );
    }
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
  for (const u of world.users) forge.setPermission(`${world.org}/.porchlight`, u.login, u.permission);
}

/**
 * `serve` on the embedded forge serves Porch's API too (the seeded repositories registered first, before
 * the app listens for their pushes: registerSeeded) (PORCHLIGHT_API_PORT, default the port it had last
 * time in that data folder when free, else any free port), over HTTPS with a certificate kept in the data
 * folder, and writes there a kubeconfig for each seeded user: the same bytes at each restart.
 * `changes`: the app's webhooks, which keep the API's index of package revisions current (api.ts);
 * `botParked`: where the app parked its jobs for GitHub's rate limit, which approvals are told (approve.ts).
 * Returns what to print and how to stop it.
 */
export async function servePorchApiOnForge(
  env: NodeJS.ProcessEnv,
  forge: Forge,
  world: SeedResult,
  changes?: PorchApiStart["changes"],
  report?: PorchApiStart["report"],
  botParked?: PorchApiStart["botParked"],
): Promise<{ text: string; close: () => Promise<void> }> {
  const port = env.PORCHLIGHT_API_PORT;
  const start = {
    host: "127.0.0.1",
    apiUrl: forge.apiUrl,
    env,
    changes,
    ...(report ? { report } : {}),
    ...(botParked ? { botParked } : {}),
  };
  const server = await startPorchApiIn(start, forge.dataDir, {
    given: port === undefined ? undefined : Number(port),
    fallback: 0,
    command: "serve",
  });
  const files: string[] = [];
  for (const u of world.users) {
    const file = join(forge.dataDir, `kubeconfig-${u.login}.yaml`);
    // the user's token: 0600, also over the file an earlier serve left in the data folder
    await writePrivateFile(
      file,
      kubeconfigYaml({
        server: server.url,
        githubApiUrl: forge.apiUrl,
        name: "porchlight",
        user: u.login,
        token: u.pat,
        namespace: world.org,
        caPem: server.caPem,
      }),
    );
    // not in the users table's shape (login, permission, token): a script reads that table by its first word
    files.push(`  for ${u.login} (${u.permission}): ${file}`);
  }
  const writer = world.users.find((u) => u.permission === "write") ?? world.users[0];
  const text = [
    `Porch's API, for kubectl: ${server.url} (docs/porch-api.md); a kubeconfig for each user:`,
    ...files,
    `  export KUBECONFIG=${join(forge.dataDir, `kubeconfig-${writer?.login}.yaml`)}`,
    `  kubectl get packagerevisions -n ${world.org}`,
    "",
  ].join("\n");
  return { text, close: server.close };
}

/**
 * `serve` on GitHub serves Porch's API too when PORCHLIGHT_API_PORT is set (0: any free port), on
 * PORCHLIGHT_API_HOST (default HOST, else 0.0.0.0), with the operator's certificate
 * (PORCHLIGHT_API_TLS_CERT and _KEY), or plain HTTP behind a balancer that ends TLS
 * (PORCHLIGHT_API_HTTP), else a certificate of its own made at each start. Its index is kept by the
 * app's webhooks (`changes`); with `fleet` (REDIS_URL), by every replica's (docs/scaling.md). Callers
 * bring their own GitHub token, as with `porchlight api`. None when PORCHLIGHT_API_PORT is unset.
 */
export async function servePorchApiOnGitHub(
  env: NodeJS.ProcessEnv,
  apiUrl: string | undefined,
  changes: PorchApiStart["changes"],
  more: Pick<PorchApiStart, "report" | "fleet" | "onIndexError" | "shareAnswers" | "botParked">,
): Promise<{ text: string; close: () => Promise<void> } | undefined> {
  const port = env.PORCHLIGHT_API_PORT;
  if (port === undefined || port === "") return undefined;
  if (!/^\d+$/.test(port) || Number(port) > 65535)
    throw new UsageError(
      `porchlight serve: PORCHLIGHT_API_PORT must be a port number (0: any free one), not "${port}"`,
    );
  const host = env.PORCHLIGHT_API_HOST || env.HOST || "0.0.0.0";
  const server = await startPorchApi({ host, port: Number(port), apiUrl, env, changes, ...more });
  const own = env.PORCHLIGHT_API_TLS_CERT ? undefined : server.caPem;
  const text = [
    `Porch's API: ${server.url} (docs/porch-api.md: callers bring their GitHub token)`,
    ...(own
      ? [
          "  its certificate is made at this start (set PORCHLIGHT_API_TLS_CERT and _KEY for one that stays, the same on every replica):",
          ...own
            .trimEnd()
            .split("\n")
            .map((l) => `  ${l}`),
        ]
      : []),
    "",
  ].join("\n");
  return { text, close: server.close };
}
