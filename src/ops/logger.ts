import { type DestinationStream, type Logger, pino } from "pino";

/**
 * Structured logs: one line per event and per job, fixed messages with fields so logs group
 * (`{deliveryId, repo, installation, pr, package, outcome}`). Secrets never reach a line: known
 * secret fields are censored wherever they sit, and token-shaped strings inside messages are masked.
 */
const REDACTED_PATHS = [
  "token",
  "*.token",
  "*.*.token",
  "privateKey",
  "*.privateKey",
  "private_key",
  "*.private_key",
  "webhookSecret",
  "*.webhookSecret",
  "secret",
  "*.secret",
  "password",
  "*.password",
  "authorization",
  "*.authorization",
  "headers.authorization",
  "*.headers.authorization",
  "req.headers.authorization",
  'req.headers["x-hub-signature-256"]',
  "env.PRIVATE_KEY",
  "env.WEBHOOK_SECRET",
  "env.GITHUB_TOKEN",
  "env.GH_TOKEN",
];

/** Token shapes GitHub issues, a PEM block, and Basic/Bearer credentials. */
const SECRET_PATTERNS: RegExp[] = [
  /\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})\b/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\b(Bearer|Basic|token)\s+[A-Za-z0-9._~+/=-]{16,}/gi,
  /x-access-token:[^@\s]+/g,
];

export function maskSecrets(text: string): string {
  let out = text;
  for (const p of SECRET_PATTERNS) out = out.replace(p, "[REDACTED]");
  return out;
}

export function createLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? "info",
      base: { app: "porchlight" },
      redact: { paths: REDACTED_PATHS, censor: "[REDACTED]" },
      hooks: {
        logMethod(args, method) {
          method.apply(
            this,
            args.map((a) => (typeof a === "string" ? maskSecrets(a) : a)) as Parameters<typeof method>,
          );
        },
      },
      formatters: {
        log(object) {
          const err = object.err as Error | undefined;
          if (err instanceof Error) {
            return {
              ...object,
              err: { type: err.name, message: maskSecrets(err.message), stack: maskSecrets(err.stack ?? "") },
            };
          }
          return object;
        },
      },
    },
    options.destination,
  );
}
