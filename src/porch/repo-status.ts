import { connectRepo } from "../github/connect.js";
import { describeFailure } from "./failure-text.js";
import type { RegistryAccess, RepositoryObject } from "./registrations.js";
import { type GitAddress, gitHostOf, parseGitAddress } from "./repo-address.js";
import { RequestTimeout, withTimeout } from "./timeout.js";

/** Porch's Ready condition of a Repository (config.porch.kpt.dev `Ready`, reasons `Ready` and `Error`). */
export interface ReadyCondition {
  type: "Ready";
  status: "True" | "False";
  reason: "Ready" | "Error";
  message: string;
}

const ready = (message: string): ReadyCondition => ({
  type: "Ready",
  status: "True",
  reason: "Ready",
  message,
});
const notReady = (message: string): ReadyCondition => ({
  type: "Ready",
  status: "False",
  reason: "Error",
  message,
});

/**
 * Whether porchlight can read the registered repository now, as Porch's Ready condition says it: a
 * repository of the GitHub the command talks to is read with the caller's token; a git URL elsewhere
 * is asked, without any credential, whether it answers git at all, and is not Ready either way —
 * porchlight keeps revisions through GitHub's API — with what it answered as the reason. Each check
 * is bounded by `timeoutMs` (undefined: none), so one repository that never answers costs that long.
 */
export async function readiness(
  obj: RepositoryObject,
  access: RegistryAccess,
  timeoutMs: number | undefined,
): Promise<ReadyCondition> {
  const address = parseGitAddress(obj.spec.git.repo, access.apiUrl);
  if (!address) return notReady(`${obj.spec.git.repo} is not a git repository's address`);
  try {
    return await withTimeout(timeoutMs, describe(address), (signal) =>
      address.kind === "github" ? readGitHub(address, access, signal) : probe(address, access, signal),
    );
  } catch (e) {
    if (e instanceof RequestTimeout) return notReady(e.message);
    const where = address.kind === "github" ? `${address.owner}/${address.repo}` : address.url;
    return notReady(describeFailure(e, where));
  }
}

function describe(address: GitAddress): string {
  return address.kind === "github" ? `${address.owner}/${address.repo}` : address.url;
}

async function readGitHub(
  address: Extract<GitAddress, { kind: "github" }>,
  access: RegistryAccess,
  signal: AbortSignal | undefined,
): Promise<ReadyCondition> {
  await connectRepo({ ...access, repo: address, signal });
  return ready("Repository Ready");
}

/**
 * A git URL on another host: for http(s), git's first request of a clone (`info/refs` of the upload
 * pack), sent with no credential; other transports are not asked.
 */
async function probe(
  address: Extract<GitAddress, { kind: "elsewhere" }>,
  access: RegistryAccess,
  signal: AbortSignal | undefined,
): Promise<ReadyCondition> {
  const github = gitHostOf(access.apiUrl);
  const why = `porchlight keeps package revisions as branches, tags and pull requests through the GitHub API of ${github}, and ${address.host} is another host: register the repository's address on ${github}`;
  if (!/^https?:\/\//i.test(address.url)) return notReady(`${address.url}: ${why}`);
  const url = `${address.url.replace(/\/+$/, "")}/info/refs?service=git-upload-pack`;
  let answer: string;
  try {
    const res = await fetch(url, { redirect: "follow", ...(signal ? { signal } : {}) });
    await res.body?.cancel();
    const git = (res.headers.get("content-type") ?? "").includes("git-upload-pack");
    answer =
      res.ok && git
        ? "answers git"
        : res.status === 401 || res.status === 403
          ? `asks for credentials (HTTP ${res.status})`
          : `answers HTTP ${res.status}, not git`;
  } catch (e) {
    if (signal?.aborted) throw e;
    return notReady(`cannot reach ${address.url}: ${networkReason(e)}`);
  }
  return notReady(`${address.url} ${answer}, but ${why}`);
}

/** A fetch failure as a person reads it: the name that does not resolve, the refused connection. */
function networkReason(e: unknown): string {
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause : e;
  const code = typeof cause === "object" && cause && "code" in cause ? String(cause.code) : "";
  const host = typeof cause === "object" && cause && "hostname" in cause ? String(cause.hostname) : "";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `the host ${host || "name"} cannot be resolved`;
  if (code === "ECONNREFUSED") return "nothing answers there (connection refused)";
  if (code === "ECONNRESET") return "the connection was reset";
  return cause instanceof Error ? cause.message : String(cause);
}
