import { startForge } from "../forge/index.js";
import { formatSeed, seed } from "../forge/seed.js";
import { type CliCommand, type CliIO, UsageError } from "./io.js";
import { parseCommandArgs } from "./options.js";
import { waitForSignal } from "./signals.js";

const USAGE = `Usage:
  porchlight forge [--port P] [--data DIR] [--webhook-url URL] [--webhook-secret S] [--seed]
      Run the embedded forge (GitHub REST API, git over HTTP, webhooks) until interrupted.
  porchlight forge seed [--data DIR] [--port P] [--org NAME]
      Create an app, an installation, an example blueprint and two deployment repositories,
      and users with PATs; print the app's environment.
`;

const OPTIONS = {
  port: { type: "string" },
  data: { type: "string" },
  "webhook-url": { type: "string" },
  "webhook-secret": { type: "string" },
  org: { type: "string" },
  seed: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function portOf(v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError(`porchlight forge: --port must be 0-65535, got "${v}"`);
  return n;
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
  const port = portOf(values.port, sub === "seed" ? 0 : 3000);
  const forge = await startForge({
    port,
    dataDir,
    ...(values["webhook-url"] ? { webhookUrl: values["webhook-url"] } : {}),
    ...(values["webhook-secret"] ? { webhookSecret: values["webhook-secret"] } : {}),
  });
  try {
    if (values["webhook-url"]) forge.setWebhookUrl(values["webhook-url"]);
    if (sub === "seed" || values.seed) {
      const result = await seed(forge, values.org ? { org: values.org } : {});
      const shown = sub === "seed" ? `http://127.0.0.1:${values.port ?? 3000}` : forge.url;
      io.stdout(formatSeed(result, shown));
      if (sub === "seed") return 0;
    }
    io.stdout(`porchlight forge listening on ${forge.url} (data: ${dataDir}); Ctrl-C to stop\n`);
    await waitForSignal();
    return 0;
  } finally {
    await forge.stop();
  }
};
