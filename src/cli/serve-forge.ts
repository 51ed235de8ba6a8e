import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Forge, type SeedResult, seed, startForge } from "@porchlight/forge";
import type { AppServer } from "../app/server.js";
import { UsageError } from "./io.js";
import { rememberedForgePort, rememberForgePort, STATE_FILE } from "./remembered-ports.js";

/**
 * The embedded forge of `serve` without credentials, seeded (seeding is idempotent: a data folder
 * that already holds the world is reused as it is). With a data folder the forge listens on the port
 * it had last time (FORGE_PORT overrides), so clones and remotes keep working after a restart.
 */
export async function startServeForge(
  env: NodeJS.ProcessEnv,
  dataDir: string | undefined,
): Promise<{ forge: Forge; world: SeedResult }> {
  const fromEnv = env.FORGE_PORT;
  if (fromEnv !== undefined && !/^\d+$/.test(fromEnv))
    throw new UsageError(`porchlight serve: FORGE_PORT must be a port number, got "${fromEnv}"`);
  const last = dataDir ? rememberedForgePort(dataDir, "serve") : undefined;
  const port = fromEnv !== undefined ? Number(fromEnv) : (last ?? 0);
  let forge: Forge;
  try {
    forge = await startForge({ port, ...(dataDir ? { dataDir } : {}) });
  } catch (err) {
    if ((err as { code?: string }).code === "EADDRINUSE") {
      const why =
        fromEnv !== undefined
          ? "FORGE_PORT"
          : `the port it had last time (${join(dataDir ?? "", STATE_FILE)})`;
      throw new UsageError(
        `porchlight serve: the forge cannot listen on port ${port}, ${why}: it is in use. Stop what uses it, or set FORGE_PORT to another port.`,
      );
    }
    throw err;
  }
  if (dataDir) rememberForgePort(dataDir, forge.url);
  return { forge, world: await seed(forge) };
}

/** The folder porchlight is installed in (this file is src/cli or dist/cli of it). */
export const PORCHLIGHT_FOLDER = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

export function nextSteps(forgeUrl: string, app: AppServer, world: SeedResult, dataDir?: string): string {
  const writer = world.users.find((u) => u.permission === "write") ?? world.users[0];
  const approver =
    world.users.find((u) => u !== writer && (u.permission === "maintain" || u.permission === "admin")) ??
    writer;
  const host = new URL(forgeUrl).host;
  const repo = world.repos[0] ?? "acme/blueprints";
  const name = repo.split("/")[1] ?? "blueprints";
  const flags = `--repository ${repo} --api-url ${forgeUrl}/api/v3`;
  return [
    "porchlight is running against an embedded forge (no GitHub App credentials were set).",
    `  app:   ${app.url} (webhooks ${app.webhookUrl}, ${app.url}/healthz, ${app.url}/metrics)`,
    `  forge: ${forgeUrl} (REST at ${forgeUrl}/api/v3)`,
    dataDir
      ? `  data:  ${dataDir} (kept: stop and start again with the same --data to carry on)`
      : "  data:  a temporary folder, deleted on stop (--data DIR or PORCHLIGHT_DATA to keep it)",
    "",
    'Try it: the steps of the README\'s "Five minutes on your laptop", with your ports and tokens',
    `  git clone http://${writer?.login}:${writer?.pat}@${host}/${repo}.git && cd ${name}`,
    '  git checkout -b drafts/hello/my-change      # a draft of package "hello", workspace "my-change"',
    '  $EDITOR hello/deployment.yaml && git commit -am "more replicas"',
    "  git push origin drafts/hello/my-change      # porchlight renders the draft and pushes the result",
    `  cd ${PORCHLIGHT_FOLDER}    # back in porchlight's folder: npx porchlight runs from there`,
    `  export GH_TOKEN=${writer?.pat}    # porchlight rpkg acts as ${writer?.login}`,
    `  npx porchlight rpkg propose ${name}.hello.my-change ${flags}`,
    `  # then, as ${approver?.login}, comment /approve on the pull request, or:`,
    `  GH_TOKEN=${approver?.pat} npx porchlight rpkg approve ${name}.hello.my-change ${flags}`,
    "",
    "Users (login, permission, PAT):",
    `  ${world.admin.login}\tsite admin\t${world.admin.pat}`,
    ...world.users.map((u) => `  ${u.login}\t${u.permission}\t${u.pat}`),
    "",
    `A repository of your own (the app is installed on ${world.org}: it serves every repository there):`,
    `  curl -H "Authorization: token ${world.admin.pat}" ${forgeUrl}/api/v3/orgs/${world.org}/repos -d '{"name":"my-packages","auto_init":true}'`,
    `  an organization: POST ${forgeUrl}/api/v3/admin/organizations {"login":"NAME","admin":"${world.admin.login}"} (the app is not installed there: keep packages in ${world.org})`,
    "",
    "With APP_ID, PRIVATE_KEY and WEBHOOK_SECRET set, `npm start` serves GitHub instead.",
    "",
  ].join("\n");
}
