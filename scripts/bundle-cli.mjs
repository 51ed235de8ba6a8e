// The CLI as bin/porchlight.js runs it: dist/cli (tsc's output) bundled into dist/bundle, with the
// packages it reads YAML, schemas and globs with. A process that starts, renders and exits spends a
// large part of its time loading modules (some 190 files for `porchlight fn render`, `yaml` and `zod`
// among them): a few files load in half the time. Each command group stays a chunk of its own, loaded
// when run. The other dependencies (the GitHub client, the queue, logging) stay in node_modules: some
// read files beside their own code. The embedded forge (packages/forge, built before tsc) is a workspace
// package, no dependency of an installed porchlight: it is bundled in, for `serve` and `forge`.
// Run by `npm run build`, after tsc.
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const root = join(import.meta.dirname, "..");
const BUNDLED = new Set(["yaml", "zod", "minimatch", "node-diff3"]);
const { dependencies } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const external = Object.keys(dependencies)
  .filter((name) => !BUNDLED.has(name))
  .flatMap((name) => [name, `${name}/*`]);

/**
 * yaml's ES module build (the one it gives browsers; in Node it reads and writes as its CommonJS build
 * does): bundled as CommonJS, every call of one of its functions would go through a getter.
 */
const yamlModuleBuild = {
  name: "yaml-module-build",
  setup(b) {
    b.onResolve({ filter: /^yaml$/ }, () => ({
      path: join(root, "node_modules", "yaml", "browser", "index.js"),
    }));
  },
};

/**
 * zod's messages in 60-odd languages (`z.locales`, half of what zod's chunk holds), which porchlight never
 * reads — it configures none, and zod keeps its English messages — bundled as the English one only:
 * every command that checks a file against a schema would otherwise compile them all.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(join("node_modules", "zod"))
        ? { path: "zod-locales", namespace: "zod-locales" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-locales" }, () => ({
      contents: `export { default as en } from ${JSON.stringify(join(root, "node_modules", "zod", "v4", "locales", "en.js"))};`,
      resolveDir: root,
    }));
  },
};

const outdir = join(root, "dist", "bundle");
rmSync(outdir, { recursive: true, force: true });
const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  external,
  plugins: [yamlModuleBuild, zodEnglishOnly],
  logLevel: "warning",
};
await build({
  ...common,
  entryPoints: [
    { in: join(root, "dist", "cli", "main.js"), out: "main" },
    // the app's worker thread for package work, started beside the chunk that starts it (jobs/bounded)
    { in: join(root, "dist", "jobs", "bounded", "bounded-worker.js"), out: "bounded-worker" },
  ],
  outdir,
  splitting: true,
  format: "esm",
  // CommonJS packages bundled into ES modules require Node's own modules.
  banner: {
    js: 'import { createRequire as __porchlightRequire } from "node:module";\nconst require = __porchlightRequire(import.meta.url);',
  },
});

/**
 * The command groups a CommonJS bundle holds (`keep`, the modules of src/cli that main.js imports for
 * them), the others left out: main.js loads a group only when it is run, and bin/porchlight.js runs the
 * groups a bundle does not hold from the ES module bundle.
 */
