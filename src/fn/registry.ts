import { applyReplacements } from "./builtins/apply-replacements.js";
import { applySetters } from "./builtins/apply-setters.js";
import { ensureNameSubstring } from "./builtins/ensure-name-substring.js";
import { kubeconform } from "./builtins/kubeconform.js";
import { searchReplace } from "./builtins/search-replace.js";
import { setAnnotations } from "./builtins/set-annotations.js";
import { setImage } from "./builtins/set-image.js";
import { setLabels } from "./builtins/set-labels.js";
import { setNamespace } from "./builtins/set-namespace.js";
import { starlarkFunction } from "./starlark/index.js";
import type { BuiltinFunction } from "./types.js";

/**
 * The builtin functions, selected by image name regardless of registry prefix and tag:
 * `gcr.io/kpt-fn/set-namespace:v0.4.1` and `ghcr.io/kptdev/krm-functions-catalog/set-namespace:latest`
 * both run the builtin `set-namespace`.
 *
 * One line per file in src/fn/builtins/ (each exports a BuiltinFunction); keep the list sorted by name.
 */
const BUILTINS: readonly BuiltinFunction[] = [
  applyReplacements,
  applySetters,
  ensureNameSubstring,
  kubeconform,
  searchReplace,
  setAnnotations,
  setImage,
  setLabels,
  setNamespace,
  starlarkFunction,
];

/** How a pipeline step may be run, for the message given when an image is not a builtin. */
export interface RuntimeHints {
  execAllowed?: boolean;
  containerAllowed?: boolean;
}

/** The function's short name in an image reference: the last path segment, without tag or digest. */
export function imageShortName(image: string): string {
  let ref = image.trim();
  const at = ref.indexOf("@");
  if (at >= 0) ref = ref.slice(0, at);
  const slash = ref.lastIndexOf("/");
  let name = slash >= 0 ? ref.slice(slash + 1) : ref;
  const colon = name.indexOf(":");
  if (colon >= 0) name = name.slice(0, colon);
  return name.toLowerCase();
}

/** An image that names no builtin, with no other runtime to run it. */
export class UnknownFunctionError extends Error {
  constructor(
    readonly image: string,
    readonly known: readonly string[],
    hints: RuntimeHints = {},
  ) {
    super(unknownMessage(image, known, hints));
    this.name = "UnknownFunctionError";
  }
}

function unknownMessage(image: string, known: readonly string[], hints: RuntimeHints): string {
  const list = known.length > 0 ? known.join(", ") : "(none)";
  const ways: string[] = [];
  if (!hints.containerAllowed) {
    ways.push("to run it as a container image, pass --allow-container (needs docker or podman)");
  }
  if (!hints.execAllowed) {
    ways.push("to run a local executable instead, use `exec:` in the Kptfile (or --exec) with --allow-exec");
  }
  const how = ways.length > 0 ? `; ${ways.join("; ")}` : "";
  return `function image "${image}" is not a builtin function (builtins: ${list})${how}`;
}

/** A lookup table from image names to builtin functions. Immutable: build a new one to add functions. */
export class FunctionRegistry {
  private readonly byName: ReadonlyMap<string, BuiltinFunction>;

  constructor(builtins: readonly BuiltinFunction[]) {
    const byName = new Map<string, BuiltinFunction>();
    for (const fn of builtins) {
      const key = imageShortName(fn.name);
      if (byName.has(key)) throw new Error(`builtin function "${key}" is registered twice`);
      byName.set(key, fn);
    }
    this.byName = byName;
  }

  /** Builtin names, sorted. */
  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  /** The builtin an image refers to, or undefined. */
  find(image: string): BuiltinFunction | undefined {
    return this.byName.get(imageShortName(image));
  }

  /** The builtin an image refers to; throws UnknownFunctionError listing the builtins otherwise. */
  resolve(image: string, hints: RuntimeHints = {}): BuiltinFunction {
    const fn = this.find(image);
    if (!fn) throw new UnknownFunctionError(image, this.names(), hints);
    return fn;
  }

  /** A registry with these functions added (replacing builtins of the same name). */
  with(extra: readonly BuiltinFunction[]): FunctionRegistry {
    const names = new Set(extra.map((f) => imageShortName(f.name)));
    return new FunctionRegistry([
      ...[...this.byName.values()].filter((f) => !names.has(imageShortName(f.name))),
      ...extra,
    ]);
  }
}

/** The registry of every builtin shipped with porchlight. */
export function defaultRegistry(): FunctionRegistry {
  return new FunctionRegistry(BUILTINS);
}
