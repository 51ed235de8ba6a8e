import { readFileSync } from "node:fs";
import {
  applyForgeConfig,
  type ForgeConfig,
  ForgeConfigError,
  formatSeed,
  parseFaultFlag,
  parseForgeConfig,
  seed,
  startForge,
} from "@porchlight/forge";
import { type CliCommand, type CliIO, UsageError } from "./io.js";
import { parseCommandArgs } from "./options.js";
import { rememberedForgePort, rememberForgePort } from "./remembered-ports.js";
import { waitForSignal } from "./signals.js";

const USAGE = `Usage:
  porchlight forge [--port P] [--data DIR] [--webhook-url URL] [--webhook-secret S] [--seed]
                   [--config FILE] [--fault SPEC]... [--rate-limit N]
      Run the embedded forge (GitHub REST API, git over HTTP, webhooks) until interrupted.
  porchlight forge seed [--data DIR] [--port P] [--org NAME]
      Create an app, an installation, an example blueprint and two deployment repositories,
      and users with PATs; print the app's environment.

Faults and rate limits (to see how a client copes):
  --fault "METHOD ROUTE key=value…"   inject a fault into requests of a route template, e.g.
        --fault "POST /repos/{owner}/{repo}/pulls status=502 times=1"
        --fault "GET /repos/{owner}/{repo} delayMs=2000"
        --fault "POST /{owner}/{repo}.git/git-receive-pack status=500"
        --fault "POST /repos/{owner}/{repo}/git/refs hang"   (held until the forge stops)
      keys: status, message, delayMs, times (default: every request), and the flags reset, hang.
  --rate-limit N    requests per hour per installation or user (default 5000; 403 when used up).
  --config FILE     the same in YAML:
        faults:
          - {route: "/repos/{owner}/{repo}/pulls", method: POST, status: 502, times: 1}
        rateLimit:
          limit: 5000          # per hour and principal
          status: 403          # or 429
          secondary: {everyNthMutation: 10, perMinute: 80, retryAfter: 1, status: 403}
`;

const OPTIONS = {
  port: { type: "string" },
  data: { type: "string" },
  "webhook-url": { type: "string" },
  "webhook-secret": { type: "string" },
  org: { type: "string" },
  seed: { type: "boolean" },
  config: { type: "string" },
  fault: { type: "string", multiple: true },
  "rate-limit": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function portOf(v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError(`porchlight forge: --port must be 0-65535, got "${v}"`);
  return n;
}

/** Faults and rate limits from --config, then --fault and --rate-limit; a bad one is a UsageError. */
function forgeControls(values: { config?: string; fault?: string[]; "rate-limit"?: string }): ForgeConfig {
  try {
    const config: ForgeConfig = values.config ? parseForgeConfig(readText(values.config), values.config) : {};
    const faults = [...(config.faults ?? []), ...(values.fault ?? []).map(parseFaultFlag)];
    const limit = values["rate-limit"];
    if (limit !== undefined && !/^[1-9]\d*$/.test(limit))
      throw new ForgeConfigError(`--rate-limit must be a whole number of requests per hour, got "${limit}"`);
    return {
      ...config,
      ...(faults.length ? { faults } : {}),
      ...(limit !== undefined ? { rateLimit: { ...config.rateLimit, limit: Number(limit) } } : {}),
    };
  } catch (e) {
    if (e instanceof ForgeConfigError) throw new UsageError(`porchlight forge: ${e.message}`);
    throw e;
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    throw new ForgeConfigError(
      `${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
}

/** `porchlight forge` and `porchlight forge seed`. */
export const forgeCommand: CliCommand = async (args: string[], io: CliIO) => {
  const { values, positionals } = parseCommandArgs("forge", args, OPTIONS, USAGE);
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const [sub, ...extra] = positionals;
  if (extra.length || (sub !== undefined && sub !== "seed")) {
    throw new UsageError(`porchlight forge: unknown argument "${positionals.join(" ")}"\n\n${USAGE}`);
  }
  const dataDir = values.data ?? io.env.PORCHLIGHT_FORGE_DATA;
  if (!dataDir)
    throw new UsageError(
      `porchlight forge: --data DIR is required (where repositories and state live)\n\n${USAGE}`,
    );
  // without --port, the port this data folder's forge had last time (clones and the app's GHE_HOST keep working)
  const served = portOf(values.port, rememberedForgePort(dataDir, "forge") ?? 3000);
  // `seed` seeds on a free port of its own and prints where `forge --data DIR` will serve
  const port = sub === "seed" ? 0 : served;
  const controls = forgeControls(values);
  const forge = await startForge({
    port,
    dataDir,
    ...(values["webhook-url"] ? { webhookUrl: values["webhook-url"] } : {}),
    ...(values["webhook-secret"] ? { webhookSecret: values["webhook-secret"] } : {}),
  });
  applyForgeConfig(controls, forge);
  const shown = sub === "seed" ? `http://127.0.0.1:${served}` : forge.url;
  rememberForgePort(dataDir, shown);
  try {
    if (values["webhook-url"]) forge.setWebhookUrl(values["webhook-url"]);
    if (sub === "seed" || values.seed) {
      const result = await seed(forge, values.org ? { org: values.org } : {});
      io.stdout(formatSeed(result, shown, forge.installationToken(result.installationId)));
      if (sub === "seed") return 0;
    }
    io.stdout(`porchlight forge listening on ${forge.url} (data: ${dataDir}); Ctrl-C to stop\n`);
    await waitForSignal();
    return 0;
  } finally {
    await forge.stop();
  }
};
