import { parse as parseYaml } from "yaml";
import { z } from "zod";
import type { FaultSpec } from "./faults.js";
import type { RateLimiter, SecondaryLimit } from "./ratelimit.js";

const METHODS = ["GET", "POST", "PATCH", "PUT", "DELETE"] as const;

const Fault = z
  .object({
    route: z.string().startsWith("/", { message: "a route template starts with /" }),
    method: z.enum(METHODS).optional(),
    status: z.number().int().min(100).max(599).optional(),
    message: z.string().optional(),
    delayMs: z.number().int().min(0).optional(),
    reset: z.boolean().optional(),
    hang: z.boolean().optional(),
    times: z.number().int().min(1).optional(),
  })
  .strict();

const LimitStatus = z.union([z.literal(403), z.literal(429)]);

const ForgeConfigSchema = z
  .object({
    faults: z.array(Fault).optional(),
    rateLimit: z
      .object({
        limit: z.number().int().min(1).optional(),
        status: LimitStatus.optional(),
        secondary: z
          .object({
            everyNthMutation: z.number().int().min(1).optional(),
            perMinute: z.number().int().min(1).optional(),
            retryAfter: z.number().int().min(0).optional(),
            status: LimitStatus.optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export type ForgeConfig = z.infer<typeof ForgeConfigSchema>;
type FaultConfig = z.infer<typeof Fault>;

/** A forge configuration that could not be read: where, and what is wrong. */
export class ForgeConfigError extends Error {}

/**
 * The forge's test controls from a YAML file (`porchlight forge --config FILE`): faults to inject and
 * rate limits, as the code sets them (`forge.faults.add`, `forge.rateLimit.primary/secondary`).
 */
export function parseForgeConfig(text: string, file: string): ForgeConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (e) {
    throw new ForgeConfigError(`${file}: not valid YAML: ${(e as Error).message}`);
  }
  const result = ForgeConfigSchema.safeParse(raw);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => {
    const where = i.path
      .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
      .join("")
      .replace(/^\./, "");
    return `${file}: ${where || "(top level)"}: ${i.message}`;
  });
  throw new ForgeConfigError(
    `${lines.join("\n")}\n(known fields: faults[].route, method, status, message, delayMs, reset, hang, times; rateLimit.limit, status, secondary.everyNthMutation, perMinute, retryAfter, status)`,
  );
}

/**
 * `--fault "METHOD ROUTE key=value…"`, e.g. `POST /repos/{owner}/{repo}/pulls status=502 times=1` or
 * `GET /repos/{owner}/{repo} delayMs=2000`; flags (`reset`, `hang`) stand alone.
 */
export function parseFaultFlag(flag: string): FaultConfig {
  const words = flag.trim().split(/\s+/);
  const spec: Record<string, unknown> = {};
  const first = words[0]?.toUpperCase();
  if (first && (METHODS as readonly string[]).includes(first)) {
    spec.method = first;
    words.shift();
  }
  spec.route = words.shift();
  for (const w of words) {
    const [key, value] = w.split("=", 2) as [string, string | undefined];
    if (value === undefined) spec[key] = true;
    else spec[key] = /^\d+$/.test(value) ? Number(value) : value;
  }
  return parseForgeConfig(JSON.stringify({ faults: [spec] }), `--fault "${flag}"`).faults?.[0] as FaultConfig;
}

/** Applies a configuration to a running forge's faults and rate limiter. */
export function applyForgeConfig(
  config: ForgeConfig,
  target: { faults: { add(spec: FaultSpec): unknown }; rateLimit: RateLimiter },
): void {
  for (const f of config.faults ?? []) target.faults.add(f as FaultSpec);
  const rl = config.rateLimit;
  if (!rl) return;
  target.rateLimit.primary({
    ...(rl.limit !== undefined ? { limit: rl.limit } : {}),
    ...(rl.status !== undefined ? { status: rl.status } : {}),
  });
  if (rl.secondary) target.rateLimit.secondary(rl.secondary as SecondaryLimit);
}
