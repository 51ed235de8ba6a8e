// npm's `prepare`: builds dist/ after `npm ci` / `npm install` (npm_command "ci", "install"). npm also
// runs it when `npx porchlight` is typed in this folder: npx links the folder into its own cache
// (~/.npm/_npx/<hash>, once per folder) and prepares it there, silently — a whole build (half a minute
// to more than a minute, 1 GB) before the first command of a fresh clone ran, for dist/ that `npm ci`
// had just built. For npx (npm_command "exec") with dist/ built, there is nothing to do.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const built = existsSync(new URL("../dist/bundle/main.js", import.meta.url));
if (process.env.npm_command === "exec" && built) process.exit(0);
const npm = process.env.npm_execpath;
const run = npm
  ? spawnSync(process.execPath, [npm, "run", "build"], { stdio: "inherit" })
  : spawnSync("npm", ["run", "build"], { stdio: "inherit", shell: process.platform === "win32" });
process.exit(run.status ?? 1);
