import { type Document, isMap, isScalar } from "yaml";
import { scalarText } from "../util/yaml-scalar.js";

/**
 * The kubeconform function's config, as the catalog reads it: each key at the top level of the function
 * config or under `data:` (a ConfigMap, as a Kptfile `configMap:` gives it); lists are comma-separated,
 * booleans `true` (any case) or `1`. `kubernetes_version` is kubeval's key, kept for old configs.
 */
export interface KubeconformConfig {
  schemaLocation: string;
  additionalSchemaLocations: string[];
  ignoreMissingSchemas: boolean;
  skipKinds: string[];
  strict: boolean;
  kubernetesVersion: string;
}

export function readConfig(config: Document | undefined): KubeconformConfig {
  const get = (key: string): unknown => {
    if (!config || !isMap(config.contents)) return undefined;
    const top = config.get(key, true);
    if (top !== undefined && top !== null) return top;
    const data = config.get("data", true);
    return isMap(data) ? data.get(key, true) : undefined;
  };
  const text = (key: string): string => {
    const node = get(key);
    return isScalar(node) && node.value !== null && node.value !== undefined ? scalarText(node).trim() : "";
  };
  const list = (key: string): string[] =>
    text(key)
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
  const bool = (key: string): boolean => {
    const node = get(key);
    if (isScalar(node) && typeof node.value === "boolean") return node.value;
    const value = text(key);
    return value.toLowerCase() === "true" || value === "1";
  };
  return {
    schemaLocation: text("schema_location"),
    additionalSchemaLocations: list("additional_schema_locations"),
    ignoreMissingSchemas: bool("ignore_missing_schemas"),
    skipKinds: list("skip_kinds"),
    strict: bool("strict"),
    kubernetesVersion: text("kubernetes_version"),
  };
}
