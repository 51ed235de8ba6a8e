/**
 * Cron windows for rollout schedules and freezes: five fields (minute hour day-of-month month
 * day-of-week), each `*`, a number, a range `a-b`, a step (`*` or `a-b`, then `/n`), or a comma list of those;
 * day-of-week 0-7 (0 and 7 are Sunday) or `sun`…`sat`, month 1-12 or `jan`…`dec`. A time is in the
 * window when every field matches it in the window's time zone, as Renovate reads its schedules: the
 * expression lists the minutes in which something may happen. When both day fields are restricted, a day
 * matching either counts (cron's rule).
 */

const FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  {
    name: "month",
    min: 1,
    max: 12,
    names: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
    first: 1,
  },
  { name: "day of week", min: 0, max: 7, names: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"], first: 0 },
] as const;

export interface Cron {
  /** Per field, the values it allows. */
  sets: ReadonlySet<number>[];
  /** Whether day of month and day of week were restricted (not `*`). */
  domRestricted: boolean;
  dowRestricted: boolean;
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
  const sets: Set<number>[] = [];
  for (const [i, field] of FIELDS.entries()) {
    const set = new Set<number>();
    for (const item of (parts[i] as string).split(",")) {
      const m = /^(\*|[a-z0-9]+(?:-[a-z0-9]+)?)(?:\/(\d+))?$/i.exec(item);
      const bad = () => ({
        ok: false as const,
        message: `${field.name} field "${parts[i]}" is not valid: use *, a number ${field.min}-${field.max}${"names" in field ? ` or a name (${field.names[0]}…)` : ""}, a range a-b, a step */n, or a comma list`,
      });
      if (!m) return bad();
      let lo: number = field.min;
      let hi: number = field.max;
      if (m[1] !== "*") {
        const [a, b] = (m[1] as string).split("-");
        const va = value(a as string, field);
        const vb = b === undefined ? (m[2] ? field.max : va) : value(b, field);
        if (va === undefined || vb === undefined || va > vb) return bad();
        [lo, hi] = [va, vb];
      }
      const step = m[2] ? Number(m[2]) : 1;
      if (step < 1) return bad();
      for (let v = lo; v <= hi; v += step) set.add(v);
    }
    sets.push(set);
  }
  const dow = sets[4] as Set<number>;
  if (dow.has(7)) dow.add(0);
  return {
    ok: true,
    cron: { sets, domRestricted: parts[2] !== "*", dowRestricted: parts[4] !== "*" },
  };
}

function value(
  text: string,
  field: { min: number; max: number; names?: readonly string[]; first?: number },
): number | undefined {
  const named = field.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return named + (field.first ?? 0);
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n >= field.min && n <= field.max ? n : undefined;
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
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    minute: "numeric",
    hour: "numeric",
    day: "numeric",
    month: "numeric",
    weekday: "short",
  }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  const weekday = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].indexOf(get("weekday"));
  const [minute, hour, dom, month, dow] = cron.sets as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  if (
    !minute.has(Number(get("minute"))) ||
    !hour.has(Number(get("hour"))) ||
    !month.has(Number(get("month")))
  )
    return false;
  const domOk = dom.has(Number(get("day")));
  const dowOk = dow.has(weekday);
  if (cron.domRestricted && cron.dowRestricted) return domOk || dowOk;
  return domOk && dowOk;
}
