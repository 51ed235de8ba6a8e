import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, join, posix, resolve } from "node:path";
import type { Document } from "yaml";
import { defaultRegistry, type FunctionRegistry } from "../fn/registry.js";
import { DEFAULT_RUN_OPTIONS } from "../fn/runtime/types.js";
import { writeResourceList } from "../fn/runtime/wire.js";
import { formatDocuments } from "../kpt/format.js";
import type { Selector } from "../kpt/kptfile.js";
import { readTree, writeTree } from "../kpt/tree.js";
import { parseYamlFile } from "../kpt/yamlfile.js";
import { evalFunction } from "../render/eval.js";
import { configMapDocument } from "../render/fnconfig.js";
import { itemSeqIndent, stripTransient } from "../render/items.js";
import { type RenderEnv, type RenderOutcome, render } from "../render/render.js";
import { formatResultsFile } from "../render/results.js";
import { itemsForOutput } from "../render/write.js";
import { keyValues, lastValue, type ParsedArgs, parseArgs } from "./fn-args.js";
import { ProgressPrinter } from "./fn-print.js";
import type { CliCommand, CliIO } from "./io.js";
import { UsageError } from "./io.js";

const HELP = `porchlight fn — run kpt functions, as kpt fn does

Usage:
  porchlight fn render [PKG_PATH] [flags]
  porchlight fn eval [DIR | -] (--image IMAGE | --exec PATH) [flags] [-- key=value ...]

Render flags:
  --allow-exec              allow exec functions (local executables) in the pipeline
  --allow-container         allow container images that are not builtins (needs docker or podman)
  -o, --output stdout|unwrap|DIR   write the result there instead of in place
  --results-dir DIR         write the function results to DIR/results.yaml
  --truncate-output=false   show every line of results and stderr

Eval flags (besides --allow-container, --output, --results-dir):
  -i, --image IMAGE         the function to run (builtins: ${defaultRegistry().names().join(", ")})
  --exec PATH               run a local executable as the function
  --fn-config FILE          the functionConfig; else '-- key=value' arguments make a ConfigMap
  --match-api-version, --match-kind, --match-name, --match-namespace, --match-labels k=v,
  --match-annotations k=v, and the same with --exclude-: select the resources the function sees
`;

const COMMON_VALUES = { output: "o", "results-dir": undefined };
const COMMON_BOOLS = ["allow-exec", "allow-container", "allow-network", "truncate-output", "help"];
const SELECT = ["api-version", "kind", "name", "namespace", "labels", "annotations"];

/** `porchlight fn` over a given registry of builtins (tests add their own). */
export function createFnCommand(registry: () => FunctionRegistry = defaultRegistry): CliCommand {
  return async (args, io) => {
    const [sub, ...rest] = args;
    if (!sub || sub === "--help" || sub === "-h" || sub === "help") {
      io.stdout(HELP);
      return sub ? 0 : 2;
    }
    if (sub === "render") return renderCommand(rest, io, registry());
    if (sub === "eval") return evalCommand(rest, io, registry());
    throw new UsageError(`porchlight fn: unknown command "${sub}"; known commands: render, eval`);
  };
}

export const fnCommand: CliCommand = createFnCommand();

async function renderCommand(args: string[], io: CliIO, registry: FunctionRegistry): Promise<number> {
  const p = parseArgs(
    args,
    {
      values: { ...COMMON_VALUES, "image-pull-policy": undefined },
      bools: [...COMMON_BOOLS, "allow-alpha-wasm"],
    },
    "render",
  );
  if (p.bools.has("help")) {
    io.stdout(HELP);
    return 0;
  }
  if (p.positional.length > 1) throw new UsageError("Error: accepts at most 1 arg(s), received more");
  const dirArg = p.positional[0] ?? ".";
  const dir = resolve(io.cwd, dirArg);
  if (!existsSync(join(dir, "Kptfile"))) {
    io.stderr(`Error: ${dirArg} is not a kpt package: no Kptfile found \n`);
    return 1;
  }
  const tree = await readTree(dir);
  const printer = new ProgressPrinter(
    io.stderr,
    (pkgPath) => displayPath(dir, pkgPath),
    !p.bools.has("no-truncate-output"),
  );
  const env = runEnv(p, dir, io, registry, (e) => printer.on(e));
  const outcome = await render(tree, "", { ...env, writeFiles: !wantsItems(p) });
  printer.endPackage();
  return finish(outcome, p, dir, tree, io, () =>
    io.stderr(
      `Successfully executed ${outcome.functionCount} function(s) in ${outcome.packageCount} package(s).\n`,
    ),
  );
}

