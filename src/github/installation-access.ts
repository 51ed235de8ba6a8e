import { GitHubError, toGitHubError } from "./errors.js";
import type { InstallationAccess } from "./port.js";

/**
 * Whether the app can act for installation `id`: asks for its token (`requestToken`, which calls
 * `POST /app/installations/{id}/access_tokens` on the configured GitHub, or answers from the token
 * cache). GitHub's 404 means the app has no such installation; 403 that it may not use it (suspended);
 * 401 that the app's own key or id is wrong.
 * Anything else (network, 5xx, rate limit) is a temporary failure to say so, not a verdict.
 */
export async function installationAccess(
  id: number,
  requestToken: () => Promise<unknown>,
): Promise<InstallationAccess> {
  try {
    await requestToken();
    return { ok: true };
  } catch (e) {
    const err = toGitHubError(e, `the token request for installation ${id}`);
    const detail = err instanceof Error ? err.message : String(err);
    if (err instanceof GitHubError && err.kind === "not-found") {
      return { ok: false, status: 404, reason: `installation ${id} is not an installation of this app` };
    }
    if (err instanceof GitHubError && err.kind === "forbidden") {
      return { ok: false, status: 403, reason: `this app may not act for installation ${id}: ${detail}` };
    }
    if (err instanceof GitHubError && err.kind === "unauthorized") {
      const reason = `GitHub refused the app's own credentials (check APP_ID and PRIVATE_KEY): ${detail}`;
      return { ok: false, status: 500, reason };
    }
    return {
      ok: false,
      status: 503,
      reason: `could not reach GitHub to authenticate installation ${id} (${detail}); redeliver later`,
    };
  }
}
