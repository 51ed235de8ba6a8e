import type { RepoLimits } from "./limits.js";
import type { Rollout } from "./rollout-schema.js";
import type { Guardrail, MergeMethod, RepoConfigFile, Runtime, VersioningScheme } from "./schema.js";

/**
 * The channels a repository has when it names none. Here, not in schema.ts: a repository without a
 * configuration file resolves its configuration without loading the schema.
 */
export const DEFAULT_CHANNEL_NAMES: readonly string[] = ["stable", "beta"];

/** The configuration a repository runs with: every field set, after the defaults step. */
export interface RepoConfig {
  /** The base branch; undefined means the repository's default branch, which only GitHub knows. */
  baseBranch: string | undefined;
  packageRoot: string;
  deployment: boolean;
  requiredApprovals: number;
  /**
   * The repository's configuration sets requiredApprovals: a person's own `rpkg approve` of their own
   * proposal is then not one of them. Unset, it is, as in Porch, where the caller's approve approves.
   */
  requiredApprovalsSet: boolean;
  mergeMethod: MergeMethod;
  guardrails: Guardrail[];
  channels: { names: string[]; default: string };
  /** What the repository asks for; undefined means "whatever the app's operator allows". */
  functions: { runtimes: Runtime[] | undefined };
  versioning: { scheme: VersioningScheme };
  /** Limits the repository lowered below the app's (see limits.ts); empty: the app's. */
  limits: RepoLimits;
  /** Mirroring on publish: the OCI repository prefix (no `oci://`), when set. */
  publish: { oci?: { repository: string } };
  /** Registry host → the operator's credential the bot uses there for this repository (docs/sources.md). */
  registries: Record<string, string>;
  /** Fan-out as a progressive rollout (a management repository's); undefined: every variant at once. */
  rollout: Rollout | undefined;
}

const DEFAULT_CHANNELS = DEFAULT_CHANNEL_NAMES;

export function defaultConfig(): RepoConfig {
  return {
    baseBranch: undefined,
    packageRoot: ".",
    deployment: false,
    requiredApprovals: 1,
    requiredApprovalsSet: false,
    mergeMethod: "merge",
    guardrails: [],
    channels: { names: [...DEFAULT_CHANNELS], default: "stable" },
    functions: { runtimes: undefined },
    versioning: { scheme: "integer" },
    limits: {},
    publish: {},
    registries: {},
    rollout: undefined,
  };
}

/**
 * The defaults step: built-in defaults, then the organisation's `.github` repository file, then the
 * repository's own file. Each top-level field a file sets replaces that field as a whole (a repository
 * that sets `guardrails` gets exactly its own list; one that sets `channels` gets its own channels, with
 * built-in defaults for what it leaves out), so a field never mixes two files and the checks a file
 * passed on its own (the default channel is one of the names) still hold after merging.
 */
export function resolveConfig(
  orgDefaults: RepoConfigFile | undefined,
  repoConfig: RepoConfigFile | undefined,
): RepoConfig {
  const config = defaultConfig();
  for (const file of [orgDefaults, repoConfig]) {
    if (file) applyFile(config, file);
  }
  return config;
}

function applyFile(config: RepoConfig, file: RepoConfigFile): void {
  const base = defaultConfig();
  if (file.baseBranch !== undefined) config.baseBranch = file.baseBranch;
  if (file.packageRoot !== undefined) config.packageRoot = normalizeDir(file.packageRoot);
  if (file.deployment !== undefined) config.deployment = file.deployment;
  if (file.requiredApprovals !== undefined) {
    config.requiredApprovals = file.requiredApprovals;
    config.requiredApprovalsSet = true;
  }
  if (file.mergeMethod !== undefined) config.mergeMethod = file.mergeMethod;
  if (file.guardrails !== undefined) config.guardrails = file.guardrails.map((g) => ({ ...g }));
  if (file.channels !== undefined) {
    const names = file.channels.names ? [...file.channels.names] : base.channels.names;
    const fallback = names.includes(base.channels.default) ? base.channels.default : (names[0] as string);
    config.channels = { names, default: file.channels.default ?? fallback };
  }
  if (file.functions !== undefined) {
    config.functions = { runtimes: file.functions.runtimes ? [...file.functions.runtimes] : undefined };
  }
  if (file.limits !== undefined) config.limits = { ...file.limits };
  if (file.publish !== undefined) {
    const repository = file.publish.oci?.repository.replace(/^oci:\/\//, "");
    config.publish = repository ? { oci: { repository } } : {};
  }
  if (file.registries !== undefined) config.registries = { ...file.registries };
  if (file.rollout !== undefined) config.rollout = file.rollout;
  if (file.versioning !== undefined) {
    config.versioning = { scheme: file.versioning.scheme ?? base.versioning.scheme };
  }
}

/** `./apps/` and `apps` name the same directory; `.` and `./` the repository root. */
function normalizeDir(dir: string): string {
  const parts = dir.split("/").filter((p) => p !== "" && p !== ".");
  return parts.length === 0 ? "." : parts.join("/");
}
