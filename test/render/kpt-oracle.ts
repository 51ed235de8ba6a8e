import { spawnSync } from "node:child_process";

/** True when the `kpt` binary (the reference implementation) can be run here; says so when it cannot. */
export const hasKpt: boolean = (() => {
  const r = spawnSync("kpt", ["version"], { stdio: "pipe" });
  if (r.status === 0) return true;
  console.warn(
    "kpt is not installed: skipping the tests that compare porchlight with kpt (install kpt v1.0.0-beta.56 to run them)",
  );
  return false;
})();
