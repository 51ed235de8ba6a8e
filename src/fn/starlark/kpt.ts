import { Document, isMap } from "yaml";
import { atLeast } from "../releases.js";
import { FunctionExitError } from "../runtime/errors.js";
import type { KrmItem, ResourceList } from "../types.js";
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

/** The dialect the catalog's starlark function enables from v0.3.0: set, while/recursion, global reassignment. */
const KPT_DIALECT = { set: true, recursion: true, globalReassign: true };

/** The newest release this module reproduces: what a run without a release behaves as. */
const NEWEST = "v0.5.1";

/** The catalog function's default script name when the function config has no metadata.name. */
function defaultProgramName(release: string = NEWEST): string {
  // starlark/v0.5.1 fixed the typo of every release before it.
  return atLeast(release, "v0.5.1") ? "starlark-function-run" : "stalark-function-run";
}

const OPEN_API_UNAVAILABLE =
  "ctx.open_api is not available in porchlight's starlark function (it does not ship kyaml's Kubernetes OpenAPI schema)";

interface StarlarkConfig {
  name: string;
  source: string;
}

/** A config error, failing as the release's framework fails (see failure()). */
class ConfigError extends Error {}

function gvk(apiVersion: string, kind: string): string {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/", 2) : ["", apiVersion];
  return `${group}/${version}, Kind=${kind}`;
}

const WANT_KINDS = `${gvk("v1", "ConfigMap")} or ${gvk("fn.kpt.dev/v1alpha1", "StarlarkRun")}`;

/**
 * Reads the script from a StarlarkRun (fn.kpt.dev/v1alpha1) or a ConfigMap with `data.source`, with the
 * checks and messages of the release's config.go.
 */
function readConfig(fc: KrmItem | undefined, release: string = NEWEST): StarlarkConfig {
  const apiVersion = fc ? String(fc.get("apiVersion") ?? "") : "";
  const kind = fc ? String(fc.get("kind") ?? "") : "";
  const metaName = fc ? String(fc.getIn(["metadata", "name"]) ?? "") : "";
  const name = metaName || defaultProgramName(release);
  const group = apiVersion.includes("/") ? apiVersion.split("/")[0] : "";
  if (!atLeast(release, "v0.4.0")) {
    // starlark/v0.2.0 … v0.3.0: kyaml's LoadFunctionConfig into StarlarkFnConfig (UnmarshalYAML, Default, Validate).
    if (!fc) throw new ConfigError("unknown `functionConfig` kind: ");
    if (apiVersion === "v1" && kind === "ConfigMap") {
      const data = fc.get("data");
      if (!isMap(data) || !data.has("source"))
        throw new ConfigError("`data.source` must not be empty in `ConfigMap`");
      return { name, source: String(fc.getIn(["data", "source"]) ?? "") };
    }
    if (apiVersion === "fn.kpt.dev/v1alpha1" && kind === "StarlarkRun") {
      const source = fc.get("source");
      if (typeof source !== "string" || source === "")
        throw new ConfigError("`source` in `StarlarkRun` must not be empty");
      return { name, source };
    }
    throw new ConfigError(
      `\`functionConfig\` must be either ${WANT_KINDS}, but we got: ${gvk(apiVersion, kind)}`,
    );
  }
  // starlark/v0.4.0 and later: the kpt-functions-sdk's KubeObject; v0.4.3 names a missing config.
  if (!fc && atLeast(release, "v0.4.3"))
    throw new ConfigError("FunctionConfig is missing. Expect `ConfigMap` or `StarlarkRun`");
  // starlark/v0.5.1 matches group and kind, any version.
  const byKind = atLeast(release, "v0.5.1");
  let source: unknown;
  if (byKind ? group === "" && kind === "ConfigMap" : apiVersion === "v1" && kind === "ConfigMap")
    source = fc?.getIn(["data", "source"]);
  else if (
    byKind
      ? group === "fn.kpt.dev" && kind === "StarlarkRun"
      : apiVersion === "fn.kpt.dev/v1alpha1" && kind === "StarlarkRun"
  )
    source = fc?.get("source");
  else
    throw new ConfigError(
      `\`functionConfig\` must be either ${WANT_KINDS}, but we got: ${gvk(apiVersion, kind)}`,
    );
  if (typeof source !== "string" || source === "") throw new ConfigError("`source` must not be empty");
  return { name, source };
}

/**
 * Modules of `load(...)` (from starlark/v0.3.0; before it a load fails as go.starlark.net fails one with
 * no loader) that porchlight provides: encoding/json and math (go.starlark.net/lib), encoding/base64,
 * encoding/yaml and hash (qri-io/starlib), krmfn (from starlark/v0.4.1). Modules that reach the network or
 * the clock (http, time) or need heavy parsers (bsoup, html, xlsx, zipfile, csv, geo, re) are refused with
 * a clear error: a script stays deterministic and hermetic. A module the catalog does not know loads
 * nothing, as there (`load: name x not found in module y`).
 */
