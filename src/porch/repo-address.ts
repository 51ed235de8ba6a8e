/**
 * What a registered git address is to porchlight. Porch registers any git repository; porchlight keeps
 * package revisions as branches, tags and pull requests through GitHub's API, so it reads a registered
 * repository only when its address is on the GitHub the command talks to (`--api-url`): `OWNER/REPO`,
 * or a URL on that API's git host. Any other git URL is registered as Porch registers it, and shown
 * not Ready with the reason.
 */
export type GitAddress =
  /** A repository of the GitHub the command talks to. */
  | { kind: "github"; owner: string; repo: string }
  /** A git repository elsewhere: `url` is probed anonymously (no token leaves for another host). */
  | { kind: "elsewhere"; url: string; host: string };

/** The repository of a namespace's owner that keeps the namespace's Porch objects (registrations.ts). */
export const REGISTRY_REPO = ".porchlight";

/** URL schemes git clones from (`ext::` and other remote helpers are not addresses of a repository). */
const SCHEMES = new Set(["http:", "https:", "ssh:", "git:", "git+ssh:", "ssh+git:", "file:"]);

/**
 * The host git is served from, for an API base URL: github.com for api.github.com (the default), else
 * the API's own host and port (GitHub Enterprise's `https://HOST/api/v3`, the embedded forge's).
 */
export function gitHostOf(apiUrl: string | undefined): string {
  if (!apiUrl) return "github.com";
  try {
    const host = new URL(apiUrl).host.toLowerCase();
    return host === "api.github.com" ? "github.com" : host;
  } catch {
    return "github.com";
  }
}

/** `OWNER/REPO` of a path, when its last two segments are a GitHub owner and repository name. */
function ownerRepo(path: string): { owner: string; repo: string } | undefined {
  const parts = path.split("/").filter(Boolean);
  if (parts.length !== 2) return undefined;
  const [owner, last] = parts as [string, string];
  const repo = last.replace(/\.git$/, "");
  if (!/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(owner) || !/^[A-Za-z0-9._-]+$/.test(repo)) return undefined;
  return { owner, repo };
}

/**
 * What `address` names, seen from the GitHub at `apiUrl`; undefined when it is no git address at all
 * (neither a URL git clones from, nor `user@host:path`, nor `OWNER/REPO`).
 */
export function parseGitAddress(address: string, apiUrl: string | undefined): GitAddress | undefined {
  const trimmed = address.trim().replace(/\/+$/, "");
  const githubHost = gitHostOf(apiUrl);
  const scp = /^[^@/\s]+@([^:/\s]+):(.+)$/.exec(trimmed);
  if (scp) {
    const host = (scp[1] ?? "").toLowerCase();
    const id = ownerRepo(scp[2] ?? "");
    if (id && sameHost(host, githubHost)) return { kind: "github", ...id };
    return { kind: "elsewhere", url: trimmed, host };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      return undefined;
    }
    if (!SCHEMES.has(url.protocol)) return undefined;
    const host = url.host.toLowerCase();
    const id = ownerRepo(url.pathname);
    if (id && url.protocol !== "file:" && sameHost(host, githubHost)) return { kind: "github", ...id };
    return { kind: "elsewhere", url: trimmed, host: host || "this machine" };
  }
  const id = ownerRepo(trimmed);
  return id && !trimmed.startsWith("/") ? { kind: "github", ...id } : undefined;
}

/** Whether `host` (of a git URL, maybe with a port) is the GitHub's git host `githubHost`. */
function sameHost(host: string, githubHost: string): boolean {
  const bare = (h: string) => h.replace(/:(443|80|22)$/, "").replace(/^www\./, "");
  return bare(host) === bare(githubHost);
}
