import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { relative, resolve } from "node:path";
import { type Document, isMap, isScalar, isSeq } from "yaml";
import { type FunctionRegistry, qualifiedImage } from "../fn/function-registry.js";
import { execCommandLine } from "../fn/runtime/exec.js";
import { readResourceList } from "../fn/runtime/wire.js";
import { FunctionError } from "../fn/types.js";
import type { Selector } from "../kpt/kptfile.js";
import { readTree } from "../kpt/tree.js";
import { parseYamlFile } from "../kpt/yaml/yamlfile.js";
import { evalFunction, evalItems } from "../render/eval.js";
import { configMapDocument } from "../render/fnconfig.js";
import { keyValues, lastValue, type ParsedArgs, parseArgs } from "./fn-args.js";
import { resourceListToTree } from "./fn-list.js";
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
import { saveFunction } from "./fn-save.js";
import { type CliIO, UsageError } from "./io.js";

const SELECT = ["api-version", "kind", "name", "namespace", "labels", "annotations"];

/** kpt's eval reports a bad invocation as `error: …` and exits 1. */
function refuse(message: string): never {
  throw new UsageError(`error: ${message}`, 1);
}

/** `fn eval [DIR | -] (--image IMAGE | --exec CMD) [flags] [-- key=value ...]`, checked in kpt's order. */
export async function evalCommand(
  args: string[],
  io: CliIO,
  registry: FunctionRegistry,
  help: string,
): Promise<number> {
  const p = parseEvalArgs(args);
  if (p.bools.has("help")) {
    io.stdout(help);
    return 0;
  }
  const { save, type, image, exec, configPath, cliConfig, fromStdin, dir } = await checkInvocation(p, io);

  if (fromStdin && !lastValue(p, "output")) p.values.set("output", ["stdout"]);
  // A ResourceList to a ResourceList keeps its items as they came; to a directory it becomes files first.
  const listToList = fromStdin && wantsItems(p);
  const stdin = fromStdin ? await io.readStdin() : "";
  const tree = !fromStdin ? await readTree(dir) : listToList ? new Map() : resourceListToTree(stdin, "stdin");
  const functionConfig = configPath ? await fileConfig(configPath) : cliConfig;
  const printer = new ProgressPrinter(io.stderr, (x) => x, !p.bools.has("no-truncate-output"));
  const env = { ...runEnv(p, dir, io, registry, (e) => printer.on(e), true), writeFiles: !wantsItems(p) };
  const selectors = selector(p, "match");
  const exclude = selector(p, "exclude");
  const request = { fn: image ? { image } : { exec }, functionConfig, selectors, exclude };
  const outcome = listToList
    ? await evalItems(readResourceList(stdin, "stdin").items, request, env)
    : await evalFunction(tree, request, env);
  const code = await finish(outcome, p, dir, tree, io, {
    blankBeforeResults: true,
    formatError: (m) => `error: ${m}\n`,
  });
  if (code === 0 && save) {
    const message = await saveFunction(
      dir,
      {
        ...(image ? { image } : { exec }),
        ...(configPath ? { configPath: relative(dir, configPath) } : { configMap: argumentData(p.rest) }),
        selectors,
        exclude,
      },
      type as "mutator" | "validator",
    );
    io.stderr(message);
  }
  return code;
}

/** `fn eval`'s flags (the common ones, the function's, --match-* and --exclude-*) read from `args`. */
function parseEvalArgs(args: string[]): ParsedArgs {
  const values: Record<string, string | undefined> = {
    ...COMMON_VALUES,
    image: "i",
    exec: undefined,
    "fn-config": undefined,
    "image-pull-policy": undefined,
    env: "e",
    mount: undefined,
    type: "t",
    keywords: "k",
  };
  for (const s of SELECT) {
    values[`match-${s}`] = undefined;
    values[`exclude-${s}`] = undefined;
  }
  return parseArgs(
    args,
    {
      values,
      bools: [
        ...COMMON_BOOLS,
        "as-current-user",
        "include-meta-resources",
        "save",
        "network",
        "allow-alpha-wasm",
      ],
      boolShorts: { s: "save", m: "include-meta-resources" },
    },
    "eval",
  );
}

/** What one `fn eval` runs, on what, and whether it saves the function to the Kptfile. */
interface Invocation {
  save: boolean;
  type: string | undefined;
  image: string | undefined;
  exec: string | undefined;
  /** --fn-config, absolute. */
  configPath: string | undefined;
  /** The function config the arguments after `--` make. */
  cliConfig: Document;
  fromStdin: boolean;
  dir: string;
}

