/** The CLI IO that records what a command prints (test/util/cli-io.ts). */
export { captureIO } from "../util/cli-io.js";
