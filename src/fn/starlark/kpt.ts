import { Document, isMap } from "yaml";
import { FunctionError, type FunctionResult, type KrmItem, type ResourceList } from "../types.js";
import { StarlarkEvalError, StarlarkSyntaxError } from "./errors.js";
import { execFile } from "./interp.js";
import type { Limits } from "./limits.js";
import { base64Module } from "./modules/base64.js";
import { hashModule } from "./modules/hash.js";
import { jsonModule } from "./modules/json.js";
import { krmfnModule } from "./modules/krmfn.js";
import { mathModule } from "./modules/math.js";
import { yamlModule } from "./modules/yaml.js";
import { Struct } from "./values/callable.js";
import type { Value } from "./values/core.js";
import { StarDict } from "./values/dict.js";
import { StarList } from "./values/list.js";
import { UnavailableDict } from "./values/unavailable.js";
import { assertYamlable, starToYaml, yamlToStar } from "./yamlconv.js";

/** The dialect the catalog's starlark function enables: set, while/recursion, and global reassignment. */
export const KPT_DIALECT = { set: true, recursion: true, globalReassign: true };

/** The catalog function's default script name, used when the function config has no metadata.name. */
export const DEFAULT_PROGRAM_NAME = "stalark-function-run";

const OPEN_API_UNAVAILABLE =
  "ctx.open_api is not available in porchlight's starlark function (it does not ship kyaml's Kubernetes OpenAPI schema)";

export interface StarlarkConfig {
  name: string;
  source: string;
}

function fail(message: string, before: FunctionResult[] = []): never {
  throw new FunctionError(message, [...before, { message, severity: "error" }]);
}

/** Reads the script from a StarlarkRun (fn.kpt.dev/v1alpha1) or a ConfigMap with `data.source`. */
export function readConfig(fc: KrmItem | undefined): StarlarkConfig {
  if (!fc)
    fail(
      "`functionConfig` must be either v1/ConfigMap or fn.kpt.dev/v1alpha1/StarlarkRun, but we got: nothing",
    );
  const apiVersion = String(fc.get("apiVersion") ?? "");
  const kind = String(fc.get("kind") ?? "");
  const name = String(fc.getIn(["metadata", "name"]) ?? "") || DEFAULT_PROGRAM_NAME;
  let source: unknown;
  if (apiVersion === "v1" && kind === "ConfigMap") source = fc.getIn(["data", "source"]);
  else if (apiVersion === "fn.kpt.dev/v1alpha1" && kind === "StarlarkRun") source = fc.get("source");
  else {
    const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
    fail(
      `\`functionConfig\` must be either /v1, Kind=ConfigMap or fn.kpt.dev/v1alpha1, Kind=StarlarkRun, but we got: ${group}/${version}, Kind=${kind}`,
    );
  }
  if (typeof source !== "string" || source === "") fail("`source` must not be empty");
  return { name, source };
}

/**
 * Modules of `load(...)` that the catalog function documents and porchlight provides: encoding/json
 * and math (go.starlark.net/lib), encoding/base64, encoding/yaml and hash (qri-io/starlib), krmfn.
 * Modules that reach the network or the clock (http, time) or need heavy parsers (bsoup, html, xlsx,
 * zipfile, csv, geo, re) are refused with a clear error: a script stays deterministic and hermetic.
 */
function loader(module: string): Map<string, Value> {
  switch (module) {
    case "encoding/json.star":
      return new Map([["json", jsonModule()]]);
    case "encoding/base64.star":
      return new Map([["base64", base64Module()]]);
    case "krmfn.star":
      return new Map([["krmfn", krmfnModule()]]);
    case "encoding/yaml.star":
      return new Map([["yaml", yamlModule()]]);
    case "hash.star":
      return new Map([["hash", hashModule()]]);
    case "math.star":
      return new Map([["math", mathModule()]]);
  }
  throw new StarlarkEvalError(
    `cannot load ${module}: module not supported by porchlight's starlark function`,
  );
}