async function evalCommand(args: string[], io: CliIO, registry: FunctionRegistry): Promise<number> {
  const values: Record<string, string | undefined> = {
    ...COMMON_VALUES,
    image: "i",
    exec: undefined,
    "fn-config": undefined,
    "image-pull-policy": undefined,
    env: "e",
    mount: undefined,
    network: undefined,
  };
  for (const s of SELECT) {
    values[`match-${s}`] = undefined;
    values[`exclude-${s}`] = undefined;
  }
  const p = parseArgs(
    args,
    { values, bools: [...COMMON_BOOLS, "as-current-user", "include-meta-resources"] },
    "eval",
  );
  if (p.bools.has("help")) {
    io.stdout(HELP);
    return 0;
  }
  const image = lastValue(p, "image");
  const exec = lastValue(p, "exec");
  if (!image === !exec) throw new UsageError("Error: must specify --image or --exec (exactly one)");
  const dirArg = p.positional[0] ?? ".";
  const fromStdin = dirArg === "-";
  const dir = fromStdin ? io.cwd : resolve(io.cwd, dirArg);
  const tree = fromStdin ? await stdinTree(io) : await readTree(dir);
  const functionConfig = await evalFunctionConfig(p, io);
  const printer = new ProgressPrinter(io.stderr, (x) => x, !p.bools.has("no-truncate-output"));
  if (fromStdin && !lastValue(p, "output")) p.values.set("output", ["stdout"]);
  const env = { ...runEnv(p, dir, io, registry, (e) => printer.on(e), true), writeFiles: !wantsItems(p) };
  const outcome = await evalFunction(
    tree,
    {
      fn: image ? { image: image.includes("/") ? image : `gcr.io/kpt-fn/${image}` } : { exec },
      functionConfig,
      selectors: selector(p, "match"),
      exclude: selector(p, "exclude"),
    },
    env,
  );
  return finish(outcome, p, dir, tree, io, () => {}, true);
}

function runEnv(
  p: ParsedArgs,
  dir: string,
  { cwd, env: { KPT_FN_RUNTIME: engine } }: CliIO,
  registry: FunctionRegistry,
  onEvent: RenderEnv["onEvent"],
  execGiven = false,
): RenderEnv {
  return {
    registry,
    allowExec: execGiven || p.bools.has("allow-exec"),
    allowContainer: p.bools.has("allow-container"),
    rootDir: dir,
    execDir: cwd,
    containerEngine: engine,
    allowNetwork: p.bools.has("allow-network"),
    run: { ...DEFAULT_RUN_OPTIONS },
    onEvent,
  };
}

