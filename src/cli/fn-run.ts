import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join, posix, resolve } from "node:path";
import type { Document } from "yaml";
import type { FunctionRegistry } from "../fn/function-registry.js";
import { DEFAULT_RUN_OPTIONS } from "../fn/runtime/types.js";
import { readResourceList, writeResourceList } from "../fn/runtime/wire.js";
import { writeTree } from "../kpt/tree.js";
import { formatDocuments } from "../kpt/yaml/format.js";
import { itemSeqIndent, stripTransient } from "../render/items.js";
import type { RenderEnv, RenderOutcome } from "../render/render.js";
import { formatResultsFile } from "../render/results.js";
import { itemsForOutput } from "../render/write.js";
import { lastValue, type ParsedArgs } from "./fn-args.js";
import { type CliIO, UsageError } from "./io.js";

/** Flags `fn render` and `fn eval` share. */
export const COMMON_VALUES = { output: "o", "results-dir": undefined };
export const COMMON_BOOLS = ["allow-exec", "allow-container", "allow-network", "truncate-output", "help"];

export function runEnv(
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

/** How a command reports, where render and eval differ in kpt. */
export interface FinishStyle {
  /** Printed after the files were written in place. */
  onInPlaceSuccess?: () => void;
  /** kpt's eval puts a blank line before "For complete results", render does not. */
  blankBeforeResults?: boolean;
  /** How kpt prefixes an error: render "Error: … " (trailing space), eval "error: …". */
  formatError: (message: string) => string;
}

/** Writes the outcome where --output says, results where --results-dir says; the exit code. */
export async function finish(
  outcome: RenderOutcome,
  p: ParsedArgs,
  dir: string,
  before: Map<string, Buffer>,
  io: CliIO,
  style: FinishStyle,
): Promise<number> {
  const resultsDir = lastValue(p, "results-dir");
  const seeResults = (): void => {
    if (resultsDir)
      io.stderr(
        `${style.blankBeforeResults ? "\n" : ""}For complete results, see ${posix.join(resultsDir, "results.yaml")}\n`,
      );
  };
  if (resultsDir) {
    const abs = resolve(io.cwd, resultsDir);
    await mkdir(abs, { recursive: true });
    await writeFile(join(abs, "results.yaml"), formatResultsFile(outcome.records));
  }
  if (!outcome.ok) {
    seeResults();
    const error = outcome.error;
    if (error && !error.shown)
      io.stderr(error.bare ? `${error.message}\n \n` : style.formatError(error.message));
    return 1;
  }
  const output = lastValue(p, "output");
  if (output === "stdout" || output === "unwrap") {
    const list = writeResourceList({ items: itemsForOutput(outcome.items, outcome.packageDirs, "") });
    io.stdout(output === "stdout" ? list : unwrapList(list));
  } else if (output) {
    const target = resolve(io.cwd, output);
    if (existsSync(target)) {
      io.stderr(
        style.formatError(`directory "${output}" already exists, please delete the directory and retry`),
      );
      return 1;
    }
    // kpt writes the resources only, not the package's other files.
    const resources = new Map(outcome.resourceFiles.map((f) => [f, outcome.tree.get(f)!] as const));
    await writeTree(target, new Map(), resources);
  } else {
    await writeTree(dir, before, outcome.tree);
    style.onInPlaceSuccess?.();
  }
  seeResults();
  return 0;
}

/** kpt refuses, before it runs anything, to write into a directory that exists. */
export function checkOutputDir(p: ParsedArgs, io: CliIO): void {
  const output = lastValue(p, "output");
  if (!output || output === "stdout" || output === "unwrap") return;
  if (existsSync(resolve(io.cwd, output))) {
    throw new UsageError(
      `error: directory "${output}" already exists, please delete the directory and retry`,
      1,
    );
  }
}

/**
 * kpt reads a package given through a symbolic link from where the link points, and warns that links
 * inside the package are not followed. Returns the path to read (as kpt names it in the warning).
 */
export function resolveSymlinkArg(dirArg: string, io: CliIO): string {
  let target: string;
  try {
    if (!lstatSync(resolve(io.cwd, dirArg)).isSymbolicLink()) return dirArg;
    target = readlinkSync(resolve(io.cwd, dirArg));
  } catch {
    return dirArg;
  }
  const joined = posix.isAbsolute(target) ? target : posix.join(posix.dirname(dirArg), target);
  const resolved = posix.normalize(joined).replace(/(.)\/$/, "$1");
  io.stderr(
    `[WARN] resolved symlink "${dirArg}" to "${resolved}", please note that the symlinks within the package are ignored\n`,
  );
  return resolved;
}

/** Output to stdout shows the items; the files are not needed then. */
export function wantsItems(p: ParsedArgs): boolean {
  const o = lastValue(p, "output");
  return o === "stdout" || o === "unwrap";
}

/** Items as plain YAML documents, without kpt's bookkeeping annotations (`fn source -o unwrap`). */
export function unwrap(items: readonly Document[]): string {
  const styles = items.map(itemSeqIndent);
  for (const d of items) stripTransient(d);
  return formatDocuments(items, styles);
}

/**
 * `fn render` and `fn eval` with `-o unwrap`, as kpt makes it: from the ResourceList `-o stdout` prints
 * (`list`), read back as kpt reads it (an item's last comments by what follows them there), each item
 * then written as a document of its own (unwrap).
 */
function unwrapList(list: string): string {
  return unwrap(readResourceList(list, "ResourceList").items);
}
