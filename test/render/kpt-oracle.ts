/** True when the `kpt` binary (the reference implementation) can be run here (test/util/kpt.ts). */
export { hasKpt } from "../util/kpt.js";