/** Writes the outcome where --output says, results where --results-dir says; the exit code. */
async function finish(
  outcome: RenderOutcome,
  p: ParsedArgs,
  dir: string,
  before: Map<string, Buffer>,
  io: CliIO,
  onInPlaceSuccess: () => void,
  evalOutput = false,
): Promise<number> {
  const resultsDir = lastValue(p, "results-dir");
  const seeResults = (): void => {
    // kpt's eval puts a blank line before the pointer, render does not.
    if (resultsDir)
      io.stderr(
        `${evalOutput ? "\n" : ""}For complete results, see ${posix.join(resultsDir, "results.yaml")}\n`,
      );
  };
  if (resultsDir) {
    const abs = resolve(io.cwd, resultsDir);
    await mkdir(abs, { recursive: true });
    await writeFile(join(abs, "results.yaml"), formatResultsFile(outcome.records));
  }
  if (!outcome.ok) {
    seeResults();
    if (outcome.error && !outcome.error.shown) io.stderr(`Error: ${outcome.error.message} \n`);
    return 1;
  }
  const output = lastValue(p, "output");
  if (output === "stdout") {
    io.stdout(writeResourceList({ items: itemsForOutput(outcome.items, outcome.packageDirs, "") }));
  } else if (output === "unwrap") {
    io.stdout(unwrap(outcome.items));
  } else if (output) {
    const target = resolve(io.cwd, output);
    if (existsSync(target)) {
      io.stderr(`Error: target directory ${output} already exists \n`);
      return 1;
    }
    // kpt writes the resources only, not the package's other files.
    const resources = new Map(outcome.resourceFiles.map((f) => [f, outcome.tree.get(f)!] as const));
    await writeTree(target, new Map(), resources);
  } else {
    await writeTree(dir, before, outcome.tree);
    onInPlaceSuccess();
  }
  seeResults();
  return 0;
}

/** Output to stdout shows the items; the files are not needed then. */
function wantsItems(p: ParsedArgs): boolean {
  const o = lastValue(p, "output");
  return o === "stdout" || o === "unwrap";
}

function unwrap(items: readonly Document[]): string {
  const styles = items.map(itemSeqIndent);
  for (const d of items) stripTransient(d);
  return formatDocuments(items, styles);
}

/** kpt names a package by its directory's base name, subpackages by the path below it. */
function displayPath(rootDir: string, pkgPath: string): string {
  return posix.join(basename(rootDir), pkgPath);
}

function selector(p: ParsedArgs, prefix: "match" | "exclude"): Selector[] {
  const s: Selector = {};
  const v = (k: string): string | undefined => lastValue(p, `${prefix}-${k}`);
  if (v("api-version") !== undefined) s.apiVersion = v("api-version");
  if (v("kind") !== undefined) s.kind = v("kind");
  if (v("name") !== undefined) s.name = v("name");
  if (v("namespace") !== undefined) s.namespace = v("namespace");
  const labels = p.values.get(`${prefix}-labels`);
  if (labels) s.labels = keyValues(labels, `--${prefix}-labels`);
  const annotations = p.values.get(`${prefix}-annotations`);
  if (annotations) s.annotations = keyValues(annotations, `--${prefix}-annotations`);
  return Object.keys(s).length > 0 ? [s] : [];
}

async function evalFunctionConfig(p: ParsedArgs, io: CliIO): Promise<Document> {
  const file = lastValue(p, "fn-config");
  if (file) {
    if (p.rest.length > 0)
      throw new UsageError("Error: function config file and '-- key=value' arguments can't be used together");
    const text = await readFile(resolve(io.cwd, file), "utf8");
    const [doc, ...more] = parseYamlFile(text, file).docs;
    if (!doc || more.length > 0)
      throw new UsageError(`Error: function config file ${file} must hold exactly one resource`);
    return doc;
  }
  // With neither, kpt still passes an empty ConfigMap named function-input.
  return configMapDocument(keyValues(p.rest, "function arguments"));
}

/** A ResourceList on stdin as a one-file tree (kpt fn eval -). */
async function stdinTree(io: CliIO): Promise<Map<string, Buffer>> {
  const text = await io.readStdin();
  const { parseResourceList } = await import("../kpt/resourcelist.js");
  const list = parseResourceList(text, "stdin");
  const tree = new Map<string, Buffer>();
  const byFile = new Map<string, Document[]>();
  list.items.forEach((doc, i) => {
    const path =
      (doc.getIn(["metadata", "annotations", "config.kubernetes.io/path"]) as string | undefined) ??
      `stdin_${i}.yaml`;
    const docs = byFile.get(path) ?? [];
    docs.push(doc);
    byFile.set(path, docs);
  });
  for (const [path, docs] of byFile) {
    for (const d of docs) stripTransient(d);
    tree.set(path, Buffer.from(formatDocuments(docs)));
  }
  return tree;
}
