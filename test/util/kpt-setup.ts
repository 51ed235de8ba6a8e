import { kptGate, whyNoKpt } from "./kpt.js";
import { kubectlGate, whyNoKubectl } from "./kubectl.js";

/**
 * vitest's global setup: with PORCHLIGHT_REQUIRE_KPT (or PORCHLIGHT_REQUIRE_KUBECTL) set (CI), no kpt (no
 * kubectl) fails the run before any test.
 */
export default function setup(): void {
  const refused = kptGate(process.env, whyNoKpt()) ?? kubectlGate(process.env, whyNoKubectl());
  if (refused) throw refused;
}