export interface RunOptions {
  limits?: Partial<Limits>;
  signal?: AbortSignal;
  /**
   * Receives the script's print() output. The catalog function writes it to stderr, which kpt shows under
   * "Stderr:" and records in results.yaml; a builtin has no stderr, so by default each printed line
   * becomes an info result (before the error result when the script fails).
   */
  print?: (msg: string) => void;
}

/**
 * Runs a StarlarkRun over a ResourceList as the catalog's starlark function does: the script sees
 * `ctx.resource_list` and edits `ctx.resource_list["items"]`; the result is that list. Items removed from
 * the list are deleted. Generated items get no annotations, as from the catalog function: kpt (and
 * porchlight's render) files them under `[namespace/]kind_name.yaml`.
 */
export function runStarlark(input: ResourceList, opts: RunOptions = {}): ResourceList {
  const cfg = readConfig(input.functionConfig);
  const items = new StarList(input.items.map((d) => yamlToStar(d.contents, d)));
  const rl = new StarDict();
  rl.set("apiVersion", "config.kubernetes.io/v1");
  rl.set("kind", "ResourceList");
  rl.set("items", items);
  if (input.functionConfig)
    rl.set("functionConfig", yamlToStar(input.functionConfig.contents, input.functionConfig));
  const ctx = new Struct(
    "struct",
    "ctx",
    new Map<string, Value>([
      ["resource_list", rl],
      // kyaml's OpenAPI schema is not shipped, and the process environment is not exposed (the catalog
      // passes the container's): scripts stay hermetic.
      ["open_api", new UnavailableDict(OPEN_API_UNAVAILABLE)],
      ["environment", new StarDict()],
    ]),
  );
  const printed: FunctionResult[] = [];
  const print = opts.print ?? ((message: string) => printed.push({ message, severity: "info" }));
  try {
    execFile(cfg.source, new Map([["ctx", ctx]]), {
      name: cfg.name,
      dialect: KPT_DIALECT,
      limits: opts.limits,
      signal: opts.signal,
      print,
      load: loader,
    });
  } catch (e) {
    // As the catalog function: a run-time error is Go's EvalError.Error(), the message without backtrace;
    // the StarlarkEvalError (position, backtrace()) stays available as the FunctionError's cause.
    if (e instanceof StarlarkSyntaxError || e instanceof StarlarkEvalError) {
      const err = new FunctionError(e.message, [...printed, { message: e.message, severity: "error" }]);
      err.cause = e;
      throw err;
    }
    throw e;
  }
  let output: KrmItem[];
  try {
    output = outputItems(rl, input.items);
  } catch (e) {
    if (e instanceof StarlarkEvalError) fail(e.message, printed);
    throw e;
  }
  return { ...input, items: output, results: [...input.results, ...printed] };
}

function outputItems(rl: StarDict, inputs: KrmItem[]): KrmItem[] {
  const out = rl.get("items");
  if (!(out instanceof StarList))
    fail(
      `resource_list["items"] must be a list, got ${out === undefined ? "nothing" : typeof out === "object" ? out.typeName : typeof out}`,
    );
  out.elems.forEach((v, i) => {
    if (!(v instanceof StarDict)) fail(`resource_list["items"][${i}] must be a dict`);
    assertYamlable(v, 1);
  });
  const byContents = new Map<unknown, KrmItem>(inputs.map((d) => [d.contents, d]));
  const claims = new Set<object>();
  return out.elems.map((v) => {
    if (!(v instanceof StarDict)) return fail("unreachable: checked above");
    const orig = isMap(v.origin) && !claims.has(v.origin) ? byContents.get(v.origin) : undefined;
    if (orig) {
      orig.contents = starToYaml(v, orig.contents, 1, claims) as typeof orig.contents;
      return orig;
    }
    // a new resource, or an input one listed twice: a new document with nodes of its own
    const doc = new Document();
    doc.contents = starToYaml(v, undefined, 1, claims) as typeof doc.contents;
    return doc;
  });
}

export type { FunctionResult };
