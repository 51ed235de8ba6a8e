import { kptGate, whyNoKpt } from "./kpt.js";

/** vitest's global setup: with PORCHLIGHT_REQUIRE_KPT set (CI), no kpt fails the run before any test. */
export default function setup(): void {
  const refused = kptGate(process.env, whyNoKpt());
  if (refused) throw refused;
}
