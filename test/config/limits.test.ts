import { describe, expect, it } from "vitest";
import {
  DEFAULT_LIMITS,
  effectiveLimits,
  LimitSettingError,
  operatorLimitsFromEnv,
} from "../../src/config/limits.js";
import { parseRepoConfig } from "../../src/config/parse.js";
import { resolveConfig } from "../../src/config/resolve.js";

describe("package and job limits", () => {
  it("default to 10,000 files, 8 MiB and 10,000 resources a package, twice that a job", () => {
    expect(operatorLimitsFromEnv({})).toEqual({
      packageFiles: 10_000,
      packageBytes: 8_388_608,
      packageResources: 10_000,
      jobFiles: 20_000,
      jobBytes: 16_777_216,
      jobResources: 20_000,
    });
  });

  it("are raised or lowered by the operator's PORCHLIGHT_MAX_* variables", () => {
    const limits = operatorLimitsFromEnv({
      PORCHLIGHT_MAX_PACKAGE_RESOURCES: "50000",
      PORCHLIGHT_MAX_JOB_BYTES: "1_000_000",
    });
    expect(limits).toEqual({ ...DEFAULT_LIMITS, packageResources: 50_000, jobBytes: 1_000_000 });
  });

  it.each(["0", "-3", "lots", "1.5", "1e6"])("refuse %s, naming the variable and the default", (value) => {
    expect(() => operatorLimitsFromEnv({ PORCHLIGHT_MAX_PACKAGE_FILES: value })).toThrow(LimitSettingError);
    expect(() => operatorLimitsFromEnv({ PORCHLIGHT_MAX_PACKAGE_FILES: value })).toThrow(
      `PORCHLIGHT_MAX_PACKAGE_FILES=${value}: must be a whole number of files of at least 1; unset it for the default 10000`,
    );
  });

  it("a repository lowers its package limits, and asking for more than the app allows changes nothing", () => {
    const parsed = parseRepoConfig("limits:\n  packageResources: 500\n  packageBytes: 999999999\n");
    expect(parsed.ok).toBe(true);
    const config = resolveConfig(undefined, parsed.ok ? parsed.config : undefined);
    expect(effectiveLimits(DEFAULT_LIMITS, config.limits)).toEqual({
      limits: { ...DEFAULT_LIMITS, packageResources: 500 },
      lowered: ["packageResources"],
    });
  });

  it("a repository cannot set the operator's per-job limits, nor a limit below 1", () => {
    const parsed = parseRepoConfig("limits:\n  jobBytes: 10\n  packageFiles: 0\n");
    expect(parsed.ok ? [] : parsed.problems.map((p) => `${p.line}: ${p.field}: ${p.message}`)).toEqual([
      "2: limits.jobBytes: unknown field `jobBytes`; known fields: packageFiles, packageBytes, packageResources",
      "3: limits.packageFiles: must be at least 1",
    ]);
  });
});
