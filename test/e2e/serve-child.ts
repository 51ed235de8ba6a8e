import { type ChildProcess, spawn } from "node:child_process";
import type { Forge } from "@porchlight/forge";

/**
 * How node runs the CLI from its sources (test/e2e/app-process.ts): through tsx, with the forge's
 * sources too (its `@porchlight/source` export, as the tests and the type check read it).
 */
export const FROM_SOURCE = ["--conditions=@porchlight/source", "--import", "tsx"];

/** `porchlight serve` in a child process against the forge, listening, until killed. */
export interface ServeProcess {
  child: ChildProcess;
  webhookUrl: string;
  output: () => string;
}

/**
 * `porchlight serve` (the sources, through tsx; or `bin/porchlight.js`, the build as a deployment runs
 * it, with `fromBuild`) as a child process against the forge, as the app
 * `creds` names, with no periodic sweep (what a restart recovers, the start-up sweep recovers); `env`
 * adds to or overrides its environment. Resolves once it listens; `name` names it in an early exit.
 * The forge's webhook URL is left to the caller (one app, or a balancer in front of several).
 */
export async function spawnServe(
  /** The forge the app serves as GitHub (its URL is all the app is told). */
  forge: Pick<Forge, "url">,
  creds: ReturnType<Forge["createApp"]>,
  env: Record<string, string>,
  name = "the app",
  /** Options for node itself, before the script (e.g. `--cpu-prof`). */
  nodeArgs: readonly string[] = [],
  /** Run the build (`npm run build`) rather than the sources through tsx. */
  fromBuild = false,
): Promise<ServeProcess> {
  const script = fromBuild ? ["bin/porchlight.js"] : [...FROM_SOURCE, "test/e2e/app-process.ts"];
  const argv = [...nodeArgs, ...script, "serve"];
  const child = spawn(process.execPath, argv, {
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
      PORCHLIGHT_RECONCILE_INTERVAL_MS: "0",
      LOG_LEVEL: (process.env.E2E_LOG ?? "info") as NodeJS.ProcessEnv["LOG_LEVEL"],
      ...env,
    } as NodeJS.ProcessEnv,
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
    child.once("exit", (code) => reject(new Error(`${name} exited (${code}) before listening:\n${out}`)));
  });
  return { child, webhookUrl, output: () => out };
}
