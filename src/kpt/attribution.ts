import { type Document, isMap, isScalar, Scalar } from "yaml";
import { annotationsToSet, appendAfterFoot } from "./annotations.js";

/**
 * kpt's usage attribution on Config Connector resources: `kpt fn render` and `kpt pkg get` record
 * themselves in the `cnrm.cloud.google.com/blueprint` annotation of every resource whose apiVersion
 * holds `.cnrm.` (kpt v1.0.0-beta.56, internal/util/attribution). Users opt out with the environment
 * variable KPT_DISABLE_ATTRIBUTION; porchlight honours it the same way.
 */
const CNRM_BLUEPRINT_ANNOTATION = "cnrm.cloud.google.com/blueprint";
const DISABLE_ATTRIBUTION_ENV = "KPT_DISABLE_ATTRIBUTION";

/** The kpt command group that touched the resource. */
export type CommandGroup = "pkg" | "fn" | "live";

/** Whether attribution is on for this environment (kpt: any non-empty KPT_DISABLE_ATTRIBUTION turns it off). */
export function attributionEnabled(env: NodeJS.ProcessEnv): boolean {
  return (env[DISABLE_ATTRIBUTION_ENV] ?? "") === "";
}

/**
 * The annotation's value once `group` is recorded: `kpt-<group>` when empty; appended after a value
 * with no kpt part; otherwise every kpt part is rewritten as `kpt` followed by the groups it had and
 * this one, in the order pkg, fn, live (`cnrm/x,kpt-pkg-live,y` + fn → `cnrm/x,kpt-pkg-fn-live,y`).
 * A value with several kpt parts is rewritten as kpt rewrites it (see below), oddities included.
 */
export function recordAction(current: string, group: CommandGroup): string {
  if (current === "") return `kpt-${group}`;
  if (!current.includes("kpt-")) return `${current},kpt-${group}`;
  // kpt builds one list for all kpt parts, so a second kpt part also carries the first one's groups.
  const kpt = ["kpt"];
  return current
    .split(",")
    .map((part) => {
      if (!part.includes("kpt")) return part;
      for (const g of ["pkg", "fn", "live"] as const) if (part.includes(g) || g === group) kpt.push(g);
      return kpt.join("-");
    })
    .join(",");
}

/**
 * Records `group` on one resource, as kpt's attribution filter does: only a Config Connector resource
 * with a non-empty `metadata` mapping. An existing annotation keeps its quoting but not a comment on its
 * value (kyaml replaces the value node); a new one is single-quoted, after the other annotations, and
 * an empty `annotations` field (`{}`, no value) goes: a new one comes after metadata's other fields.
 */
export function attribute(doc: Document, group: CommandGroup): void {
  const root = doc.contents;
  if (!isMap(root)) return;
  const apiVersion = root.get("apiVersion");
  if (typeof apiVersion !== "string" || !apiVersion.includes(".cnrm.")) return;
  const metadata = root.get("metadata", true);
  if (!isMap(metadata) || metadata.items.length === 0) return;
  // kyaml's SetAnnotation clears an empty `annotations` field first: the new one comes after the others
  const map = annotationsToSet(metadata, false);
  const pair = map.items.find((p) => isScalar(p.key) && String(p.key.value) === CNRM_BLUEPRINT_ANNOTATION);
  const existing = pair && isScalar(pair.value) ? pair.value : undefined;
  const value = new Scalar(recordAction(existing ? String(existing.value ?? "") : "", group));
  value.type = existing ? (existing.type ?? "PLAIN") : "QUOTE_SINGLE";
  if (pair) pair.value = value;
  else appendAfterFoot(map, CNRM_BLUEPRINT_ANNOTATION, value);
}
