import { GitHubError } from "../../github/errors.js";
import type { InstallationLookup } from "../../github/installation-lookup.js";
import type { InstallationRepository, RepoPort } from "../../github/port.js";

/** Repositories of other installations of the app that variants name, and those it cannot reach. */
export interface Elsewhere {
  repositories: { repository: InstallationRepository; port: RepoPort }[];
  /** By the name the variant used: why it cannot be reached and what to do. */
  unreachable: Record<string, { message: string; hint: string }>;
}

/**
 * The repositories variants name as `owner/name` that the management repository's installation does not
 * cover, looked up in the app's other installations (`GET /repos/{owner}/{repo}/installation`). A
 * repository the app is not installed on is named with what to do; the other variants go on. A short
 * name is only ever one of the management repository's installation. A rate limit stops the run.
 */
export async function reachElsewhere(
  lookup: InstallationLookup | undefined,
  refs: readonly string[],
): Promise<Elsewhere> {
  const out: Elsewhere = { repositories: [], unreachable: {} };
  if (!lookup) return out;
  for (const ref of refs) {
    const [owner, repo, ...rest] = ref.split("/");
    if (!owner || !repo || rest.length > 0) continue;
    try {
      const installation = await lookup({ owner, repo });
      if (!installation) {
        out.unreachable[ref] = {
          message: `the porchlight app is not installed on ${ref}`,
          hint: `an owner of ${owner} installs the app on ${ref} (Settings → GitHub Apps → Configure → Repository access), or fix the name; the next fan-out run (a publish, /fanout, the sweep) picks it up`,
        };
        continue;
      }
      const repository = await installation.repository({ owner, repo });
      if (repository.archived) {
        out.unreachable[ref] = {
          message: `repository ${ref} is archived`,
          hint: "unarchive it, or remove the variant",
        };
        continue;
      }
      out.repositories.push({ repository, port: installation.repo(repository) });
    } catch (e) {
      if (e instanceof GitHubError && e.kind === "rate-limited") throw e;
      out.unreachable[ref] = {
        message: `could not reach ${ref} through the app's installations: ${e instanceof Error ? e.message : String(e)}`,
        hint: "the next fan-out run tries again",
      };
    }
  }
  return out;
}
