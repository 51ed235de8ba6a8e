import { applyReplacements } from "./builtins/apply-replacements.js";
import { applySetters } from "./builtins/apply-setters.js";
import { ensureNameSubstring } from "./builtins/ensure-name-substring.js";
import { kubeconform } from "./builtins/kubeconform.js";
import { kubeval } from "./builtins/kubeval.js";
import { searchReplace } from "./builtins/search-replace.js";
import { setAnnotations } from "./builtins/set-annotations.js";
import { setImage } from "./builtins/set-image.js";
import { setLabels, setLabelsKustomize } from "./builtins/set-labels.js";
import { setNamespaceKustomize } from "./builtins/set-namespace-kustomize.js";
import { setNamespaceSdk } from "./builtins/set-namespace-sdk.js";
import { FunctionRegistry } from "./function-registry.js";
import { starlarkFunction } from "./starlark/function.js";
import type { BuiltinFunction } from "./types.js";

// The registry itself (no builtin in it) is function-registry.ts: a render whose packages run no
// function loads it without the builtins and the schemas they validate their configs with.
export * from "./function-registry.js";

/**
 * The builtin functions, selected by image name regardless of registry prefix, and by the release the
 * tag names: `gcr.io/kpt-fn/set-namespace:v0.4.1` and
 * `ghcr.io/kptdev/krm-functions-catalog/set-namespace:latest` both run the builtin `set-namespace` with
 * release v0.4.1; `set-namespace:v0.1.3` runs it with v0.1.3 only if a builtin declares that release.
 *
 * One line per builtin (each exports a BuiltinFunction); keep the list sorted by name.
 */
const BUILTINS: readonly BuiltinFunction[] = [
  applyReplacements,
  applySetters,
  ensureNameSubstring,
  kubeconform,
  kubeval,
  searchReplace,
  setAnnotations,
  setImage,
  setLabels,
  setLabelsKustomize,
  setNamespaceKustomize,
  setNamespaceSdk,
  starlarkFunction,
];

/** The registry of every builtin shipped with porchlight. */
export function defaultRegistry(): FunctionRegistry {
  return new FunctionRegistry(BUILTINS);
}
