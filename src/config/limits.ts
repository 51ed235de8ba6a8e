/**
 * What one package, and one job, may cost the bot: files, bytes and resources (YAML documents; the
 * Kptfiles are not counted: a package of exactly 10,000 resources fits the default). Past a limit the job stops early with a failing check that names the limit, the
 * figure found and the setting that raises it; the queue moves on.
 *
 * The defaults come from measured renders (set-labels over ConfigMaps, on a 2-core machine): 10,000
 * resources render in about 1.6 s, 20,000 in about 3 s; CRD-sized YAML renders at 2.5 to 4 MB/s,
 * and parsing alone runs at about 1 MB/s under load. A proposal parses a package up to four times
 * (render, guardrails, and the summary's base and head), so 8 MiB costs well under a minute at worst
 * while the largest real packages seen (operator CRD bundles, 4 to 5 MB) fit.
 */

const LIMIT_NAMES = [
  "packageFiles",
  "packageBytes",
  "packageResources",
  "jobFiles",
  "jobBytes",
  "jobResources",
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
export type Limits = Record<LimitName, number>;

/** The limits a repository may set in `.github/porchlight.yml` (only lower than the operator's). */
const REPO_LIMIT_NAMES = ["packageFiles", "packageBytes", "packageResources"] as const;
export type RepoLimitName = (typeof REPO_LIMIT_NAMES)[number];
export type RepoLimits = Partial<Record<RepoLimitName, number>>;

export const DEFAULT_LIMITS: Limits = {
  packageFiles: 10_000,
  packageBytes: 8 * 1024 * 1024,
  packageResources: 10_000,
  jobFiles: 20_000,
  jobBytes: 16 * 1024 * 1024,
  jobResources: 20_000,
};

/** The operator's environment variable for each limit. */
export const LIMIT_ENV: Record<LimitName, string> = {
  packageFiles: "PORCHLIGHT_MAX_PACKAGE_FILES",
  packageBytes: "PORCHLIGHT_MAX_PACKAGE_BYTES",
  packageResources: "PORCHLIGHT_MAX_PACKAGE_RESOURCES",
  jobFiles: "PORCHLIGHT_MAX_JOB_FILES",
  jobBytes: "PORCHLIGHT_MAX_JOB_BYTES",
  jobResources: "PORCHLIGHT_MAX_JOB_RESOURCES",
};

/** What a limit counts, for messages: `files`, `bytes`, `resources`. */
export function limitUnit(name: LimitName): "files" | "bytes" | "resources" {
  if (name.endsWith("Files")) return "files";
  if (name.endsWith("Bytes")) return "bytes";
  return "resources";
}

export class LimitSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LimitSettingError";
  }
}

/**
 * The operator's limits from the app's environment: each PORCHLIGHT_MAX_* variable that is set
 * replaces its default. A value that is not a positive whole number stops the app at start-up.
 */
export function operatorLimitsFromEnv(env: NodeJS.ProcessEnv): Limits {
  const limits = { ...DEFAULT_LIMITS };
  for (const name of LIMIT_NAMES) {
    const raw = env[LIMIT_ENV[name]]?.trim();
    if (raw === undefined || raw === "") continue;
    const n = /^\d+$/.test(raw.replace(/_/g, "")) ? Number(raw.replace(/_/g, "")) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < 1) {
      throw new LimitSettingError(
        `${LIMIT_ENV[name]}=${raw}: must be a whole number of ${limitUnit(name)} of at least 1; unset it for the default ${DEFAULT_LIMITS[name]}`,
      );
    }
    limits[name] = n;
  }
  return limits;
}

/** The limits one repository's jobs run with: the operator's, lowered (never raised) by the repository. */
export interface EffectiveLimits {
  limits: Limits;
  /** The limits the repository's own setting lowered. */
  lowered: RepoLimitName[];
}

export function effectiveLimits(operator: Limits, repo: RepoLimits | undefined): EffectiveLimits {
  const limits = { ...operator };
  const lowered: RepoLimitName[] = [];
  for (const name of REPO_LIMIT_NAMES) {
    const asked = repo?.[name];
    if (asked !== undefined && asked < operator[name]) {
      limits[name] = asked;
      lowered.push(name);
    }
  }
  return { limits, lowered };
}