function groupsOnly(bundle, keep) {
  return {
    name: "groups-only",
    setup(b) {
      b.onResolve({ filter: /^\.\/[a-z]+\.js$/ }, (args) =>
        args.importer === join(root, "dist", "cli", "main.js") && !keep.includes(args.path)
          ? { path: args.path, namespace: "not-here" }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: "not-here" }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`${args.path} is not in dist/bundle/${bundle}: bin/porchlight.js runs it from dist/bundle/main.js`)});`,
      }));
    },
  };
}

/**
 * Node's modules that a render runs without when its pipeline runs no process: a module of the bundle
 * that imports one of them gets it when it first reads a name from it (esbuild's output reads
 * `(0, import_x.name)` where the name is used), not when the module is evaluated. child_process and
 * crypto each cost some 4 ms of CPU to load, fs/promises some 4 ms with readline and the file watchers
 * it brings (a render that writes files in place uses none of them); worker_threads only a command that
 * starts a thread (the watchdog of fn's render bound, which rpkg and repo never arm); https, with TLS, only a request to
 * an https URL needs (the embedded forge speaks http). `ioredis` is the one package the
 * command line's bundle leaves out that a module of it imports where it is evaluated (the GitHub
 * client, for the app's clustered pacing): 30 ms of loading that no command of `rpkg` or `repo` uses.
 */
const LAZY = new Set([
  "node:child_process",
  "node:crypto",
  "node:fs/promises",
  "node:https",
  "node:os",
  "node:perf_hooks",
  "node:worker_threads",
  "node:zlib",
  "ioredis",
]);

function lazyRequires(text, bundle) {
  const names = [];
  const out = text.replace(
    /^(\s*(?:var )?)(import_\w+) = require\("((?:node:)?[\w/@-]+)"\);$/gm,
    (line, head, name, id) => {
      if (!LAZY.has(id)) return line;
      names.push(name);
      return `${head}${name} = __porchlightLazy(${JSON.stringify(id)});`;
    },
  );
  for (const name of names) {
    const other = out.match(new RegExp(`\\b${name}\\b(?!\\.\\w| = __porchlightLazy|[,;])`, "g"));
    if (other)
      throw new Error(`${bundle} uses ${name} other than by reading a name from it (${other.length} times)`);
  }
  if (names.length === 0) throw new Error(`${bundle}: no module to load lazily (esbuild's output changed?)`);
  const lazy =
    "var __porchlightLazy = (id) => { let m; return new Proxy({}, { get: (_, key) => (m ??= require(id))[key] }); };";
  return `${lazy}\n${out}`;
}

/**
 * The bundle in ASCII, so that V8 holds its source in one byte a character (half the memory) and
 * decodes it faster. esbuild writes code in ASCII already; what is left is in comments, written as
 * escapes there.
 */
function asciiOnly(text, bundle) {
  return text.replace(/^.*[\u0080-\uffff].*$/gm, (line) => {
    if (!/^\s*(\/\/|\/?\*)/.test(line))
      throw new Error(`${bundle}: a line of code that is not ASCII: ${line}`);
    return line.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  });
}

/**
 * The command line once more, with the command groups `keep` names only, as one CommonJS file that
 * bin/porchlight.js compiles with V8's code cache (Node 20 has none for ES modules), then the cache,
 * made by running the bundle (`cacheScript`, in a process of its own).
 */
async function commandBundle(name, { keep, plugins = [], external: outside = external, cacheScript }) {
  const file = join(outdir, name);
  await build({
    ...common,
    external: outside,
    plugins: [...plugins, ...common.plugins, groupsOnly(name, keep)],
    entryPoints: [join(root, "dist", "cli", "main.js")],
    outfile: file,
    format: "cjs",
    // import.meta.url (where main.js finds package.json for --version) as CommonJS knows it.
    define: { "import.meta.url": "__porchlightModuleUrl" },
    banner: { js: 'var __porchlightModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
  });
  writeFileSync(file, lazyRequires(asciiOnly(readFileSync(file, "utf8"), name), name));
  execFileSync(process.execPath, [join(root, "scripts", cacheScript), file], { stdio: "inherit" });
}

// `porchlight fn`: its cache made by a render (scripts/code-cache.mjs).
await commandBundle("fn.cjs", { keep: ["./fn.js", "./io.js"], cacheScript: "code-cache.mjs" });

/**
 * `porchlight rpkg` and `repo`, which talk to GitHub: the GitHub client (Octokit and its plugins, as
 * probot puts them together) is bundled too, so that a command starts without loading some 300 files of
 * node_modules. Of probot the command line needs its Octokit alone (src/github/octokit.ts): the rest
 * (its server, logging, webhooks) is not bundled, and a module of the bundle that imported more of it
 * would fail the build. Left out: what the app alone uses (the queue on Redis, metrics) and ajv, whose
 * compiled validators require its runtime files by name.
 */
const probotOctokitOnly = {
  name: "probot-octokit-only",
  setup(b) {
    b.onResolve({ filter: /^probot$/ }, () => ({
      path: join(root, "node_modules", "probot", "lib", "octokit", "probot-octokit.js"),
    }));
  },
};
await commandBundle("rpkg.cjs", {
  keep: ["./rpkg.js", "./repo.js", "./io.js"],
  plugins: [probotOctokitOnly],
  external: ["ajv", "bullmq", "ioredis", "prom-client"].flatMap((n) => [n, `${n}/*`]),
  cacheScript: "rpkg-code-cache.mjs",
});
