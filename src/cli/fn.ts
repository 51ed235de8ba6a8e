import { existsSync, statSync } from "node:fs";
import { basename, join, posix, resolve } from "node:path";
import { FunctionRegistry } from "../fn/function-registry.js";
import { attributionEnabled } from "../kpt/attribution.js";
import { readTree } from "../kpt/tree.js";
import { render, runsNoFunction } from "../render/render.js";
import { lastValue, type ParsedArgs, parseArgs } from "./fn-args.js";
import { evalCommand } from "./fn-eval.js";
import { ProgressPrinter } from "./fn-print.js";
import {
  COMMON_BOOLS,
  COMMON_VALUES,
  checkOutputDir,
  finish,
  resolveSymlinkArg,
  runEnv,
  wantsItems,
} from "./fn-run.js";
import { sinkCommand, sourceCommand } from "./fn-source.js";
import { goFileError, missingPathError } from "./go-errors.js";
import type { CliCommand, CliIO } from "./io.js";
import { UsageError } from "./io.js";

/** The command's help, listing the builtins `--image` can name. */
const help = (registry: FunctionRegistry) => `porchlight fn — run kpt functions, as kpt fn does

Usage:
  porchlight fn render [PKG_PATH] [flags]
  porchlight fn eval [DIR | -] (--image IMAGE | --exec PATH) [flags] [-- key=value ...]
  porchlight fn source [DIR] [-o stdout|unwrap] [--fn-config FILE]
  porchlight fn sink DIR

Render flags:
  --allow-exec              allow exec functions (local executables) in the pipeline
  --allow-container         allow container images that are not builtins (needs docker or podman)
  -o, --output stdout|unwrap|DIR   write the result there instead of in place
  --results-dir DIR         write the function results to DIR/results.yaml
  --truncate-output=false   show every line of results and stderr

Eval flags (besides --allow-container, --output, --results-dir):
  -i, --image IMAGE         the function to run (builtins: ${registry.names().join(", ")})
  --exec "CMD ARGS"         run a local executable as the function (split as kpt splits it)
  -s, --save -t, --type mutator|validator   add the function to the Kptfile's pipeline
  --fn-config FILE          the functionConfig; else '-- key=value' arguments make a ConfigMap
  --match-api-version, --match-kind, --match-name, --match-namespace, --match-labels k=v,
  --match-annotations k=v, and the same with --exclude-: select the resources the function sees
`;

/** The registry of the builtins, or a way to get it (loaded when first needed). */
type RegistryLoader = () => FunctionRegistry | Promise<FunctionRegistry>;

/**
 * The builtins and the schemas their configs are checked with take a tenth of a small render's time to
 * load: they are loaded when a command needs them, not when `porchlight fn` starts.
 */
async function loadDefaultRegistry(): Promise<FunctionRegistry> {
  return (await import("../fn/registry.js")).defaultRegistry();
}

/** `porchlight fn` over a given registry of builtins (tests add their own). */
export function createFnCommand(registry: RegistryLoader = loadDefaultRegistry): CliCommand {
  return async (args, io) => {
    const [sub, ...rest] = args;
    if (!sub || sub === "--help" || sub === "-h" || sub === "help") {
      io.stdout(help(await registry()));
      return sub ? 0 : 2;
    }
    if (sub === "render") return bounded(io, "porchlight fn render", () => renderCommand(rest, io, registry));
    if (sub === "eval") {
      const loaded = await registry();
      return bounded(io, "porchlight fn eval", () => evalCommand(rest, io, loaded, help(loaded)));
    }
    if (sub === "source") return bounded(io, "porchlight fn source", () => sourceCommand(rest, io));
    if (sub === "sink") return sinkCommand(rest, io);
    throw new UsageError(
      `porchlight fn: unknown command "${sub}"; known commands: render, eval, source, sink`,
    );
  };
}

export const fnCommand: CliCommand = createFnCommand();

/** A command run within the render bound, where the process has one (io.watchdog). */
async function bounded(io: CliIO, command: string, run: () => Promise<number>): Promise<number> {
  const disarm = io.watchdog?.(command);
  try {
    return await run();
  } finally {
    disarm?.();
  }
}

async function renderCommand(args: string[], io: CliIO, loadRegistry: RegistryLoader): Promise<number> {
  const p = parseArgs(
    args,
    {
      values: { ...COMMON_VALUES, "image-pull-policy": undefined, "max-resources": undefined },
      bools: [...COMMON_BOOLS, "allow-alpha-wasm"],
    },
    "render",
  );
  // Unlimited by default (the user's own machine); porchlight's own flag, not kpt's, bounds it.
  const maxResources = countFlag(p, "max-resources");
  if (p.bools.has("help")) {
    io.stdout(help(await loadRegistry()));
    return 0;
  }
  if (p.positional.length > 1) throw new UsageError("Error: accepts at most 1 arg(s), received more");
  checkOutputDir(p, io);
  const missing = missingPathError(io.cwd, p.positional[0] ?? ".");
  if (missing !== undefined) {
    io.stderr(`error: ${missing}\n`);
    return 1;
  }
  const dirArg = resolveSymlinkArg(p.positional[0] ?? ".", io);
  const dir = resolve(io.cwd, dirArg);
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (!stat) {
    io.stderr(`error: ${missingPathError(io.cwd, dirArg) ?? `lstat ${dirArg}: no such file or directory`}\n`);
    return 1;
  }
  if (!stat.isDirectory()) {
    const open = goFileError("open", join(dir, "Kptfile"), { code: "ENOTDIR" });
    io.stderr(`Error: Kptfile at "${dir}" can't be read.\n\nDetails:\n${open} \n`);
    return 1;
  }
  if (!existsSync(join(dir, "Kptfile"))) {
    io.stderr(`Error: No Kptfile found at "${dir}". \n`);
    return 1;
  }
  const tree = await readTree(dir);
  const printer = new ProgressPrinter(
    io.stderr,
    (pkgPath) => displayPath(dir, pkgPath),
    !p.bools.has("no-truncate-output"),
  );
  const registry = runsNoFunction(tree) ? new FunctionRegistry([]) : await loadRegistry();
  const env = runEnv(p, dir, io, registry, (e) => printer.on(e));
  const outcome = await render(tree, "", {
    ...env,
    writeFiles: !wantsItems(p),
    attribution: attributionEnabled(io.env),
    ...(maxResources !== undefined ? { maxResources } : {}),
  });
  printer.endPackage();
  return finish(outcome, p, dir, tree, io, {
    onInPlaceSuccess: () =>
      io.stderr(
        `Successfully executed ${outcome.functionCount} function(s) in ${outcome.packageCount} package(s).\n`,
      ),
    formatError: (m) => `Error: ${m} \n`,
  });
}

/** A flag holding a whole number of at least 1, or undefined when absent. */
function countFlag(p: ParsedArgs, name: string): number | undefined {
  const text = lastValue(p, name);
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    throw new UsageError(`Error: --${name} must be a whole number of at least 1, not "${text}"`);
  }
  return Number(text);
}

/** kpt names a package by its directory's base name, subpackages by the path below it. */
function displayPath(rootDir: string, pkgPath: string): string {
  return posix.join(basename(rootDir), pkgPath);
}