function loaderFor(release: string): ((module: string) => Map<string, Value>) | undefined {
  if (!atLeast(release, "v0.3.0")) return undefined;
  return (module) => {
    switch (module) {
      case "encoding/json.star":
        return new Map([["json", jsonModule()]]);
      case "encoding/base64.star":
        return new Map([["base64", base64Module()]]);
      case "krmfn.star":
        return atLeast(release, "v0.4.1")
          ? new Map([["krmfn", krmfnModule(atLeast(release, "v0.5.1"))]])
          : new Map();
      case "encoding/yaml.star":
        return new Map([["yaml", yamlModule()]]);
      case "hash.star":
        return new Map([["hash", hashModule()]]);
      case "math.star":
        return new Map([["math", mathModule()]]);
      case "bsoup.star":
      case "encoding/csv.star":
      case "geo.star":
      case "html.star":
      case "http.star":
      case "re.star":
      case "time.star":
      case "xlsx.star":
      case "zipfile.star":
        throw new StarlarkEvalError(
          `cannot load ${module}: module not supported by porchlight's starlark function`,
        );
    }
    return new Map();
  };
}

export interface RunOptions {
  /** The catalog release to behave as (`v0.2.1`); absent: the newest reproduced. */
  release?: string;
  limits?: Partial<Limits>;
  signal?: AbortSignal;
  /** Also receives each line the script prints (which goes to stderr, as the catalog's function writes it). */
  print?: (msg: string) => void;
}

/** stderr as kpt keeps a container's: its lines joined by "\n", no trailing newline. */
function stderrText(lines: readonly string[]): string {
  return lines.join("\n");
}

/**
 * The function failing as the release's process fails: the error result in the ResourceList, exit code
 * 1, and on stderr what the script printed then the framework's error line: kyaml's `[error] : msg`
 * (the Result's Error()) before v0.4.0; nothing from the functions SDK v0.4.0 … v0.4.2 pin; `failed to
 * evaluate function: …` from the SDK v0.4.3 pins.
 */
function failure(message: string, printed: readonly string[], release: string, cause?: unknown): never {
  const lines = [...printed];
  if (!atLeast(release, "v0.4.0")) lines.push(`[error] : ${message}`);
  else if (atLeast(release, "v0.4.3")) lines.push("failed to evaluate function: error: function failure");
  const err = new FunctionExitError(message, 1, stderrText(lines), [{ message, severity: "error" }]);
  if (cause !== undefined) err.cause = cause;
  throw err;
}

/**
 * Runs a StarlarkRun over a ResourceList as the catalog's starlark function does: the script sees
 * `ctx.resource_list` and edits `ctx.resource_list["items"]`; the result is that list. Items removed from
 * the list are deleted. Generated items get no annotations, as from the catalog function: kpt (and
 * porchlight's render) files them under `[namespace/]kind_name.yaml`. print() output is the run's stderr.
 */
export function runStarlark(input: ResourceList, opts: RunOptions = {}): ResourceList {
  const release = opts.release ?? NEWEST;
  const printed: string[] = [];
  let cfg: StarlarkConfig;
  try {
    cfg = readConfig(input.functionConfig, release);
  } catch (e) {
    if (e instanceof ConfigError) failure(e.message, printed, release);
    throw e;
  }
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
  const load = loaderFor(release);
  try {
    execFile(cfg.source, new Map([["ctx", ctx]]), {
      name: cfg.name,
      // starlark/v0.3.0 enabled go.starlark.net's set, while/recursion and global reassignment.
      dialect: atLeast(release, "v0.3.0") ? KPT_DIALECT : {},
      limits: opts.limits,
      signal: opts.signal,
      print: (m) => {
        printed.push(m);
        opts.print?.(m);
      },
      ...(load ? { load } : {}),
    });
  } catch (e) {
    // As the catalog function: a run-time error is Go's EvalError.Error(), the message without backtrace;
    // the StarlarkEvalError (position, backtrace()) stays available as the error's cause.
    if (e instanceof StarlarkSyntaxError || e instanceof StarlarkEvalError)
      failure(e.message, printed, release, e);
    throw e;
  }
  let output: KrmItem[];
  try {
    output = outputItems(rl, input.items);
  } catch (e) {
    if (e instanceof StarlarkEvalError) failure(e.message, printed, release, e);
    if (e instanceof ConfigError) failure(e.message, printed, release);
    throw e;
  }
  return {
    ...input,
    items: output,
    ...(printed.length > 0 ? { stderr: stderrText(printed) } : {}),
  };
}

function outputItems(rl: StarDict, inputs: KrmItem[]): KrmItem[] {
  const out = rl.get("items");
  if (!(out instanceof StarList))
    throw new ConfigError(
      `resource_list["items"] must be a list, got ${out === undefined ? "nothing" : typeof out === "object" ? out.typeName : typeof out}`,
    );
  out.elems.forEach((v, i) => {
    if (!(v instanceof StarDict)) throw new ConfigError(`resource_list["items"][${i}] must be a dict`);
    assertYamlable(v, 1);
  });
  const byContents = new Map<unknown, KrmItem>(inputs.map((d) => [d.contents, d]));
  const claims = new Set<object>();
  return out.elems.map((v) => {
    if (!(v instanceof StarDict)) throw new ConfigError("unreachable: checked above");
    const orig = isMap(v.origin) && !claims.has(v.origin) ? byContents.get(v.origin) : undefined;
    if (orig) {
      orig.contents = starToYaml(v, orig.contents, 1, claims) as typeof orig.contents;
      return orig;
    }
    // A new resource, or an input one listed twice: a new document with nodes of its own, keys sorted as
    // the catalog's Go round trip writes them (kpt restores nothing on a resource with no id).
    const doc = new Document();
    doc.contents = starToYaml(v, undefined, 1, null) as typeof doc.contents;
    return doc;
  });
}
