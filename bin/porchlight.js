#!/usr/bin/env node
// Thin entry point: no logic here. The CLI lives in src/cli and is built to dist/ by `npm run build`
// (run automatically by `npm ci` / `npm install` through the `prepare` script), then bundled into
// dist/bundle (scripts/bundle-cli.mjs), which starts in half the time. CommonJS (bin/package.json):
// `porchlight fn` then runs without Node's ES module loader.
const { join } = require("node:path");
const { loadBundle, tuneForShortRun } = require("./short-run.js");

const command = process.argv[2];
// `porchlight fn` runs from a CommonJS bundle of its own (the CLI with `fn` only), `rpkg` and `repo` from
// another, each compiled from the code cache the build made for it by running it (scripts/code-cache.mjs,
// scripts/rpkg-code-cache.mjs); every other command from the ES module bundle.
const own = new Map([
  ["fn", "fn.cjs"],
  ["rpkg", "rpkg.cjs"],
  ["repo", "rpkg.cjs"],
]).get(command);
if (own || command === "pkg") tuneForShortRun();

// The environment as a plain object: the `yaml` parser reads process.env once per token (its
// LOG_TOKENS switch), and Node's process.env is a slow native lookup — a tenth of a render's parse.
// Child processes still get it (they are given process.env when they start).
process.env = { ...process.env };

const bundle = join(__dirname, "..", "dist", "bundle");
// A checkout that was never installed (or whose build was removed): say what to run, not a stack.
if (!require("node:fs").existsSync(join(bundle, "main.js"))) {
  const folder = join(__dirname, "..");
  process.stderr.write(
    `porchlight: not built yet: run \`npm ci\` in ${folder} (it installs the dependencies and builds dist/, about half a minute), then run this again\n`,
  );
  process.exit(1);
}
// A bundle's own code cache, for the Node that runs when the build's does not fit it (another V8), is
// kept in the user's cache directory once the command has finished (bin/short-run.js), named by what
// the command does: `rpkg get`, `rpkg get --help`.
const run = () => {
  const [group, verb] = process.argv.slice(2, 4).map((a) => (a && /^[\w-]+$/.test(a) ? a : ""));
  const help = process.argv.slice(3).some((a) => a === "--help" || a === "-h");
  return [group, verb.startsWith("-") ? "" : verb, help ? "--help" : ""].filter(Boolean).join(" ");
};
let loaded;
const cli = own
  ? new Promise((done) => {
      loaded = loadBundle(join(bundle, own), join(bundle, `${own}.cache`), { env: process.env, run: run() });
      done(loaded.exports);
    })
  : import("../dist/bundle/main.js");

cli
  .then(({ main }) => main(process.argv.slice(2)))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`porchlight: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  )
  .then(() => loaded?.keep());
