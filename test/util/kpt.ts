import { spawnSync } from "node:child_process";

/**
 * The one answer to "can the tests compare with kpt here?". A test that compares porchlight with kpt
 * skips with `KPT_MISSING` as its note where kpt cannot run; CI sets `PORCHLIGHT_REQUIRE_KPT=1`
 * (`.ci/run`), and then a missing kpt fails the run at its start (test/util/kpt-setup.ts) instead of
 * letting the comparisons lapse.
 */
const REQUIRE_KPT_ENV = "PORCHLIGHT_REQUIRE_KPT";
const KPT_VERSION = "v1.0.0-beta.56";

/** Why `kpt` cannot run with this PATH, or undefined when `kpt version` answers. */
export function whyNoKpt(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const r = spawnSync("kpt", ["version"], { stdio: "pipe", env, encoding: "utf8" });
  if (r.status === 0) return undefined;
  const said = r.error?.message ?? (r.stderr.trim() || `exit ${r.status}`);
  return `kpt cannot run here (${said}): install kpt ${KPT_VERSION} to compare porchlight with it`;
}

/** Whether the environment asks for kpt to be there (CI). */
export function kptRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env[REQUIRE_KPT_ENV]?.trim();
  return v !== undefined && v !== "" && v !== "0";
}

/** The start of a test run: an Error naming the variable when kpt is required and missing. */
export function kptGate(env: NodeJS.ProcessEnv, why: string | undefined): Error | undefined {
  if (why === undefined || !kptRequired(env)) return undefined;
  return new Error(
    `${REQUIRE_KPT_ENV}=${env[REQUIRE_KPT_ENV]}: the comparisons with kpt must run, but ${why}`,
  );
}

/** Why kpt cannot run in this test process (asked once), or undefined. */
export const KPT_MISSING: string | undefined = whyNoKpt();
export const hasKpt: boolean = KPT_MISSING === undefined;
if (KPT_MISSING) console.warn(`skipping the comparisons with kpt: ${KPT_MISSING}`);

/** In a test: skips the rest of it, with the reason as its note, where kpt cannot run. */
export function skipWithoutKpt(ctx: { skip: (condition: boolean, note?: string) => void }): void {
  ctx.skip(KPT_MISSING !== undefined, KPT_MISSING);
}
