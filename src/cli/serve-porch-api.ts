import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Forge, SeedResult } from "@porchlight/forge";
import { openRegistry, registrationObject } from "../porch/registrations.js";
import { type PorchApiStart, startPorchApiIn } from "./api.js";
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
