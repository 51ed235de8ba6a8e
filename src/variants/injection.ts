import { type Document, isMap, type YAMLMap } from "yaml";
import type { InjectionSelector, PackageVariant } from "./schema.js";
import { ensureSeq, getString, VariantMutationError, type YamlFile } from "./yaml-files.js";

/** Marks an injection point in a package: value `required` or `optional` (Porch). */
const CONFIG_INJECTION_ANNOTATION = "kpt.dev/config-injection";
/** Set on an injection point to the name of the resource injected into it (Porch's controller). */
const INJECTED_RESOURCE_ANNOTATION = "kpt.dev/injected-resource";

/**
 * A resource that may be injected: what Porch finds in the cluster, porchlight gets from the executing
 * layer (read from the downstream repository, see docs/variants.md).
 */
export interface InjectableResource {
  apiVersion: string;
  kind: string;
  metadata: { name: string; [key: string]: unknown };
  [field: string]: unknown;
}

export interface InjectionPointResult {
  file: string;
  kind: string;
  name: string;
  /** `config.injection.<Kind>.<name>`, the Kptfile condition for this point. */
  conditionType: string;
  required: boolean;
  injected: boolean;
  injectedName?: string;
  /** Why nothing was injected, or what was. */
  message: string;
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf("/");
  return i < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** Which field is replaced: `data` of a core ConfigMap, `spec` of anything else (Porch's allowed fields). */
function injectedField(apiVersion: string, kind: string): "data" | "spec" {
  return splitApiVersion(apiVersion).group === "" && kind === "ConfigMap" ? "data" : "spec";
}

function selectorMatches(s: InjectionSelector, apiVersion: string, kind: string): boolean {
  const { group, version } = splitApiVersion(apiVersion);
  return (
    (s.group === undefined || s.group === group) &&
    (s.version === undefined || s.version === version) &&
    (s.kind === undefined || s.kind === kind)
  );
}

/**
 * Config injection as Porch does it: every resource annotated `kpt.dev/config-injection` is an injection
 * point; the first of the variant's injectors whose group/version/kind (those given) match the point and
 * whose name names an available resource of the point's apiVersion and kind wins, and that resource's
 * `spec` (`data` for a ConfigMap) replaces the point's, with `kpt.dev/injected-resource` set to its name.
 * An annotation value other than required/optional, or two points with one condition type, is an error in
 * the upstream package; an unmatched point is not (its Kptfile condition says so).
 */
export function applyInjection(
  files: readonly YamlFile[],
  variant: PackageVariant,
  resources: readonly InjectableResource[],
): { results: InjectionPointResult[]; changed: Set<string>; changes: { file: string; summary: string }[] } {
  const points: { file: YamlFile; doc: Document; result: InjectionPointResult }[] = [];
  const errors: string[] = [];
  const hints = new Set<string>();
  // Porch's validateInjectionPoints: each point's own error, then a clash with the point of the same
  // condition type seen last (three points of one type are two clashes, first-second and second-third).
  const lastOfType = new Map<string, string>();
  for (const file of files) {
    for (const doc of file.docs) {
      const value = getString(doc, ["metadata", "annotations", CONFIG_INJECTION_ANNOTATION]);
      if (value === undefined) continue;
      const kind = getString(doc, ["kind"]) ?? "";
      const name = getString(doc, ["metadata", "name"]) ?? "";
      const conditionType = ["config", "injection", kind, name].join(".");
      if (value !== "required" && value !== "optional") {
        errors.push(
          `${file.path}: ${kind}/${name} has invalid "${CONFIG_INJECTION_ANNOTATION}" annotation value of "${value}"`,
        );
        hints.add(`set ${CONFIG_INJECTION_ANNOTATION} to required or optional`);
      }
      const clash = lastOfType.get(conditionType);
      if (clash !== undefined) {
        errors.push(`duplicate injection conditionType "${conditionType}" (${clash} and ${file.path})`);
        hints.add("give each injection point its own kind and name");
      }
      lastOfType.set(conditionType, file.path);
      points.push({
        file,
        doc,
        result: {
          file: file.path,
          kind,
          name,
          conditionType,
          required: value === "required",
          injected: false,
          message: "",
        },
      });
    }
  }
  if (errors.length > 0) {
    const at = [...new Set(points.map((p) => p.file.path))];
    throw new VariantMutationError(
      at.length === 1 && at[0] !== undefined ? at[0] : "package",
      `errors in injection points: ${errors.join(", ")} (${[...hints].join("; ")})`,
    );
  }

  const changed = new Set<string>();
  const changes: { file: string; summary: string }[] = [];
  const injectors = variant.spec.injectors ?? [];
  for (const { file, doc, result } of points) {
    const apiVersion = getString(doc, ["apiVersion"]) ?? "";
    if (injectors.length === 0) {
      result.message = "no injectors defined";
      continue;
    }
    const candidates = resources.filter((r) => r.apiVersion === apiVersion && r.kind === result.kind);
    if (candidates.length === 0) {
      result.message = `no injectable resources of type ${apiVersion}.${result.kind}`;
      continue;
    }
    let chosen: InjectableResource | undefined;
    for (const injector of injectors) {
      if (!selectorMatches(injector, apiVersion, result.kind)) continue;
      chosen = candidates.find((c) => c.metadata.name === injector.name);
      if (chosen) break;
    }
    if (!chosen) {
      result.message = "no resource matched any injection selector for this injection point";
      continue;
    }
    const field = injectedField(apiVersion, result.kind);
    if (!(field in chosen)) {
      result.message = `field "${field}" not found in resource "${chosen.metadata.name}"`;
      continue;
    }
    result.injected = true;
    result.injectedName = chosen.metadata.name;
    // Porch's message says "from cluster"; the resource came from the downstream repository here.
    result.message = `injected resource "${chosen.metadata.name}" from the downstream repository`;
    const value = chosen[field];
    const before = JSON.stringify(doc.getIn([field]) === undefined ? null : doc.toJS()[field]);
    if (before !== JSON.stringify(value ?? null)) {
      doc.setIn([field], doc.createNode(value));
      changed.add(file.path);
      changes.push({
        file: file.path,
        summary: `injected ${field} of ${result.kind} ${chosen.metadata.name} into ${result.kind}/${result.name}`,
      });
    }
    if (getString(doc, ["metadata", "annotations", INJECTED_RESOURCE_ANNOTATION]) !== chosen.metadata.name) {
      doc.setIn(["metadata", "annotations", INJECTED_RESOURCE_ANNOTATION], chosen.metadata.name);
      changed.add(file.path);
    }
  }
  return { results: points.map((p) => p.result), changed, changes };
}

/**
 * Records each injection point in the Kptfile, as Porch records it on the package revision: a status
 * condition `config.injection.<Kind>.<name>` (True with reason ConfigInjected, or False with reason
 * NoResourceSelected and why), and a readiness gate for each required point. Other conditions and gates
 * stay; both lists are kept sorted, as Porch writes them.
 */
export function recordInjectionConditions(
  kptfile: Document,
  results: readonly InjectionPointResult[],
): string[] {
  if (results.length === 0) return [];
  const before = JSON.stringify([
    kptfile.getIn(["info", "readinessGates"]),
    kptfile.getIn(["status", "conditions"]),
  ]);
  const required = results.filter((r) => r.required);
  if (required.length > 0) {
    const gates = ensureSeq(kptfile, ["info", "readinessGates"]);
    for (const r of required) {
      if (!gates.items.some((g) => isMap(g) && g.get("conditionType") === r.conditionType))
        gates.add(kptfile.createNode({ conditionType: r.conditionType }));
    }
    sortBy(gates.items, "conditionType");
  }
  const conditions = ensureSeq(kptfile, ["status", "conditions"]);
  for (const r of results) {
    const wanted = {
      type: r.conditionType,
      status: r.injected ? "True" : "False",
      reason: r.injected ? "ConfigInjected" : "NoResourceSelected",
      message: r.message,
    };
    const existing = conditions.items.find(
      (c): c is YAMLMap => isMap(c) && c.get("type") === r.conditionType,
    );
    if (existing) for (const [k, v] of Object.entries(wanted)) existing.set(k, v);
    else conditions.add(kptfile.createNode(wanted));
  }
  sortBy(conditions.items, "type");
  const after = JSON.stringify([
    kptfile.getIn(["info", "readinessGates"]),
    kptfile.getIn(["status", "conditions"]),
  ]);
  if (before === after) return [];
  return results.map(
    (r) =>
      `${r.conditionType}: ${r.injected ? "injected" : "not injected"}${r.required ? " (required)" : ""}: ${r.message}`,
  );
}

function sortBy(items: unknown[], key: string): void {
  const value = (n: unknown) => (isMap(n) ? String(n.get(key) ?? "") : "");
  // Go's sort.Strings order (bytes), as Porch sorts them: "B" before "a".
  items.sort((a, b) => (value(a) < value(b) ? -1 : value(a) > value(b) ? 1 : 0));
}
