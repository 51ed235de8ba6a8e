import {
  type EffectiveLimits,
  LIMIT_ENV,
  type LimitName,
  type Limits,
  limitUnit,
  type RepoLimitName,
} from "../config/limits.js";
import { CONFIG_PATH } from "../config/parse.js";

/** A package (or a job's packages together) past one of the limits. */
export interface LimitExceeded {
  name: LimitName;
  found: number;
  max: number;
}

/** What a job has read so far, for the per-job limits. */
export interface JobUsage {
  files: number;
  bytes: number;
  resources: number;
}

export const NO_USAGE: JobUsage = { files: 0, bytes: 0, resources: 0 };

/**
 * The first limit a package's files break, counted from the git tree (names and sizes) before any
 * file is read: its own files and bytes, then the job's with this package added.
 */
export function sizeExceeded(
  files: readonly { size: number }[],
  limits: Limits,
  used: JobUsage = NO_USAGE,
): LimitExceeded | undefined {
  return countExceeded({ files: files.length, bytes: files.reduce((n, f) => n + f.size, 0) }, limits, used);
}

/** sizeExceeded for a package already counted: its number of files and their bytes together. */
export function countExceeded(
  size: { files: number; bytes: number },
  limits: Limits,
  used: JobUsage = NO_USAGE,
): LimitExceeded | undefined {
  const { files, bytes } = size;
  const checks: [LimitName, number][] = [
    ["packageFiles", files],
    ["packageBytes", bytes],
    ["jobFiles", used.files + files],
    ["jobBytes", used.bytes + bytes],
  ];
  for (const [name, found] of checks) if (found > limits[name]) return { name, found, max: limits[name] };
  return undefined;
}

/** The most resources the next package may hold: its own limit, or what is left of the job's. */
export function resourceAllowance(
  limits: Limits,
  used: JobUsage = NO_USAGE,
): { name: LimitName; max: number } {
  const left = limits.jobResources - used.resources;
  return left < limits.packageResources
    ? { name: "jobResources", max: Math.max(0, left) }
    : { name: "packageResources", max: limits.packageResources };
}

/** A render's `tooManyResources`, named as the limit it broke. */
export function resourcesExceeded(
  found: { found: number; max: number },
  allowance: { name: LimitName },
  limits: Limits,
  used: JobUsage = NO_USAGE,
): LimitExceeded {
  return allowance.name === "jobResources"
    ? { name: "jobResources", found: used.resources + found.found, max: limits.jobResources }
    : { name: "packageResources", found: found.found, max: limits.packageResources };
}

/**
 * The message for the check run, in the project's `where: problem; what to do` form: the limit, the
 * figure found, and the setting that raises it (the repository's own, when it lowered the limit).
 */
export function limitMessage(pkg: string, e: LimitExceeded, effective: EffectiveLimits): string {
  const unit = limitUnit(e.name);
  const perJob = e.name.startsWith("job");
  const what = perJob ? "the packages this job reads hold" : "holds";
  const limit = `the limit of ${amount(e.max, unit)} per ${perJob ? "job" : "package"} (\`${e.name}\`)`;
  const lowered = effective.lowered.includes(e.name as RepoLimitName);
  const raise = lowered
    ? `this repository set it: raise \`limits.${e.name}\` in ${CONFIG_PATH}`
    : `the app's operator can raise it with ${LIMIT_ENV[e.name]}`;
  const fix = perJob ? "propose fewer packages at once" : "split the package into smaller ones";
  return `\`${pkg}\`: ${what} ${amount(e.found, unit)}, more than ${limit}; ${fix}, or ${raise}`;
}

function amount(n: number, unit: "files" | "bytes" | "resources"): string {
  const count = `${n.toLocaleString("en-US")} ${unit}`;
  return unit === "bytes" && n >= 1024 * 1024 ? `${count} (${(n / (1024 * 1024)).toFixed(1)} MiB)` : count;
}
