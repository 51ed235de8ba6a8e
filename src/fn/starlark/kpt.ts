import { Document, isMap, isScalar, type YAMLMap } from "yaml";
import { FunctionError, type FunctionResult, type KrmItem, type ResourceList } from "../types.js";
import { StarlarkEvalError, StarlarkSyntaxError } from "./errors.js";
import { execFile } from "./interp.js";
import type { Limits } from "./limits.js";
import { base64Module } from "./modules/base64.js";
import { jsonModule } from "./modules/json.js";
import { krmfnModule } from "./modules/krmfn.js";
import { Struct } from "./values/callable.js";
import type { Value } from "./values/core.js";
import { StarDict } from "./values/dict.js";
import { StarList } from "./values/list.js";
import { starToYaml, yamlToStar } from "./yamlconv.js";

/** The dialect the catalog's starlark function enables: set, while/recursion, and global reassignment. */
export const KPT_DIALECT = { set: true, recursion: true, globalReassign: true };

/** The catalog function's default script name, used when the function config has no metadata.name. */
export const DEFAULT_PROGRAM_NAME = "stalark-function-run";

const PATH = "config.kubernetes.io/path";
const INDEX = "config.kubernetes.io/index";
const INTERNAL_PATH = "internal.config.kubernetes.io/path";
const INTERNAL_INDEX = "internal.config.kubernetes.io/index";

export interface StarlarkConfig {
  name: string;
  source: string;
}

function fail(message: string): never {
  throw new FunctionError(message, [{ message, severity: "error" }]);
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

/** Modules of `load(...)` that the catalog function documents and porchlight provides. */
function loader(module: string): Map<string, Value> {
  switch (module) {
    case "encoding/json.star":
      return new Map([["json", jsonModule()]]);
    case "encoding/base64.star":
      return new Map([["base64", base64Module()]]);
    case "krmfn.star":
      return new Map([["krmfn", krmfnModule()]]);
  }
  throw new StarlarkEvalError(
    `cannot load ${module}: module not supported by porchlight's starlark function`,
  );
}

const keyText = (k: unknown) => String(isScalar(k) ? k.value : k);
const byKey = (x: { key: unknown }, y: { key: unknown }) => (keyText(x.key) < keyText(y.key) ? -1 : 1);

function defaultPath(doc: Document): void {
  const meta = doc.get("metadata", true);
  if (!isMap(meta)) return;
  const existing: unknown = meta.get("annotations", true);
  if (existing !== undefined && !isMap(existing)) return;
  if (isMap(existing) && (existing.has(PATH) || existing.has(INTERNAL_PATH))) return;
  let annotations: YAMLMap;
  if (isMap(existing)) annotations = existing;
  else {
    annotations = doc.createNode({}) as YAMLMap;
    meta.set("annotations", annotations);
    meta.items.sort(byKey);
  }
  const kind = String(doc.get("kind") ?? "").toLowerCase();
  const name = String(doc.getIn(["metadata", "name"]) ?? "");
  const ns = String(doc.getIn(["metadata", "namespace"]) ?? "");
  const path = `${ns ? `${ns}/` : ""}${kind}_${name}.yaml`;
  for (const [k, v] of [
    [PATH, path],
    [INTERNAL_PATH, path],
    [INDEX, "0"],
    [INTERNAL_INDEX, "0"],
  ] as const) {
    if (!annotations.has(k)) annotations.set(doc.createNode(k), doc.createNode(v));
  }
  annotations.items.sort(byKey);
}

export interface RunOptions {
  limits?: Partial<Limits>;
  signal?: AbortSignal;
  print?: (msg: string) => void;
}

/**
 * Runs a StarlarkRun over a ResourceList as the catalog's starlark function does: the script sees
 * `ctx.resource_list` and edits `ctx.resource_list["items"]`; the result is that list. Items removed from
 * the list are deleted; generated items without a path annotation get kpt's default one.
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
      // kyaml's OpenAPI schema and the process environment are not exposed: scripts stay hermetic.
      ["open_api", new StarDict()],
      ["environment", new StarDict()],
    ]),
  );
  try {
    execFile(cfg.source, new Map([["ctx", ctx]]), {
      name: cfg.name,
      dialect: KPT_DIALECT,
      limits: opts.limits,
      signal: opts.signal,
      print: opts.print,
      load: loader,
    });
  } catch (e) {
    if (e instanceof StarlarkSyntaxError || e instanceof StarlarkEvalError) fail(e.message);
    throw e;
  }
  return { ...input, items: outputItems(rl, input.items), results: [...input.results] };
}

function outputItems(rl: StarDict, inputs: KrmItem[]): KrmItem[] {
  const out = rl.get("items");
  if (!(out instanceof StarList))
    fail(
      `resource_list["items"] must be a list, got ${out === undefined ? "nothing" : typeof out === "object" ? out.typeName : typeof out}`,
    );
  const byContents = new Map<unknown, KrmItem>(inputs.map((d) => [d.contents, d]));
  const used = new Set<KrmItem>();
  return out.elems.map((v, i) => {
    if (!(v instanceof StarDict)) fail(`resource_list["items"][${i}] must be a dict`);
    const path = `items[${i}]`;
    const orig = isMap(v.origin) ? byContents.get(v.origin) : undefined;
    if (orig && !used.has(orig)) {
      used.add(orig);
      orig.contents = starToYaml(v, orig.contents, path) as typeof orig.contents;
      return orig;
    }
    const doc = new Document();
    if (orig) v.origin = undefined;
    doc.contents = starToYaml(v, undefined, path) as typeof doc.contents;
    if (orig) v.origin = orig.contents;
    defaultPath(doc);
    return doc;
  });
}

export type { FunctionResult };
