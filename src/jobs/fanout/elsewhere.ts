import { GitHubError } from "../../github/errors.js";
import type { InstallationLookup } from "../../github/installation-lookup.js";
import type { InstallationRepository, RepoPort } from "../../github/port.js";

/** Repositories of other installations of the app that variants name, and those it cannot reach. */
export interface Elsewhere {
  repositories: { repository: InstallationRepository; port: RepoPort }[];
  /** By the name the variant used: why it cannot be reached and what to do. */
  unreachable: Record<string, { message: string; hint: string; retry?: true }>;
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
        retry: true,
      };
    }
  }
  return out;
}

/** Repositories of the app's installations on accounts that PackageVariantSets select in by owner. */
export interface SelectedElsewhere {
  repositories: { repository: InstallationRepository; port: RepoPort }[];
  /** Accounts the app is not installed on (or that cannot be listed now), with why. */
  unreachable: Record<string, string>;
}

/**
 * Lists the app's installation on each account a `repositorySelector` names as `owner/…` (besides the
 * management repository's own account), for the selector to pick among. Unarchived repositories only, as
 * for the management repository's installation. A rate limit stops the run; any other failure leaves that
 * account out of this run, named in `unreachable`.
 */
export async function listSelectedAccounts(
  lookup: InstallationLookup | undefined,
  accounts: readonly string[],
): Promise<SelectedElsewhere> {
  const out: SelectedElsewhere = { repositories: [], unreachable: {} };
  for (const login of accounts) {
    if (!lookup?.account) {
      out.unreachable[login] = "only the hosted app (with its own key) reaches other installations";
      continue;
    }
    try {
      const installation = await lookup.account(login);
      if (!installation) {
        out.unreachable[login] = `the porchlight app is not installed on ${login}`;
        continue;
      }
      for (const repository of await installation.listRepositories()) {
        if (!repository.archived) out.repositories.push({ repository, port: installation.repo(repository) });
      }
    } catch (e) {
      if (e instanceof GitHubError && e.kind === "rate-limited") throw e;
      out.unreachable[login] =
        `could not list the app's installation on ${login}: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  return out;
}
