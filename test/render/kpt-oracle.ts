import { spawnSync } from "node:child_process";

/** True when the `kpt` binary (the reference implementation) can be run here. */
export const hasKpt: boolean = (() => {
  const r = spawnSync("kpt", ["version"], { stdio: "pipe" });
  return r.status === 0;
})();
