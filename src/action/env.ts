/**
 * The environment GitHub Actions sets for a step, read once and checked: which event started the
 * run, where its payload is, the token, the REST API and the repository. Every missing or malformed
 * variable is named in one error, with what to do about it.
 */
export interface ActionEnv {
  /** `GITHUB_EVENT_NAME`: push, pull_request, issue_comment, pull_request_review, schedule, ... */
  eventName: string;
  /** `GITHUB_EVENT_PATH`: the JSON file holding the event's payload. */
  eventPath: string;
  /** `INPUT_TOKEN` (an action input) or `GITHUB_TOKEN`. */
  token: string;
  /** `GITHUB_API_URL`, without a trailing slash; GitHub's own when unset. */
  apiUrl: string;
  /** `GITHUB_REPOSITORY` split: the repository the workflow runs in. */
  repository: { owner: string; repo: string };
  /** Names the run in logs and in probot's delivery id: `<GITHUB_RUN_ID>.<GITHUB_RUN_ATTEMPT>`. */
  runId: string;
}

export const DEFAULT_API_URL = "https://api.github.com";

export class ActionEnvError extends Error {
  constructor(readonly problems: string[]) {
    super(
      `the GitHub Actions environment is incomplete:\n${problems.map((p) => `  - ${p}`).join("\n")}\n` +
        "Run porchlight from a workflow step (see docs/actions.md), or set these variables yourself.",
    );
    this.name = "ActionEnvError";
  }
}

/** Reads and checks the Actions environment; `needsEvent: false` for runs that ignore the payload. */
export function readActionEnv(env: NodeJS.ProcessEnv, options: { needsEvent?: boolean } = {}): ActionEnv {
  const needsEvent = options.needsEvent ?? true;
  const problems: string[] = [];
  const value = (name: string) => {
    const v = env[name]?.trim();
    return v ? v : undefined;
  };
  const eventName = value("GITHUB_EVENT_NAME") ?? "";
  const eventPath = value("GITHUB_EVENT_PATH") ?? "";
  if (needsEvent && !eventName) problems.push("GITHUB_EVENT_NAME is not set: which event started this run?");
  if (needsEvent && !eventPath)
    problems.push("GITHUB_EVENT_PATH is not set: it names the JSON file holding the event's payload");
  const token = value("INPUT_TOKEN") ?? value("GITHUB_TOKEN") ?? "";
  if (!token)
    problems.push(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: an Actions expression the user writes, not a template
      "GITHUB_TOKEN is not set: pass it to the step with `env: GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}`",
    );
  const apiUrl = (value("GITHUB_API_URL") ?? DEFAULT_API_URL).replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]/.test(apiUrl))
    problems.push(`GITHUB_API_URL must be an http(s) URL, got "${apiUrl}"`);
  const full = value("GITHUB_REPOSITORY") ?? "";
  const [owner, repo, ...rest] = full.split("/");
  if (!owner || !repo || rest.length > 0)
    problems.push(
      full
        ? `GITHUB_REPOSITORY must be owner/name, got "${full}"`
        : "GITHUB_REPOSITORY is not set: it names the repository (owner/name) the workflow runs in",
    );
  if (problems.length > 0) throw new ActionEnvError(problems);
  const runId = value("GITHUB_RUN_ID") ?? "local";
  const attempt = value("GITHUB_RUN_ATTEMPT") ?? "1";
  return {
    eventName,
    eventPath,
    token,
    apiUrl,
    repository: { owner: owner as string, repo: repo as string },
    runId: `${runId}.${attempt}`,
  };
}
