import type { ForgeCore } from "../context.js";
import { forksOf, parentOf, sourceOf } from "../forks.js";
import { nodeId } from "../http.js";
import type { RepoRec } from "../types.js";
import { userByLogin } from "./user.js";

/** GitHub's `repository` / `full-repository` object for the REST API and webhooks. */
export function repoShape(
  core: ForgeCore,
  r: RepoRec,
  opts: { unixTimes?: boolean; permissionsFor?: string; webhook?: boolean } = {},
): Record<string, unknown> {
  const full = `${r.ownerLogin}/${r.name}`;
  const api = `${core.urls.api}/repos/${full}`;
  const html = `${core.urls.web}/${full}`;
  const host = new URL(core.urls.web).host;
  const openIssues = core.store.data.issues.filter((i) => i.repoId === r.id && i.state === "open").length;
  const time = (iso: string | null): string | number | null =>
    opts.unixTimes && iso ? Math.floor(Date.parse(iso) / 1000) : iso;
  const forks = forksOf(core, r).length;
  const shape: Record<string, unknown> = {
    id: r.id,
    node_id: nodeId("Repository", r.id),
    name: r.name,
    full_name: full,
    private: r.private,
    owner: userByLogin(core, r.ownerLogin),
    html_url: html,
    description: r.description,
    fork: r.forkOf !== undefined,
    url: api,
    forks_url: `${api}/forks`,
    keys_url: `${api}/keys{/key_id}`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    teams_url: `${api}/teams`,
    hooks_url: `${api}/hooks`,
    issue_events_url: `${api}/issues/events{/number}`,
    events_url: `${api}/events`,
    assignees_url: `${api}/assignees{/user}`,
    branches_url: `${api}/branches{/branch}`,
    tags_url: `${api}/tags`,
    blobs_url: `${api}/git/blobs{/sha}`,
    git_tags_url: `${api}/git/tags{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    trees_url: `${api}/git/trees{/sha}`,
    statuses_url: `${api}/statuses/{sha}`,
    languages_url: `${api}/languages`,
    stargazers_url: `${api}/stargazers`,
    contributors_url: `${api}/contributors`,
    subscribers_url: `${api}/subscribers`,
    subscription_url: `${api}/subscription`,
    commits_url: `${api}/commits{/sha}`,
    git_commits_url: `${api}/git/commits{/sha}`,
    comments_url: `${api}/comments{/number}`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    contents_url: `${api}/contents/{+path}`,
    compare_url: `${api}/compare/{base}...{head}`,
    merges_url: `${api}/merges`,
    archive_url: `${api}/{archive_format}{/ref}`,
    downloads_url: `${api}/downloads`,
    issues_url: `${api}/issues{/number}`,
    pulls_url: `${api}/pulls{/number}`,
    milestones_url: `${api}/milestones{/number}`,
    notifications_url: `${api}/notifications{?since,all,participating}`,
    labels_url: `${api}/labels{/name}`,
    releases_url: `${api}/releases{/id}`,
    deployments_url: `${api}/deployments`,
    created_at: time(r.createdAt),
    updated_at: r.updatedAt,
    pushed_at: time(r.pushedAt ?? r.createdAt),
    git_url: `git://${host}/${full}.git`,
    ssh_url: `git@${host}:${full}.git`,
    clone_url: `${html}.git`,
    svn_url: html,
    homepage: null,
    size: 0,
    stargazers_count: 0,
    watchers_count: 0,
    language: null,
    has_issues: true,
    has_projects: true,
    has_downloads: true,
    has_wiki: true,
    has_pages: false,
    has_discussions: false,
    forks_count: forks,
    mirror_url: null,
    archived: false,
    disabled: false,
    open_issues_count: openIssues,
    license: null,
    allow_forking: true,
    is_template: false,
    web_commit_signoff_required: false,
    topics: r.topics,
    visibility: r.private ? "private" : "public",
    forks,
    open_issues: openIssues,
    watchers: 0,
    default_branch: r.defaultBranch,
    custom_properties: {},
  };
  if (opts.permissionsFor !== undefined) {
    const p = core.store.permission(r, opts.permissionsFor);
    const rank = ["none", "read", "triage", "write", "maintain", "admin"].indexOf(p);
    shape.permissions = {
      admin: rank >= 5,
      maintain: rank >= 4,
      push: rank >= 3,
      triage: rank >= 2,
      pull: rank >= 1,
    };
  }
  return shape;
}

/** The full-repository extras (`GET /repos/{owner}/{repo}`); a fork names its `parent` and `source`. */
export function fullRepoShape(core: ForgeCore, r: RepoRec, viewer?: string): Record<string, unknown> {
  const parent = parentOf(core, r);
  const source = sourceOf(core, r);
  return {
    ...repoShape(core, r, viewer ? { permissionsFor: viewer } : {}),
    ...(parent ? { parent: repoShape(core, parent), source: repoShape(core, source) } : {}),
    network_count: forksOf(core, source).length,
    subscribers_count: 0,
    allow_squash_merge: true,
    allow_merge_commit: true,
    allow_rebase_merge: true,
    allow_auto_merge: false,
    delete_branch_on_merge: false,
    allow_update_branch: false,
    use_squash_pr_title_as_default: false,
    squash_merge_commit_title: "COMMIT_OR_PR_TITLE",
    squash_merge_commit_message: "COMMIT_MESSAGES",
    merge_commit_title: "MERGE_MESSAGE",
    merge_commit_message: "PR_TITLE",
  };
}
