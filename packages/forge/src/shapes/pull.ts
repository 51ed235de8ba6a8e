import type { ForgeCore } from "../context.js";
import { nodeId } from "../http.js";
import type { IssueRec, RepoRec } from "../types.js";
import { authorAssociation, issueLabels, repoApi, repoHtml } from "./issue.js";
import { repoShape } from "./repo.js";
import { userByLogin } from "./user.js";

/** Live facts about a pull request that need git: base tip, merge state and diff counts. */
export interface PullFacts {
  baseSha: string;
  mergeable: boolean | null;
  commits: number;
  additions: number;
  deletions: number;
  changedFiles: number;
}

async function pullFacts(core: ForgeCore, repo: RepoRec, issue: IssueRec): Promise<PullFacts> {
  const pull = issue.pull!;
  const dir = core.git.dir(repo.ownerLogin, repo.name);
  const baseSha = (await core.git.resolve(dir, `refs/heads/${pull.baseRef}`)) ?? pull.headSha;
  let mergeable: boolean | null = null;
  if (issue.state === "open") {
    const merged = await core.git.mergeTree(dir, baseSha, pull.headSha);
    mergeable = "tree" in merged;
  }
  const base = pull.merged ? (await core.git.commit(dir, pull.mergeCommitSha ?? ""))?.parents[0] : undefined;
  const mergeBase = base ?? (await core.git.mergeBase(dir, baseSha, pull.headSha)) ?? baseSha;
  const files = await core.git.diff(dir, mergeBase, pull.headSha);
  const commits = await core.git.revList(dir, pull.headSha, [mergeBase]);
  return {
    baseSha,
    mergeable,
    commits: commits.length,
    additions: files.reduce((n, f) => n + f.additions, 0),
    deletions: files.reduce((n, f) => n + f.deletions, 0),
    changedFiles: files.length,
  };
}

function branchShape(core: ForgeCore, repo: RepoRec, ref: string, sha: string): Record<string, unknown> {
  return {
    label: `${repo.ownerLogin}:${ref}`,
    ref,
    sha,
    user: userByLogin(core, repo.ownerLogin),
    repo: repoShape(core, repo),
  };
}

/**
 * GitHub's pull request object: `pull-request-simple` for lists, the full `pull-request` (with
 * merge state and diff counts) when `facts` are given.
 */
export function pullShape(
  core: ForgeCore,
  repo: RepoRec,
  issue: IssueRec,
  baseSha: string,
  facts?: PullFacts,
): Record<string, unknown> {
  const pull = issue.pull!;
  const api = `${repoApi(core, repo)}/pulls/${issue.number}`;
  const html = `${repoHtml(core, repo)}/pull/${issue.number}`;
  const issueApi = `${repoApi(core, repo)}/issues/${issue.number}`;
  const shape: Record<string, unknown> = {
    url: api,
    id: issue.pullId ?? issue.id,
    node_id: nodeId("PullRequest", issue.pullId ?? issue.id),
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: issueApi,
    number: issue.number,
    state: issue.state,
    locked: issue.locked,
    title: issue.title,
    user: userByLogin(core, issue.userLogin),
    body: issue.body,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.closedAt,
    merged_at: pull.mergedAt,
    merge_commit_sha: pull.mergeCommitSha,
    assignee: issue.assignees[0] ? userByLogin(core, issue.assignees[0]) : null,
    assignees: issue.assignees.map((a) => userByLogin(core, a)),
    requested_reviewers: [],
    requested_teams: [],
    labels: issueLabels(core, repo, issue.labels),
    milestone: null,
    draft: pull.draft,
    commits_url: `${api}/commits`,
    review_comments_url: `${api}/comments`,
    review_comment_url: `${repoApi(core, repo)}/pulls/comments{/number}`,
    comments_url: `${issueApi}/comments`,
    statuses_url: `${repoApi(core, repo)}/statuses/${pull.headSha}`,
    head: branchShape(core, core.store.repoById(pull.headRepoId) ?? repo, pull.headRef, pull.headSha),
    base: branchShape(core, repo, pull.baseRef, baseSha),
    _links: {
      self: { href: api },
      html: { href: html },
      issue: { href: issueApi },
      comments: { href: `${issueApi}/comments` },
      review_comments: { href: `${api}/comments` },
      review_comment: { href: `${repoApi(core, repo)}/pulls/comments{/number}` },
      commits: { href: `${api}/commits` },
      statuses: { href: `${repoApi(core, repo)}/statuses/${pull.headSha}` },
    },
    author_association: authorAssociation(core, repo, issue.userLogin),
    auto_merge: null,
    active_lock_reason: null,
  };
  if (facts) {
    const comments = core.store.data.comments.filter(
      (c) => c.repoId === repo.id && c.number === issue.number,
    );
    Object.assign(shape, {
      merged: pull.merged,
      mergeable: facts.mergeable,
      rebaseable: facts.mergeable,
      mergeable_state: issue.state !== "open" ? "unknown" : facts.mergeable ? "clean" : "dirty",
      merged_by: pull.mergedByLogin ? userByLogin(core, pull.mergedByLogin) : null,
      comments: comments.length,
      review_comments: 0,
      maintainer_can_modify: pull.maintainerCanModify,
      commits: facts.commits,
      additions: facts.additions,
      deletions: facts.deletions,
      changed_files: facts.changedFiles,
    });
  }
  return shape;
}

/** The full pull request object, computing its live facts. */
export async function fullPull(
  core: ForgeCore,
  repo: RepoRec,
  issue: IssueRec,
): Promise<Record<string, unknown>> {
  const facts = await pullFacts(core, repo, issue);
  return pullShape(core, repo, issue, facts.baseSha, facts);
}
