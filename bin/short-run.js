// What bin/porchlight.js does for a command that reads a package, writes it and exits (fn, pkg), shared
// with the build (scripts/code-cache.mjs), which must compile `fn` under the same V8 flags as a run does.
// CommonJS, as all of bin/ (bin/package.json): Node then starts without its ES module loader.
const { readFileSync } = require("node:fs");
const { createRequire } = require("node:module");
const { dirname, resolve } = require("node:path");
const { setFlagsFromString } = require("node:v8");
const vm = require("node:vm");

/**
 * Tunes V8 for a short run; the long-running server keeps V8's defaults. Measured with bench/render.ts
 * (no-function render, CPU and peak memory, at 1,000 and 10,000 resources):
 * - the young generation stays at its first size: left to grow (to 16 MiB semi-spaces) it is a fifth of
 *   a 1,000-resource render's peak memory while the live heap stays under 20 MiB, and scavenging the
 *   larger space costs more, not less (86 → 72 MiB and 0.41 → 0.39 s at 1,000; 185 → 158 MiB and
 *   1.33 → 1.13 s at 10,000);
 * - a function is optimised after four times V8's default budget of calls and loops: most of a short
 *   run's optimising (on another thread, but CPU all the same) was for functions that did not run long
 *   enough to pay it back (0.38 → 0.28 s CPU at 1,000, 1.24 → 1.06 s at 10,000).
 * V8 refuses a code cache made under other flags: a cache is made and used after this has run.
 */
function tuneForShortRun() {
  setFlagsFromString("--semi-space-growth-factor=1");
  // V8 12 and later (Node 22, 24) have no --interrupt-budget (tiering counts invocations there) and
  // print "unrecognized flag" for it on every run: the budget is raised where it was measured, V8 11.
  if (process.versions.v8.startsWith("11.")) setFlagsFromString("--interrupt-budget=540672");
}

/**
 * Runs a CommonJS bundle as Node's `require` would (in strict mode, as the ES modules it was bundled
 * from), compiled from V8's code cache when `cacheFile` holds one made for this bundle, this V8 and
 * these flags; V8 checks that and compiles the source itself when the cache does not fit. Node 20 has no
 * code cache for ES modules nor for `require` (`module.enableCompileCache` is Node 22's), hence
 * `vm.Script`. Returns the bundle's exports and its script (a cache is made from it after a run).
 */
function loadBundle(bundle, cacheFile) {
  const file = resolve(bundle);
  // The build writes the bundles in ASCII (scripts/bundle-cli.mjs): read as latin1 they are the same
  // text, made without UTF-8's decoding (half the read's CPU for rpkg's 3 MB).
  const source = readFileSync(file, "latin1");
  let cachedData;
  try {
    cachedData = cacheFile ? readFileSync(cacheFile) : undefined;
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname) {"use strict";${source}\n})`,
    { filename: file, cachedData },
  );
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  return {
    exports: module.exports,
    script,
    cacheUsed: cachedData !== undefined && !script.cachedDataRejected,
  };
}

exports.tuneForShortRun = tuneForShortRun;
exports.loadBundle = loadBundle;
