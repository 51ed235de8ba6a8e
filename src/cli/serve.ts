import { readFileSync } from "node:fs";
import { type AppServer, startAppServer } from "../app/server.js";
import {
  DEFAULT_WEBHOOK_MAX_BYTES,
  PENDING_BODIES,
  WEBHOOK_MAX_BYTES_ENV,
  WEBHOOK_MAX_PENDING_BYTES_ENV,
} from "../app/webhook/edge.js";
import { LimitSettingError, type Limits, operatorLimitsFromEnv } from "../config/limits.js";
import { operatorRuntimesFromEnv } from "../config/runtimes.js";
import type { Forge } from "../forge/forge.js";
import { startForge } from "../forge/forge.js";
import { seed } from "../forge/seed.js";
import { type CliCommand, type CliIO, UsageError } from "./io.js";
import { waitForSignal } from "./signals.js";

/** GitHub App credentials from probot's environment variables, or undefined when none are set. */
function credentials(
  env: NodeJS.ProcessEnv,
): { appId: string; privateKey: string; secret: string } | undefined {
  const key =
    env.PRIVATE_KEY ?? (env.PRIVATE_KEY_PATH ? readFileSync(env.PRIVATE_KEY_PATH, "utf8") : undefined);
  if (!env.APP_ID || !key || !env.WEBHOOK_SECRET) return undefined;
  const pem = key.includes("-----BEGIN") ? key : Buffer.from(key, "base64").toString("utf8");
  return { appId: env.APP_ID, privateKey: pem, secret: env.WEBHOOK_SECRET };
}

function baseUrl(env: NodeJS.ProcessEnv): string | undefined {
  return env.GHE_HOST ? `${env.GHE_PROTOCOL ?? "https"}://${env.GHE_HOST}/api/v3` : undefined;
}

/** The webhook limits from PORCHLIGHT_WEBHOOK_MAX_BYTES and PORCHLIGHT_WEBHOOK_MAX_PENDING_BYTES. */
function webhookLimits(env: NodeJS.ProcessEnv): { webhookMaxBytes: number; webhookMaxPendingBytes: number } {
  const bytes = (name: string, fallback: number): number => {
    const text = env[name];
    if (text === undefined || text === "") return fallback;
    if (!/^\d+$/.test(text) || Number(text) < 1) {
      throw new UsageError(
        `porchlight serve: ${name} must be a whole number of bytes above 0 (default ${fallback}), not "${text}"`,
      );
    }
    return Number(text);
  };
  const webhookMaxBytes = bytes(WEBHOOK_MAX_BYTES_ENV, DEFAULT_WEBHOOK_MAX_BYTES);
  return {
    webhookMaxBytes,
    webhookMaxPendingBytes: bytes(WEBHOOK_MAX_PENDING_BYTES_ENV, PENDING_BODIES * webhookMaxBytes),
  };
}

/** What a package and a job may cost, from the PORCHLIGHT_MAX_* variables. */
function operatorLimits(env: NodeJS.ProcessEnv): Limits {
  try {
    return operatorLimitsFromEnv(env);
  } catch (e) {
    if (e instanceof LimitSettingError) throw new UsageError(`porchlight serve: ${e.message}`);
    throw e;
  }
}

/**
 * `porchlight serve` (`npm start`): with APP_ID, PRIVATE_KEY (or PRIVATE_KEY_PATH) and WEBHOOK_SECRET,
 * the app serves GitHub as any probot app; without them, an embedded forge seeded with the example
 * repositories, and the app installed on it. Runs until SIGTERM or SIGINT, then finishes its jobs.
 */
export const serveCommand: CliCommand = async (args, io) => {
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(
      "porchlight serve: run the GitHub App (PORT, default 3000). Without APP_ID/PRIVATE_KEY/WEBHOOK_SECRET it runs against an embedded forge seeded with examples.\n",
    );
    return 0;
  }
  const port = Number(io.env.PORT ?? 3000);
  const creds = credentials(io.env);
  const limits = webhookLimits(io.env);
  const packageLimits = operatorLimits(io.env);
  let forge: Forge | undefined;
  let app: AppServer;
  if (creds) {
    const url = baseUrl(io.env);
    app = await startAppServer({
      appId: creds.appId,
      privateKey: creds.privateKey,
      webhookSecret: creds.secret,
      ...(url ? { baseUrl: url } : {}),
      ...limits,
      port,
      host: io.env.HOST ?? "0.0.0.0",
      writeIntervalMs: Number(io.env.PORCHLIGHT_WRITE_INTERVAL_MS ?? 1000),
      operatorRuntimes: operatorRuntimesFromEnv(io.env),
      limits: packageLimits,
      reconcileIntervalMs: Number(io.env.PORCHLIGHT_RECONCILE_INTERVAL_MS ?? 15 * 60_000),
    });
    io.stdout(`porchlight: listening on ${app.url} (webhooks at ${app.webhookUrl}, /healthz, /metrics)\n`);
  } else {
    forge = await startForge({ port: Number(io.env.FORGE_PORT ?? 0) });
    const world = await seed(forge);
    const app0 = forge.app(world.appId);
    if (!app0) throw new Error("the seeded forge has no app");
    app = await startAppServer({
      appId: world.appId,
      privateKey: app0.privateKeyPem,
      webhookSecret: world.webhookSecret,
      baseUrl: forge.apiUrl,
      ...limits,
      port,
      writeIntervalMs: 0,
      operatorRuntimes: operatorRuntimesFromEnv(io.env),
      limits: packageLimits,
      reconcileIntervalMs: 60_000,
    });
    forge.setWebhookUrl(app.webhookUrl);
    await app.sweep();
    io.stdout(nextSteps(forge.url, app, world));
  }
  await waitForSignal();
  io.stdout("porchlight: shutting down, finishing queued jobs…\n");
  await app.close();
  await forge?.stop();
  return 0;
};

function nextSteps(forgeUrl: string, app: AppServer, world: Awaited<ReturnType<typeof seed>>): string {
  const writer = world.users.find((u) => u.permission === "write") ?? world.users[0];
  const host = new URL(forgeUrl).host;
  const repo = world.repos[0];
  return [
    "porchlight is running against an embedded forge (no GitHub App credentials were set).",
    `  app:   ${app.url} (webhooks ${app.webhookUrl}, ${app.url}/healthz, ${app.url}/metrics)`,
    `  forge: ${forgeUrl} (REST at ${forgeUrl}/api/v3)`,
    "",
    "Try it:",
    `  git clone http://${writer?.login}:${writer?.pat}@${host}/${repo}.git && cd blueprints`,
    "  git checkout -b drafts/hello/my-change && edit hello/deployment.yaml && git commit -am edit",
    "  git push origin drafts/hello/my-change     # porchlight renders it and pushes the result",
    `  curl -u ${writer?.login}:${writer?.pat} -X POST ${forgeUrl}/api/v3/repos/${repo}/pulls \\`,
    `       -d '{"head":"drafts/hello/my-change","base":"main","title":"my change"}'`,
    "  then comment /approve from another writer to publish hello/v2.",
    "",
    "Users (login, permission, PAT):",
    ...world.users.map((u) => `  ${u.login}\t${u.permission}\t${u.pat}`),
    "",
    "With APP_ID, PRIVATE_KEY and WEBHOOK_SECRET set, `npm start` serves GitHub instead.",
    "",
  ].join("\n");
}

export type { CliIO };
