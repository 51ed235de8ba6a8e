import type { ForgeCore } from "../context.js";
import { nodeId } from "../http.js";
import type { CommentRec, IssueRec, LabelRec, ReactionRec, RepoRec } from "../types.js";
import { userByLogin } from "./user.js";

export const REACTIONS = ["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"] as const;

export function repoApi(core: ForgeCore, repo: RepoRec): string {
  return `${core.urls.api}/repos/${repo.ownerLogin}/${repo.name}`;
}

export function repoHtml(core: ForgeCore, repo: RepoRec): string {
  return `${core.urls.web}/${repo.ownerLogin}/${repo.name}`;
}

export function labelShape(core: ForgeCore, repo: RepoRec, l: LabelRec): Record<string, unknown> {
  return {
    id: l.id,
    node_id: nodeId("Label", l.id),
    url: `${repoApi(core, repo)}/labels/${encodeURIComponent(l.name)}`,
    name: l.name,
    color: l.color,
    default: l.default,
    description: l.description,
  };
}

export function issueLabels(core: ForgeCore, repo: RepoRec, names: string[]): Record<string, unknown>[] {
  return names.flatMap((n) => {
    const l = repo.labels.find((x) => x.name.toLowerCase() === n.toLowerCase());
    return l ? [labelShape(core, repo, l)] : [];
  });
}

/** OWNER, COLLABORATOR or NONE, from the author's relation to the repository. */
export function authorAssociation(core: ForgeCore, repo: RepoRec, login: string): string {
  if (repo.ownerLogin.toLowerCase() === login.toLowerCase()) return "OWNER";
  return core.store.permission(repo, login) === "none" ? "NONE" : "COLLABORATOR";
}

/** The reaction rollup GitHub attaches to issues and comments. */
function reactionRollup(core: ForgeCore, subject: string, url: string): Record<string, unknown> {
  const rs = core.store.data.reactions.filter((r) => r.subject === subject);
  const out: Record<string, unknown> = { url, total_count: rs.length };
  for (const c of REACTIONS) out[c] = rs.filter((r) => r.content === c).length;
  return out;
}

export function issueShape(core: ForgeCore, repo: RepoRec, i: IssueRec): Record<string, unknown> {
  const api = `${repoApi(core, repo)}/issues/${i.number}`;
  const comments = core.store.data.comments.filter((c) => c.repoId === repo.id && c.number === i.number);
  const shape: Record<string, unknown> = {
    url: api,
    repository_url: repoApi(core, repo),
    labels_url: `${api}/labels{/name}`,
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: `${repoHtml(core, repo)}/${i.pull ? "pull" : "issues"}/${i.number}`,
    id: i.id,
    node_id: nodeId(i.pull ? "PullRequest" : "Issue", i.id),
    number: i.number,
    title: i.title,
    user: userByLogin(core, i.userLogin),
    labels: issueLabels(core, repo, i.labels),
    state: i.state,
    locked: i.locked,
    assignee: i.assignees[0] ? userByLogin(core, i.assignees[0]) : null,
    assignees: i.assignees.map((a) => userByLogin(core, a)),
    milestone: null,
    comments: comments.length,
    created_at: i.createdAt,
    updated_at: i.updatedAt,
    closed_at: i.closedAt,
    author_association: authorAssociation(core, repo, i.userLogin),
    active_lock_reason: null,
    body: i.body,
    reactions: reactionRollup(core, `issue:${i.id}`, `${api}/reactions`),
    timeline_url: `${api}/timeline`,
    performed_via_github_app: null,
    state_reason: i.stateReason,
  };
  if (i.pull) {
    shape.draft = i.pull.draft;
    shape.pull_request = {
      url: `${repoApi(core, repo)}/pulls/${i.number}`,
      html_url: `${repoHtml(core, repo)}/pull/${i.number}`,
      diff_url: `${repoHtml(core, repo)}/pull/${i.number}.diff`,
      patch_url: `${repoHtml(core, repo)}/pull/${i.number}.patch`,
      merged_at: i.pull.mergedAt,
    };
  }
  return shape;
}

export function commentShape(core: ForgeCore, repo: RepoRec, c: CommentRec): Record<string, unknown> {
  const issue = core.store.issue(repo, c.number);
  const url = `${repoApi(core, repo)}/issues/comments/${c.id}`;
  return {
    url,
    html_url: `${repoHtml(core, repo)}/${issue?.pull ? "pull" : "issues"}/${c.number}#issuecomment-${c.id}`,
    issue_url: `${repoApi(core, repo)}/issues/${c.number}`,
    id: c.id,
    node_id: nodeId("IssueComment", c.id),
    user: userByLogin(core, c.userLogin),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    author_association: authorAssociation(core, repo, c.userLogin),
    body: c.body,
    reactions: reactionRollup(core, `comment:${c.id}`, `${url}/reactions`),
    performed_via_github_app: null,
  };
}

export function reactionShape(core: ForgeCore, r: ReactionRec): Record<string, unknown> {
  return {
    id: r.id,
    node_id: nodeId("Reaction", r.id),
    user: userByLogin(core, r.userLogin),
    content: r.content,
    created_at: r.createdAt,
  };
}
