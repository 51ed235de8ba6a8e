export { guardrailName, guardrailsFor } from "./guardrails.js";
export { configJsonSchema } from "./json-schema.js";
export { editDistance, nearestName } from "./nearest-name.js";
export { parseRepoConfig } from "./parse.js";
export { formatProblem } from "./problem.js";
export { configCheckOutput } from "./report.js";
export { defaultConfig, type RepoConfig, resolveConfig } from "./resolve.js";
export { effectiveRuntimes } from "./runtimes.js";
export type {
  Guardrail,
  RepoConfigFile,
  Runtime,
} from "./schema.js";
