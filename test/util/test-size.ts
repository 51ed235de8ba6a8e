/**
 * How large a generated run is. `npm test` runs each property and differential file at a size that
 * keeps every kind of case it generates and the suite within its budget (ten minutes on two cores,
 * CI's machine); `npm run test:full` (PORCHLIGHT_TEST_FULL=1) runs them at their full size, as they
 * ran before the suite was leaned. A file's own variable (PORCHLIGHT_DIFF_CASES, …) wins over both.
 */
const TEST_FULL_ENV = "PORCHLIGHT_TEST_FULL";

/** The size `variable` names, else `full` under PORCHLIGHT_TEST_FULL=1, else `lean`. */
export function testSize(variable: string, lean: number, full: number): number {
  const set = process.env[variable]?.trim();
  if (set !== undefined && set !== "") {
    const n = Number(set);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${variable}=${set}: expected a whole number`);
    return n;
  }
  return process.env[TEST_FULL_ENV] === "1" ? full : lean;
}
