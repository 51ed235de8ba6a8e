import { createPrivateKey } from "node:crypto";
import { z } from "zod";
import { UsageError } from "./io.js";

/**
 * The settings `porchlight serve` reads from its environment, checked before anything starts: a bad
 * one stops the start with one line naming the variable and what it takes — never a stack trace, nor
 * a server that starts and fails at its first webhook. Secrets (PRIVATE_KEY, WEBHOOK_SECRET) are
 * named, never echoed.
 */
const port = z
  .string()
  .regex(/^\d+$/, "must be a port number (0 to 65535; 0: any free port)")
  .refine((v) => Number(v) <= 65_535, "must be a port number (0 to 65535; 0: any free port)");

const SERVE_ENV = z.object({
  APP_ID: z
    .string()
    .trim()
    .regex(/^[1-9]\d*$/, "must be the GitHub App's numeric id (App ID on the app's settings page)")
    .optional(),
  PORT: port.optional(),
  FORGE_PORT: port.optional(),
  GHE_HOST: z
    .string()
    .regex(
      /^[A-Za-z0-9.-]+(:\d+)?$/,
      "must be the GitHub Enterprise host name (and :port), without https:// or a path",
    )
    .optional(),
  GHE_PROTOCOL: z.enum(["http", "https"], { error: "must be https (the default) or http" }).optional(),
  LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
      error: "must be one of fatal, error, warn, info, debug, trace, silent (default info)",
    })
    .optional(),
  REDIS_URL: z
    .string()
    .refine(
      (v) => v.trim() === "" || /^rediss?:$/.test(urlProtocol(v)),
      "must be a redis:// or rediss:// URL",
    )
    .optional(),
});

function urlProtocol(text: string): string {
  try {
    return new URL(text.trim()).protocol;
  } catch {
    return "";
  }
}

/** Variables whose value is a secret: a message names them but does not show what they hold. */
const SECRET = new Set(["PRIVATE_KEY", "WEBHOOK_SECRET"]);

/**
 * Throws a UsageError naming the first variable of `env` serve cannot use, and what it takes;
 * `ignored` (the app's credentials with --demo) are not looked at.
 */
export function checkServeEnv(env: NodeJS.ProcessEnv, ignored: readonly string[] = []): void {
  const given = Object.fromEntries(
    Object.keys(SERVE_ENV.shape)
      .filter((name) => env[name] !== undefined && env[name] !== "" && !ignored.includes(name))
      .map((name) => [name, env[name]]),
  );
  const parsed = SERVE_ENV.safeParse(given);
  if (parsed.success) return;
  const issue = parsed.error.issues[0];
  const name = String(issue?.path[0] ?? "");
  throw envError(name, env[name], issue?.message ?? "is not valid");
}

/**
 * The app's private key as PEM (PRIVATE_KEY holds PEM text or its base64; else the file at
 * PRIVATE_KEY_PATH), checked to be a private key that signs: a wrong one is refused here rather than
 * at the app's first call to GitHub, in a stack trace per webhook.
 */
export function checkPrivateKey(
  text: string,
  from: { name: "PRIVATE_KEY" } | { name: "PRIVATE_KEY_PATH"; path: string },
): string {
  const pem = text.includes("-----BEGIN") ? text : Buffer.from(text, "base64").toString("utf8");
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== "rsa") throw new Error(`a ${key.asymmetricKeyType} key, not RSA`);
  } catch (e) {
    const why = (e as Error).message.split("\n")[0];
    const what =
      from.name === "PRIVATE_KEY"
        ? "must hold the GitHub App's private key (the .pem file's text, or its base64)"
        : "must name the GitHub App's private key file (.pem, as downloaded from the app's settings)";
    throw envError(from.name, "path" in from ? from.path : undefined, `${what}: ${why}`);
  }
  return pem;
}

function envError(name: string, value: string | undefined, message: string): UsageError {
  const shown = value === undefined || SECRET.has(name) ? name : `${name}=${JSON.stringify(value)}`;
  return new UsageError(`porchlight serve: ${shown}: ${message}`);
}
