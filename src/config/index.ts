export { formatFieldPath } from "../kpt/yaml-locate.js";
export { guardrailName, guardrailsFor } from "./guardrails.js";
export { configJsonSchema, configJsonSchemaText, JSON_SCHEMA_ID } from "./json-schema.js";
export { editDistance, nearestName } from "./nearest-name.js";
export { CONFIG_PATH, type ConfigSource, type ParsedConfig, parseRepoConfig } from "./parse.js";
export { type ConfigProblem, formatProblem } from "./problem.js";
export { configAnnotation, configCheckOutput } from "./report.js";
export { DEFAULT_CHANNELS, defaultConfig, type RepoConfig, resolveConfig } from "./resolve.js";
export { type EffectiveRuntimes, effectiveRuntimes, operatorRuntimesFromEnv } from "./runtimes.js";
export {
  type Guardrail,
  MERGE_METHODS,
  type MergeMethod,
  type RepoConfigFile,
  RepoConfigFileSchema,
  RUNTIMES,
  type Runtime,
  VERSIONING_SCHEMES,
  type VersioningScheme,
} from "./schema.js";
