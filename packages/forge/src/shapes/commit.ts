import type { ForgeCore } from "../context.js";
import type { FileChange, GitCommit } from "../git.js";
import { nodeId } from "../http.js";
import type { RepoRec } from "../types.js";
import { repoApi, repoHtml } from "./issue.js";
import { simpleUser } from "./user.js";

const UNSIGNED = { verified: false, reason: "unsigned", signature: null, payload: null, verified_at: null };

/** GitHub's `git-commit` object (`/git/commits/{sha}`). */
export function gitCommitShape(core: ForgeCore, repo: RepoRec, c: GitCommit): Record<string, unknown> {
  const api = repoApi(core, repo);
  return {
    sha: c.sha,
    node_id: nodeId("Commit", c.sha),
    url: `${api}/git/commits/${c.sha}`,
    html_url: `${repoHtml(core, repo)}/commit/${c.sha}`,
    author: c.author,
    committer: c.committer,
    tree: { sha: c.tree, url: `${api}/git/trees/${c.tree}` },
    message: c.message.replace(/\n$/, ""),
    parents: c.parents.map((p) => ({
      sha: p,
      url: `${api}/git/commits/${p}`,
      html_url: `${repoHtml(core, repo)}/commit/${p}`,
    })),
    verification: UNSIGNED,
  };
}

function userByEmail(core: ForgeCore, email: string): Record<string, unknown> | null {
  const u = core.store.data.users.find((x) => x.email && x.email.toLowerCase() === email.toLowerCase());
  return u ? simpleUser(core, u) : null;
}

/** A `diff-entry` of the REST API (files of a commit, a comparison or a pull request). */
export function diffEntry(
  core: ForgeCore,
  repo: RepoRec,
  ref: string,
  f: FileChange,
): Record<string, unknown> {
  const html = repoHtml(core, repo);
  return {
    sha: f.sha,
    filename: f.filename,
    status: f.status,
    additions: f.additions,
    deletions: f.deletions,
    changes: f.additions + f.deletions,
    blob_url: `${html}/blob/${ref}/${f.filename}`,
    raw_url: `${html}/raw/${ref}/${f.filename}`,
    contents_url: `${repoApi(core, repo)}/contents/${f.filename}?ref=${ref}`,
    ...(f.previousFilename ? { previous_filename: f.previousFilename } : {}),
  };
}

/** GitHub's `commit` object (`/commits/{ref}`, compare), with files when given. */
export function restCommitShape(
  core: ForgeCore,
  repo: RepoRec,
  c: GitCommit,
  files?: FileChange[],
): Record<string, unknown> {
  const api = repoApi(core, repo);
  const html = repoHtml(core, repo);
  const shape: Record<string, unknown> = {
    sha: c.sha,
    node_id: nodeId("Commit", c.sha),
    commit: {
      author: c.author,
      committer: c.committer,
      message: c.message.replace(/\n$/, ""),
      tree: { sha: c.tree, url: `${api}/git/trees/${c.tree}` },
      url: `${api}/git/commits/${c.sha}`,
      comment_count: 0,
      verification: UNSIGNED,
    },
    url: `${api}/commits/${c.sha}`,
    html_url: `${html}/commit/${c.sha}`,
    comments_url: `${api}/commits/${c.sha}/comments`,
    author: userByEmail(core, c.author.email),
    committer: userByEmail(core, c.committer.email),
    parents: c.parents.map((p) => ({ sha: p, url: `${api}/commits/${p}`, html_url: `${html}/commit/${p}` })),
  };
  if (files) {
    const additions = files.reduce((n, f) => n + f.additions, 0);
    const deletions = files.reduce((n, f) => n + f.deletions, 0);
    shape.stats = { total: additions + deletions, additions, deletions };
    shape.files = files.map((f) => diffEntry(core, repo, c.sha, f));
  }
  return shape;
}
