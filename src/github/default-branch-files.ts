import { LRUCache } from "lru-cache";

/** How many files (of repositories' default branches, at one commit each) are kept. */
const MAX_FILES = 4096;

/**
 * Files of repositories' default branches, each kept by the commit it was read at: what every job reads
 * first (the repository's `.github/porchlight.yml`, and its organisation's). A job asks git which commit
 * the default branch is at (one `ls-refs` over smart HTTP, which GitHub does not count against the REST
 * budget) and reads the file over REST only at a commit not read before. A file at a commit never
 * changes, so a kept answer never hides a change — after a restart (nothing kept) or on another replica
 * alike; the app keeps one for its life, bounded (least recently used go first).
 */
export class DefaultBranchFiles {
  private readonly kept = new LRUCache<string, { text: string | undefined }>({ max: MAX_FILES });

  /**
   * The file's text at `sha` (undefined: it does not exist there): as read before, else `load`ed once and
   * kept.
   */
  async read(
    file: { owner: string; repo: string; path: string },
    sha: string,
    load: () => Promise<string | undefined>,
  ): Promise<string | undefined> {
    const key = keyOf(file, sha);
    const kept = this.kept.get(key);
    if (kept) return kept.text;
    const text = await load();
    this.kept.set(key, { text });
    return text;
  }
}

function keyOf(file: { owner: string; repo: string; path: string }, sha: string): string {
  return `${file.owner.toLowerCase()}/${file.repo.toLowerCase()}@${sha}:${file.path}`;
}

/**
 * The address git serves a repository at, for a REST base URL: github.com for api.github.com, else the
 * API's own origin and path without `/api/v3` (GitHub Enterprise's, the embedded forge's).
 */
export function cloneUrlFor(apiBase: string, owner: string, repo: string): string {
  const url = new URL(apiBase);
  const web =
    url.host === "api.github.com"
      ? "https://github.com"
      : `${url.origin}${url.pathname.replace(/\/+$/, "").replace(/\/api\/v3$/, "")}`;
  return `${web}/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}.git`;
}
