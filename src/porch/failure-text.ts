import { PorchError, porchErrorOf } from "./errors.js";

/**
 * What to tell the user for a failure while working on `repository`: the engine's text, and for what
 * GitHub or git refused, what to check (the token, its permission, the repository's name, the wait).
 */
export function describeFailure(e: unknown, repository: string): string {
  const p = porchErrorOf(e);
  if (!(p instanceof PorchError)) return p instanceof Error ? p.message : String(p);
  const origin = p.more.origin;
  if (origin?.from === "git")
    return origin.kind === "forbidden" && origin.command === "push"
      ? `the token may read ${repository} but not write to it (git push was refused: HTTP 403); ask an administrator of ${repository} to give you write access (on GitHub: the repository's Settings → Collaborators and teams; a repository just created has no collaborators but its owners)`
      : `git failed talking to ${repository}: ${p.message}`;
  if (origin?.from !== "github") return p.message;
  switch (p.kind) {
    case "unauthorized":
      return `${p.message}; the token in GH_TOKEN/GITHUB_TOKEN was refused: check it is valid and not expired`;
    case "forbidden":
      return `${p.message}; the token lacks permission on ${repository} (it needs contents, pull requests and issues write)`;
    case "not-found":
      return `${p.message}; check the repository name ${repository}, the --api-url, and that the token can see it`;
    case "rate-limited":
      return `${p.message}; GitHub's rate limit: try again in ${p.more.retryAfter ?? 60} s`;
    case "already-exists":
    case "conflict":
    case "invalid":
    case "bad-request":
    case "too-large":
    case "unavailable":
    case "internal":
      return p.message;
  }
}
