import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { expect } from "vitest";
import type { Forge } from "../../src/forge/index.js";

/** The app as `porchlight serve` in a child process, against the forge, until killed. */
export interface AppProcess {
  child: ChildProcess;
  webhookUrl: string;
  output: () => string;
}

export async function startApp(
  forge: Forge,
  creds: ReturnType<Forge["createApp"]>,
  env: Record<string, string> = {},
): Promise<AppProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/e2e/app-process.ts", "serve"], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      APP_ID: String(creds.appId),
      PRIVATE_KEY: creds.privateKeyPem,
      WEBHOOK_SECRET: creds.webhookSecret,
      GHE_HOST: new URL(forge.url).host,
      GHE_PROTOCOL: "http",
      PORT: "0",
      HOST: "127.0.0.1",
      PORCHLIGHT_WRITE_INTERVAL_MS: "0",
      // No periodic sweep: what a restart recovers, the start-up sweep recovers.
      PORCHLIGHT_RECONCILE_INTERVAL_MS: "0",
      LOG_LEVEL: (process.env.E2E_LOG ?? "info") as NodeJS.ProcessEnv["LOG_LEVEL"],
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"] as const,
  }) as ChildProcess;
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  child.stderr?.on("data", (d) => {
    out += d;
  });
  const webhookUrl = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const url = /webhooks at (\S+),/.exec(out)?.[1];
      if (url) resolve(url);
    };
    child.stdout?.on("data", look);
    child.once("exit", (code) => reject(new Error(`the app exited (${code}) before listening:\n${out}`)));
  });
  forge.setWebhookUrl(webhookUrl);
  return { child, webhookUrl, output: () => out };
}

export async function kill9(forge: Forge, app: AppProcess): Promise<void> {
  forge.setWebhookUrl(null);
  const exited = once(app.child, "exit");
  app.child.kill("SIGKILL");
  await exited;
}

/** SIGTERM: the app finishes its queued jobs, then exits 0. */
export async function stopApp(forge: Forge, app: AppProcess): Promise<void> {
  forge.setWebhookUrl(null);
  const exited = once(app.child, "exit");
  app.child.kill("SIGTERM");
  const [code] = await exited;
  expect(code, app.output()).toBe(0);
}
