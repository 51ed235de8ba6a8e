import { CONFIG_PATH, type ParsedConfig, parseRepoConfig } from "../config/parse.js";
import type { ConfigProblem } from "../config/problem.js";
import { configCheckOutput } from "../config/report.js";
import { type RepoConfig, resolveConfig } from "../config/resolve.js";
import { type RepoConfigFile, RepoConfigFileSchema } from "../config/schema.js";
import type { RepoPort } from "../github/port.js";
import { reportCheck } from "../jobs/check-report.js";
import { CHECK } from "../jobs/context.js";

interface ConfigFile {
  owner: string;
  repo: string;
  path: string;
  config: Record<string, unknown> | null;
}

/** The part of probot's Octokit the loader uses: its config plugin, and raw file reads. */
export interface ConfigOctokit {
  config: {
    get(options: { owner: string; repo: string; path: string }): Promise<{ files: ConfigFile[] }>;
  };
  request(route: string, params: Record<string, unknown>): Promise<{ data: unknown }>;
}

export type LoadedConfig = { ok: true; config: RepoConfig } | { ok: false; problems: ConfigProblem[] };

/**
 * The repository's configuration through probot's config loader (`octokit.config.get`): the
 * repository's `.github/porchlight.yml`, else the organisation's `.github` repository's, and any file
 * it `_extends`. Each file is checked against the schema; a file that does not parse or does not fit
 * is read again as text so every problem names its file, line and column.
 */
export async function loadRepoConfig(
  octokit: ConfigOctokit,
  repo: { owner: string; repo: string },
): Promise<LoadedConfig> {
  let files: ConfigFile[];
  try {
    ({ files } = await octokit.config.get({ ...repo, path: CONFIG_PATH }));
  } catch (e) {
    const problems = await problemsOf(octokit, { ...repo, path: CONFIG_PATH });
    if (problems.length > 0) return { ok: false, problems };
    throw e;
  }
  const present = files.filter((f) => f.config !== null);
  const checked: RepoConfigFile[] = [];
  for (const f of present) {
    const { _extends: _, ...fields } = f.config as Record<string, unknown>;
    const result = RepoConfigFileSchema.safeParse(fields);
    if (result.success) {
      checked.push(result.data);
      continue;
    }
    const problems = await problemsOf(octokit, f);
    if (problems.length > 0) return { ok: false, problems };
  }
  // files[0] is the repository's own file (or the organisation's when it has none); later files are
  // what it extends, so they are the defaults.
  const [own, ...defaults] = checked;
  const base = defaults
    .reverse()
    .reduce<RepoConfigFile | undefined>((acc, f) => ({ ...(acc ?? {}), ...f }), undefined);
  return { ok: true, config: resolveConfig(base, own) };
}

async function problemsOf(
  octokit: ConfigOctokit,
  file: { owner: string; repo: string; path: string },
): Promise<ConfigProblem[]> {
  let text: string;
  try {
    const { data } = await octokit.request("GET /repos/{owner}/{repo}/contents/{path}", {
      ...file,
      mediaType: { format: "raw" },
    });
    text = typeof data === "string" ? data : "";
  } catch {
    return [];
  }
  const own = file.path === CONFIG_PATH ? "" : `${file.owner}/${file.repo}:`;
  const parsed: ParsedConfig = parseRepoConfig(text, { path: `${own}${file.path}` });
  if (parsed.ok) {
    // The schema accepted the text after all (e.g. only `_extends` differed): nothing to report.
    return [];
  }
  return parsed.problems;
}

/** The failing `porchlight/config` check quoting each problem at its file and line. */
export async function reportConfigProblems(
  port: RepoPort,
  sha: string,
  problems: ConfigProblem[],
): Promise<void> {
  const output = configCheckOutput(problems);
  await reportCheck(port, {
    name: CHECK.config,
    headSha: sha,
    conclusion: "failure",
    title: output.title,
    summary: output.summary,
    annotations: output.annotations,
  });
}

/** A green `porchlight/config` on the commit that fixed (or changed) the configuration. */
export async function reportConfigOk(port: RepoPort, sha: string): Promise<void> {
  await reportCheck(port, {
    name: CHECK.config,
    headSha: sha,
    conclusion: "success",
    title: `${CONFIG_PATH} is valid`,
    summary: "porchlight reads this configuration.",
  });
}
