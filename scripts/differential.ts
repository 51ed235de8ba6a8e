/**
 * `npm run differential -- MODE …`: porchlight against kpt v1.0.0-beta.56, byte for byte.
 *   files DIR_OR_GIT_URL   every YAML file wrapped alone in a package, rendered (scripts/files-diff.ts)
 *   get GIT_DIR_OR_URL     every package directory of a repository fetched (scripts/get-diff.ts)
 *   update KPT_GIT_DIR [KUSTOMIZE_GIT_DIR]   kpt's and kyaml's merge tables updated (scripts/update-tables-diff.ts)
 */
import { main as filesMain } from "./files-diff.js";
import { getMain } from "./get-diff.js";
import { updateMain } from "./update-tables-diff.js";

const MODES: Record<string, (args: readonly string[]) => Promise<number>> = {
  files: (args) => filesMain(["files", ...args]),
  get: getMain,
  update: updateMain,
};

const [mode, ...rest] = process.argv.slice(2);
const run = mode ? MODES[mode] : undefined;
if (!run) {
  process.stderr.write(`usage: npm run differential -- ${Object.keys(MODES).join("|")} …\n`);
  process.exitCode = 2;
} else {
  run(rest).then((code) => {
    process.exitCode = code;
  });
}
