import examples from "@octokit/webhooks-examples";

/** A recorded payload from `@octokit/webhooks-examples` (GitHub's own examples), deep-copied. */
export function recorded(event: string, action?: string): Record<string, unknown> {
  const group = (examples as unknown as { name: string; examples: Record<string, unknown>[] }[]).find(
    (e) => e.name === event,
  );
  const found = group?.examples.find((p) => p.action === action);
  if (!found) throw new Error(`no recorded ${event}${action ? `.${action}` : ""} example`);
  return structuredClone(found);
}

export interface ForgeRepoRef {
  owner: string;
  name: string;
  cloneUrl: string;
  htmlUrl: string;
}

/**
 * A recorded payload moved onto a repository of the embedded forge: the repository, owner and URLs
 * the runner's event file would name there, an Actions payload's lack of `installation`, and the
 * event's own fields (`overrides`, deep-merged) such as the pull request's number and head.
 */
export function onForge(
  payload: Record<string, unknown>,
  repo: ForgeRepoRef,
  overrides: Record<string, unknown>,
): Record<string, unknown> {
  const { installation: _, ...rest } = payload;
  const repository = rest.repository as Record<string, unknown>;
  const owner = repository.owner as Record<string, unknown>;
  const here = {
    ...repository,
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    private: false,
    clone_url: repo.cloneUrl,
    html_url: repo.htmlUrl,
    default_branch: "main",
    owner: { ...owner, login: repo.owner, name: repo.owner, type: "Organization" },
  };
  // a pull request's head and base name the recorded repository where they are its own branches (not a
  // fork's): moved with it, as the event would name the forge's repository
  const pull = rest.pull_request;
  const side = (end: unknown) => {
    if (!isObject(end) || !isObject(end.repo) || end.repo.full_name !== repository.full_name) return end;
    return { ...end, repo: here };
  };
  const moved = {
    ...rest,
    repository: here,
    ...(isObject(pull) ? { pull_request: { ...pull, head: side(pull.head), base: side(pull.base) } } : {}),
  };
  return merge(moved, overrides) as Record<string, unknown>;
}

function merge(base: unknown, over: unknown): unknown {
  if (!isObject(base) || !isObject(over)) return over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = merge(base[k], v);
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
