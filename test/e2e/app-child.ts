import { once } from "node:events";
import type { Forge } from "@porchlight/forge";
import { expect } from "vitest";
import { type ServeProcess, spawnServe } from "./serve-child.js";

/** The app as `porchlight serve` in a child process, against the forge, until killed. */
export type AppProcess = ServeProcess;

export async function startApp(
  forge: Forge,
  creds: ReturnType<Forge["createApp"]>,
  env: Record<string, string> = {},
): Promise<AppProcess> {
  const app = await spawnServe(forge, creds, env);
  forge.setWebhookUrl(app.webhookUrl);
  return app;
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
