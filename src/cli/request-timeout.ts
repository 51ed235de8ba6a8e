import { UsageError } from "./io.js";

/** How long one repository may take to answer before a listing goes on without it, unless set. */
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * kubectl's `--request-timeout` (`500ms`, `10s`, `2m`, `1h`, `1m30s`; a bare number is seconds; `0`
 * waits as long as it takes), from the flag, else the operator's PORCHLIGHT_REQUEST_TIMEOUT, else 30 s:
 * the time one repository (its API, its git) has to answer a listing or a readiness check before it is
 * reported as not answering and the others are shown without it. Undefined: no limit.
 */
export function requestTimeoutMs(
  flag: string | undefined,
  env: Record<string, string | undefined>,
): number | undefined {
  const [raw, from] =
    flag !== undefined
      ? [flag, "--request-timeout"]
      : env.PORCHLIGHT_REQUEST_TIMEOUT
        ? [env.PORCHLIGHT_REQUEST_TIMEOUT, "PORCHLIGHT_REQUEST_TIMEOUT"]
        : [undefined, ""];
  if (raw === undefined) return DEFAULT_REQUEST_TIMEOUT_MS;
  const ms = parseDuration(raw.trim());
  if (ms === undefined)
    throw new UsageError(
      `${from} "${raw}" is not a duration: write it as kubectl does, with a unit (500ms, 10s, 2m, 1h; 0 waits as long as it takes)`,
    );
  return ms === 0 ? undefined : ms;
}

function parseDuration(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g))
    total += Number(m[1]) * (UNITS[m[2] ?? ""] ?? 0);
  return Math.round(total);
}
