// What bin/porchlight.js does for a command that reads a package, writes it and exits (fn, pkg), shared
// with the build (scripts/code-cache.mjs), which must compile `fn` under the same V8 flags as a run does.
// CommonJS, as all of bin/ (bin/package.json): Node then starts without its ES module loader.
const fs = require("node:fs");
const { readFileSync } = fs;
const { createRequire } = require("node:module");
const { basename, dirname, isAbsolute, join, resolve } = require("node:path");
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
  for (const flag of shortRunFlags()) setFlagsFromString(flag);
}

/** The V8 flags tuneForShortRun sets, for this V8. */
function shortRunFlags() {
  // V8 12 and later (Node 22, 24) have no --interrupt-budget (tiering counts invocations there) and
  // print "unrecognized flag" for it on every run: the budget is raised where it was measured, V8 11.
  return process.versions.v8.startsWith("11.")
    ? ["--semi-space-growth-factor=1", "--interrupt-budget=540672"]
    : ["--semi-space-growth-factor=1"];
}

/**
 * Runs a CommonJS bundle as Node's `require` would (in strict mode, as the ES modules it was bundled
 * from), compiled from V8's code cache when one fits: V8 checks that a cache was made for this bundle's
 * length, this V8 and these flags, and compiles the source itself when it does not fit. The cache is the
 * user's own when `own` is given and one was kept for this bundle and this Node (see ownCodeCache), else
 * `cacheFile`, the one the build made with the Node that ran it. Node 20 has no code cache for ES modules
 * nor for `require` (`module.enableCompileCache` is Node 22's), hence `vm.Script`. Returns the bundle's
 * exports, its script (a cache is made from it after a run), whether a cache was used, and `keep`, to be
 * called once the command has finished: it keeps a cache for this Node in the user's cache directory
 * when none fitted, or when the one used was made by other commands than this run's.
 *
 * `own`: `env` (where the user's cache directory is) and `run`, a name of what this run does (`rpkg
 * get`) — a kept cache lists the runs it was made from.
 */
function loadBundle(bundle, cacheFile, own) {
  const file = resolve(bundle);
  // The build writes the bundles in ASCII (scripts/bundle-cli.mjs): read as latin1 they are the same
  // text, made without UTF-8's decoding (half the read's CPU for rpkg's 3 MB).
  const source = readFileSync(file, "latin1");
  const mine = own ? ownCodeCache(file, own.env) : undefined;
  const kept = mine?.read();
  const cachedData = kept?.data ?? readOrNothing(cacheFile);
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname) {"use strict";${source}\n})`,
    { filename: file, cachedData },
  );
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  const cacheUsed = cachedData !== undefined && !script.cachedDataRejected;
  const keep = () => {
    if (!mine || !own.run) return;
    // the build's cache fits: nothing to keep; the user's fits and was made by this run's command too
    if (cacheUsed && (!kept || kept.runs.includes(own.run))) return;
    mine.write(script, cacheUsed && kept ? [...kept.runs, own.run] : [own.run]);
  };
  return { exports: module.exports, script, cacheUsed, keep };
}

function readOrNothing(file) {
  try {
    return file ? readFileSync(file) : undefined;
  } catch {
    return undefined;
  }
}

/** What a kept code cache's file starts with: its format, then its key and its runs, a line each. */
const MAGIC = "porchlight code cache 1\n";

/**
 * The user's own code cache of `bundle` for the Node that runs: a cache the build made is refused by
 * another V8 (the build's Node 20, a run's Node 24), and then every function is compiled from source in
 * every run. Kept under `$XDG_CACHE_HOME/porchlight/code` (`~/.cache/porchlight/code`; none when
 * neither is set, as cli/disk-cache.ts), one file per bundle, V8 and key: the key names the bundle's
 * size and modification time (a rebuilt bundle reads no cache of the one before: V8 itself checks only
 * the source's length), this Node, its V8 and architecture, and the flags V8 runs under (the command
 * line's, NODE_OPTIONS, tuneForShortRun's), and the file starts with the key, so a file of another key,
 * another format or cut short is not read. Written whole (a temporary file renamed into place), the
 * directory the user's alone; a failure to read or write is ignored: the command runs as without it.
 */
function ownCodeCache(file, env) {
  const xdg = env.XDG_CACHE_HOME;
  const root =
    xdg && isAbsolute(xdg)
      ? join(xdg, "porchlight")
      : env.HOME
        ? join(env.HOME, ".cache", "porchlight")
        : undefined;
  if (!root) return undefined;
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return undefined;
  }
  const node = `${process.version} ${process.versions.v8} ${process.arch}`;
  const flags = [
    ...process.execArgv.filter((a) => a.startsWith("--")),
    env.NODE_OPTIONS ?? "",
    ...shortRunFlags(),
  ].join(" ");
  const build = `${basename(file)} ${stat.size} ${stat.mtimeMs}`;
  const key = [build, node, flags].join(" | ");
  const dir = join(root, "code");
  // a name per bundle, V8 and flags (runs under other flags, --cpu-prof say, keep a file of their own),
  // then the build's: the file of an earlier build is replaced
  const prefix = `${basename(file)}-${process.versions.v8.replace(/[^\w.-]/g, "_")}-${fnv1a(`${node} ${flags}`)}-`;
  const path = join(dir, `${prefix}${fnv1a(key)}.cache`);
  return {
    read() {
      const data = readOrNothing(path);
      if (!data) return undefined;
      const head = MAGIC.length;
      const keyEnd = data.indexOf(10, head);
      const runsEnd = keyEnd < 0 ? -1 : data.indexOf(10, keyEnd + 1);
      if (runsEnd < 0 || data.toString("latin1", 0, head) !== MAGIC) return undefined;
      if (data.toString("utf8", head, keyEnd) !== key) return undefined;
      const runs = data
        .toString("utf8", keyEnd + 1, runsEnd)
        .trimEnd()
        .split("\t")
        .filter(Boolean);
      return { runs, data: data.subarray(runsEnd + 1) };
    },
    write(script, runs) {
      const temporary = `${path}.${process.pid}.tmp`;
      try {
        const header = `${MAGIC}${key}\n${runs.join("\t")}`;
        // the cache from an offset of a multiple of 8, as V8 lays it out
        const pad = (8 - ((Buffer.byteLength(header) + 1) % 8)) % 8;
        const data = Buffer.concat([Buffer.from(`${header}${" ".repeat(pad)}\n`), script.createCachedData()]);
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        fs.writeFileSync(temporary, data, { mode: 0o600 });
        fs.renameSync(temporary, path);
        // the caches of this bundle, V8 and flags for another build go
        for (const name of fs.readdirSync(dir))
          if (name.startsWith(prefix) && name.endsWith(".cache") && join(dir, name) !== path)
            fs.rmSync(join(dir, name), { force: true });
      } catch {
        try {
          fs.rmSync(temporary, { force: true });
        } catch {}
      }
    },
  };
}

/** FNV-1a, 32 bits, in hex: a short name for a key (the file holds the key itself). */
function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

exports.tuneForShortRun = tuneForShortRun;
exports.loadBundle = loadBundle;