/**
 * The invocation, each check refusing as kpt does and in kpt's order (the results directory is made
 * among them, as kpt makes it).
 */
async function checkInvocation(p: ParsedArgs, io: CliIO): Promise<Invocation> {
  if (p.bools.has("include-meta-resources"))
    refuse(
      "--include-meta-resources is no longer necessary because meta resources are now included by default",
    );
  const save = p.bools.has("save");
  const type = lastValue(p, "type");
  if (save && !type) refuse("--type must be specified if saving functions to Kptfile (--save=true)");
  if (save && type !== "mutator" && type !== "validator")
    refuse("--type must be either `mutator` or `validator`");
  const resultsDir = lastValue(p, "results-dir");
  if (resultsDir) await mkdir(resolve(io.cwd, resultsDir), { recursive: true });
  checkOutputDir(p, io);
  const rawImage = lastValue(p, "image");
  const exec = lastValue(p, "exec");
  if (!rawImage && !exec) refuse("must specify --image or --exec");
  if (p.positional.length > 1) refuse("0 or 1 arguments supported, function arguments go after '--'");
  const configFile = lastValue(p, "fn-config");
  if (p.rest.length > 0 && configFile)
    refuse("function arguments can only be specified without function config file");
  const cliConfig = argumentsConfig(p.rest);
  const image = rawImage ? qualifiedImage(rawImage) : rawImage;
  if (!image && exec) {
    try {
      execCommandLine(exec);
    } catch (e) {
      if (e instanceof FunctionError) refuse(e.message);
      throw e;
    }
  }
  const configPath = configFile ? resolve(io.cwd, configFile) : undefined;
  if (configPath && !existsSync(configPath)) refuse(`missing function config file: ${configFile}`);
  const fromStdin = p.positional[0] === "-";
  const dirArg = fromStdin ? "-" : resolveSymlinkArg(p.positional[0] ?? ".", io);
  const dir = fromStdin ? io.cwd : resolve(io.cwd, dirArg);
  if (save && configPath && !configPath.startsWith(dir))
    refuse(`--fn-config must be under ${dir} if saving functions to Kptfile (--save=true)`);
  return { save, type, image, exec, configPath, cliConfig, fromStdin, dir };
}

/**
 * `-- [KIND] key=value ...` as kpt turns them into a function config: a ConfigMap (or KIND, when the
 * first argument has no `=`) named function-input.
 */
function argumentsConfig(rest: readonly string[]): Document {
  const doc = configMapDocument(argumentData(rest));
  const first = rest[0];
  if (first !== undefined && !first.includes("=")) doc.set("kind", first);
  return doc;
}

function argumentData(rest: readonly string[]): Record<string, string> {
  const data: Record<string, string> = {};
  rest.forEach((arg, i) => {
    const eq = arg.indexOf("=");
    if (eq < 0) {
      if (i === 0) return;
      refuse("args must have keys and values separated by =");
    }
    data[arg.slice(0, eq)] = arg.slice(eq + 1);
  });
  return data;
}

/** `--fn-config FILE`: exactly one KRM resource, with kpt's texts for anything else. */
async function fileConfig(path: string): Promise<Document> {
  const text = await readFile(path, "utf8");
  let docs: Document[];
  try {
    docs = parseYamlFile(text, path).docs;
  } catch (e) {
    return refuse(`failed to read functionConfig "${path}": ${(e as Error).message}`);
  }
  if (docs.length > 1)
    refuse(`functionConfig "${path}" must not contain more than one config, got ${docs.length}`);
  const doc = docs[0];
  if (!doc || !isMap(doc.contents)) {
    const contents = doc?.contents;
    const kind = isSeq(contents) ? "SequenceNode" : "ScalarNode";
    const shown = isScalar(contents) ? String(contents.value) : (doc?.toString().trimEnd() ?? "");
    refuse(
      `failed to read functionConfig "${path}": wrong node kind: expected MappingNode but got ${kind}: node contents:\n${shown}`,
    );
  }
  const missing = !doc.get("apiVersion")
    ? "apiVersion"
    : !doc.get("kind")
      ? "kind"
      : !doc.getIn(["metadata", "name"])
        ? "metadata.name"
        : undefined;
  if (missing) refuse(`functionConfig "${path}": resource must have \`${missing}\``);
  return doc;
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
