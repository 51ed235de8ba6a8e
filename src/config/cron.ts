import { Cron as Croner, type CronOptions } from "croner";

/**
 * Cron windows for rollout schedules and freezes, read by croner: five fields (minute hour day-of-month
 * month day-of-week), each `*`, a number, a range `a-b`, a step (`*` or `a-b`, then `/n`), or a comma list
 * of those; day-of-week 0-7 (0 and 7 are Sunday) or `sun`…`sat`, month 1-12 or `jan`…`dec`; croner's
 * `L` (last day, last weekday of the month: `5#L`), `W` and `#` (nth weekday: `mon#1`) as well. A time is
 * in the window when every field matches its minute in the window's time zone, as Renovate reads its
 * schedules: the expression lists the minutes in which something may happen. The two day fields combine
 * as Vixie cron combines them: when one of them starts with `*` a day must match both, otherwise either.
 */

const FIELDS = [
  { name: "minute", range: "0-59" },
  { name: "hour", range: "0-23" },
  { name: "day of month", range: "1-31" },
  { name: "month", range: "1-12", names: "jan" },
  { name: "day of week", range: "0-7", names: "sun" },
] as const;

export interface Cron {
  /** The five fields, as written. */
  readonly text: string;
  /** Whether a day must match both day fields (one of them starts with `*`), rather than either. */
  readonly domAndDow: boolean;
}

export type ParsedCron = { ok: true; cron: Cron } | { ok: false; message: string };

/** Parses a five-field cron expression; a problem says which field and what is allowed. */
export function parseCron(text: string): ParsedCron {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 5)
    return {
      ok: false,
      message: `must have five fields (minute hour day-of-month month day-of-week), not ${parts.length}: e.g. "* 9-17 * * mon-fri"`,
    };
  const cron: Cron = {
    text: parts.join(" "),
    domAndDow: startsWild(parts[2]) || startsWild(parts[4]),
  };
  if (compiles(cron.text)) return { ok: true, cron };
  for (const [i, field] of FIELDS.entries()) {
    const alone = FIELDS.map((_, j) => (j === i ? parts[i] : "*")).join(" ");
    if (!compiles(alone))
      return {
        ok: false,
        message: `${field.name} field "${parts[i]}" is not valid: use *, a number ${field.range}${"names" in field ? ` or a name (${field.names}…)` : ""}, a range a-b, a step */n, or a comma list`,
      };
  }
  return { ok: false, message: `"${text}" is not a valid cron expression` };
}

/** A field written as `*` or as a step of `*`; croner reads `?` as `*`. */
function startsWild(field = ""): boolean {
  return field.startsWith("*") || field.startsWith("?");
}

function options(cron: Pick<Cron, "domAndDow">, timezone?: string): CronOptions {
  return { mode: "5-part", domAndDow: cron.domAndDow, paused: true, ...(timezone ? { timezone } : {}) };
}

function compiles(text: string): boolean {
  try {
    new Croner(text, options({ domAndDow: false }));
    return true;
  } catch {
    return false;
  }
}

/** Whether `zone` is a time zone this runtime knows (IANA names such as Europe/Berlin, or UTC). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Whether the minute of `at`, in time zone `zone`, is in the window `cron` describes. */
export function cronMatches(cron: Cron, at: Date, zone: string): boolean {
  const minute = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
  return new Croner(cron.text, options(cron, zone)).match(minute);
}
