import type { RepoConfig } from "../config/index.js";
import { loadRepoConfig } from "../config/load.js";
import { formatProblem } from "../config/problem.js";
import type { AnswerCache } from "../github/conditional.js";
import {
  connectRepo,
  type Identity,
  type RepoConnection,
  type RepoMetadataCache,
} from "../github/connect.js";
import type { DefaultBranchFiles } from "../github/default-branch-files.js";
import type { GitObjectCache } from "../github/object-cache.js";
import type { OpenPulls } from "../github/open-pulls.js";
import type { CommitAuthor, PullRequest, RepoId } from "../github/port.js";
import { type DraftPullsMemo, mergedDraftPulls, mergedInto } from "../jobs/publish/merged-drafts.js";
import {
  byPackageThenRevision,
  discoverRevisions,
  indexRefs,
  type PackageRevision,
  type PullRequestInfo,
  type RefInfo,
} from "../lifecycle/index.js";
import { taggedRevisions } from "../lifecycle/kpt-trailer.js";
import { type CommitFactCache, type CommitFacts, commitFacts } from "./commit-facts.js";
import { PorchError } from "./errors.js";
import type { ReadTogether } from "./shared-readings.js";

/**
 * What the engine's operations run with: who acts (the token), where GitHub is, the caches, the
 * namespace and its registrations, and the signal that ends the work. Passed in, never global; the doors
 * add their own (rpkg: its output and progress, cli/rpkg/env.ts).
 */
export interface PorchEnv {
  token: string;
  apiUrl: string | undefined;
  /** A directory for bare cache clones, removed when the command ends. */
  cacheDir: string;
  /**
   * Where GETs keep their answers, asked again as conditional requests (the API server's in memory, per
   * token; the command line's on disk, `disk`).
   */
  conditional?: AnswerCache | undefined;
  /** The command line's cache across commands (cli/disk-cache.ts): commits' facts, read before git. */
  disk?: CommitFactCache | undefined;
  /**
   * Repositories' default-branch files kept by commit (the API's, for the server's life, as the app's:
   * github/default-branch-files.ts): an opening reads its configuration's files there, asking git only
   * where each default branch is (a repository without `.github/porchlight.yml` costs a 404 each time
   * otherwise, and its organisation's `.github` another).
   */
  files?: DefaultBranchFiles | undefined;
  /**
   * Each token's answers about repositories, kept a while (the API server's, repo-metadata.ts): an
   * opening within that while asks GitHub nothing about the repository itself.
   */
  metadata?: RepoMetadataCache | undefined;
  /**
   * Which commits the cache clones hold, and trees and files' bytes by id, kept across openings (the
   * API's, for the server's life, as the app's: github/object-cache.ts): an opening asks git only what
   * none before it read (whether a commit is whole in the clone, a Kptfile's blob).
   */
  objects?: GitObjectCache | undefined;
  /** The environment commits take their author from (GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL). */
  authorEnv: Readonly<Record<string, string | undefined>>;
  /** Porch's namespace (--namespace): what objects name as theirs; default the repository's owner. */
  namespace?: string;
  /**
   * The namespace's repository registrations (`porchlight repo register`), by name: a registered name
   * opens its repository, and a repository opened otherwise is named as it is registered.
   */
  registrations?: ReadonlyMap<string, Registration>;
  /** Registrations of git URLs porchlight cannot read (not on this GitHub), by name, with the reason. */
  elsewhere?: ReadonlyMap<string, string>;
  /** Aborts every repository's requests to GitHub (the API's: the request's client went). */
  signal?: AbortSignal | undefined;
  /**
   * An opening that reads ahead fetches these commits of the refs it lists in the same fetch as the
   * default branch's (one request), for a reader about to read them (the index: the new heads of draft
   * branches and revision tags).
   */
  prefetch?: (refs: readonly RefInfo[]) => readonly string[];
  /**
   * The listings of draft branches' pull requests kept between readings (the API's index, which lists
   * again and again): a draft not proposed is asked about once, not at every reading (merged-drafts.ts).
   */
  draftPulls?: DraftPullsMemo | undefined;
  /**
   * The open pull requests of each repository as the API server knows them (github/open-pulls.ts): an
   * opening lists them there, and its writes tell it what they changed, so that neither the write's
   * own listing nor the index's readings after it ask GitHub again.
   */
  openPulls?: OpenPulls | undefined;
  /**
   * Told of each draft branch a write of this environment moves to a commit it made (`madeDraft`): the
   * API's index notes it in draftPulls and tells the other replicas of a fleet, which note it too
   * (revision-index.ts). Only the API's writes are told: rpkg keeps no draftPulls, and the index's own
   * readings move no draft.
   */
  draftMade?: ((repo: RepoId, branch: string, sha: string) => void) | undefined;
  /**
   * This opening is one of several registrations the index reads together (shared-readings.ts): the
   * repository's refs and pull requests listed once for all of them, the revisions found once.
   */
  together?: ReadTogether | undefined;
  /** --request-timeout: how long `get` waits for one repository of a namespace (undefined: no limit). */
  timeoutMs?: number | undefined;
  /**
   * Whether the timeout was set (flag or PORCHLIGHT_REQUEST_TIMEOUT): only then does it bound a repository
   * named alone, which has no others to hold up (a large one may take longer than the default to list).
   */
  timeoutSet?: boolean;
}

/**
 * A Repository registration as rpkg uses it: the GitHub repository, and the directory of it that holds
 * the registration's packages ("" for the whole repository), as Porch's `spec.git.directory`.
 */
export interface Registration {
  full: string;
  directory: string;
  /** Porch's `spec.deployment`: a deployment repository, whose clones get the package context. */
  deployment?: boolean;
}

/**
 * The registration `name` names, or the one of repository `full` that covers it whole (a repository
 * opened as OWNER/REPO is all of it; a registration of one directory of it names only that directory's
 * packages).
 */
function registered(env: PorchEnv, full: string | undefined): ({ name: string } & Registration) | undefined {
  if (!full || !env.registrations) return undefined;
  const byName = env.registrations.get(full);
  if (byName) return { name: full, ...byName };
  for (const [name, r] of env.registrations)
    if (r.full.toLowerCase() === full.toLowerCase() && r.directory === "") return { name, ...r };
  return undefined;
}

/** `path` (a package's directory in the repository) as a package of `directory`, or undefined outside it. */
export function packageIn(directory: string, path: string): string | undefined {
  if (directory === "") return path;
  return path.startsWith(`${directory}/`) ? path.slice(directory.length + 1) : undefined;
}

/** A repository's package revisions at one moment: one ref listing and the open pull requests. */
export interface RepoState {
  refs: RefInfo[];
  pulls: PullRequest[];
  revisions: PackageRevision[];
}

/** A GitHub repository as a Porch repository: its connection, configuration and base branch. */
export interface Repository {
  conn: RepoConnection;
  /** `owner/repo`. */
  full: string;
  /** The repository's name: the first part of its revisions' names, as Porch's Repository name. */
  name: string;
  /** Porch's namespace of its objects: --namespace, or the repository's owner. */
  namespace: string;
  config: RepoConfig;
  baseBranch: string;
  /**
   * The directory of the repository its registration covers (Porch's `spec.git.directory`; "" for the
   * whole repository): its packages are named relative to it, and live, are branched and tagged under it.
   */
  directory: string;
  /**
   * A package's directory in the repository, from its name in this registration: the path the bot's
   * jobs, the draft branches (`drafts/<path>/<ws>`) and the tags (`<path>/v<N>`) use, as Porch's.
   */
  packageDir(pkg: string): string;
  load(): Promise<RepoState>;
  /**
   * Draft branch `branch` was just moved by this process to `sha`, a commit it made (a creation, an
   * update of its resources): the next readings do not ask GitHub whether a pull request was merged at it.
   */
  madeDraft(branch: string, sha: string): void;
  /** Who commits: the token's user, or `GIT_AUTHOR_NAME`/`GIT_AUTHOR_EMAIL` when set. */
  author(): Promise<CommitAuthor>;
  whoami(): Promise<Identity | undefined>;
}

/** A repository named wrongly: the command line answers it as a usage error (its usage, exit 2). */
const usage = (message: string) =>
  new PorchError("bad-request", message, undefined, undefined, { usage: true });

function parseRepositoryArg(full: string | undefined, verb: string): { owner: string; repo: string } {
  if (!full) {
    throw usage(
      `rpkg ${verb} needs --repository=OWNER/REPO: the GitHub repository holding the packages (or set GITHUB_REPOSITORY)`,
    );
  }
  const m = /^([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9._-]+)$/.exec(full);
  if (!m) throw usage(`--repository "${full}" is not OWNER/REPO (for example acme/blueprints)`);
  return { owner: m[1] as string, repo: (m[2] as string).replace(/\.git$/, "") };
}

export function toPullInfo(full: string, p: PullRequest): PullRequestInfo {
  return {
    number: p.number,
    headRef: p.headRef,
    baseRef: p.baseRef,
    headSha: p.headSha,
    labels: p.labels,
    draft: p.draft,
    isFork: p.headRepo !== null && p.headRepo.toLowerCase() !== full.toLowerCase(),
    merged: p.merged,
    mergeCommitSha: p.mergeCommitSha,
  };
}

/**
 * The repository `full` names (a registered name, or OWNER/REPO), connected and with its configuration
 * read. `readAhead`, for a verb whose first step is `load()`: the refs and the open pull requests that
 * load reads first are asked for while the configuration is read (they depend on the repository alone,
 * the configuration only names the base branch), then the default branch's files as soon as the refs
 * name its commit (the base branch, unless the configuration names another) and the pull requests of
 * draft branches without an open one (merged at their head: whichever branch they were merged into), so
 * that a listing waits for the configuration neither before its refs nor before the base branch's fetch
 * or those listings; a later load reads afresh.
 */
export async function openRepository(
  env: PorchEnv,
  full: string | undefined,
  verb: string,
  signal?: AbortSignal,
  readAhead = false,
): Promise<Repository> {
  const id = parseRepositoryArg(registered(env, full)?.full ?? full, verb);
  const conn = await connectRepo({
    token: env.token,
    apiUrl: env.apiUrl,
    repo: id,
    cacheDir: env.cacheDir,
    signal: signal && env.signal ? AbortSignal.any([signal, env.signal]) : (signal ?? env.signal),
    conditional: env.conditional,
    metadata: env.metadata,
    files: env.files,
    openPulls: env.openPulls,
    objects: env.objects,
  });
  const canonical = `${conn.info.id.owner}/${conn.info.id.repo}`;
  const facts = commitFacts(conn.port, env.disk);
  const listRefsAndPulls = () => Promise.all([conn.port.listRefs(), conn.port.listOpenPulls()]);
  const together = env.together;
  const refsAndPulls = together
    ? () => together.shared.listing(canonical.toLowerCase(), together.since, listRefsAndPulls)
    : listRefsAndPulls;
  let ahead = readAhead ? refsAndPulls() : undefined;
  // The default branch's files too, once its commit is known: the base branch unless the configuration
  // names another (then load lists that one), so the listing's fetch does not wait for the configuration.
  let baseAhead = ahead?.then(async ([refs]) => {
    const sha = indexRefs(refs).branches.get(conn.info.defaultBranch);
    // with the commits the reader reads next (env.prefetch): one fetch for all, the branch's among them
    const also = env.prefetch?.(refs).filter((s) => s !== sha) ?? [];
    if (also.length > 0) await conn.port.commitMessages(sha ? [sha, ...also] : also).catch(() => undefined);
    return sha === undefined ? undefined : facts.packagesAt(sha);
  });
  // And the listings of draft branches merged at their head, whose base branch load checks then.
  let draftsAhead = ahead?.then(([refs, openPulls]) =>
    mergedDraftPulls(conn.port, { refs, openPulls }, env.draftPulls),
  );
  // a failure is load's to report; a configuration that fails first is reported instead, as before
  ahead?.catch(() => {});
  baseAhead?.catch(() => {});
  draftsAhead?.catch(() => {});
  const registration = registered(env, full) ?? registered(env, canonical);
  const loaded = await configOf(env, conn, ahead, baseAhead);
  if (!loaded.ok) {
    throw new PorchError(
      "bad-request",
      `the configuration of ${canonical} is invalid; fix it on ${conn.info.defaultBranch}:\n${loaded.problems.map((p) => `  ${formatProblem(p)}`).join("\n")}`,
    );
  }
  // a registration as a deployment repository makes it one, as the repository's own configuration does
  const config = registration?.deployment ? { ...loaded.config, deployment: true } : loaded.config;
  const baseBranch = config.baseBranch ?? conn.info.defaultBranch;
  const directory = registration?.directory ?? "";
  let me: Promise<Identity | undefined> | undefined;
  const whoami = () => {
    me ??= conn.whoami();
    return me;
  };
  return {
    conn,
    full: canonical,
    name: registration?.name ?? conn.info.name,
    namespace: env.namespace ?? conn.info.id.owner,
    config,
    baseBranch,
    directory,
    packageDir: (pkg) => (directory ? `${directory}/${pkg}` : pkg),
    async load() {
      const read = ahead ?? refsAndPulls();
      const listedAhead = baseBranch === conn.info.defaultBranch ? baseAhead : undefined;
      const drafts = draftsAhead;
      ahead = undefined;
      baseAhead = undefined;
      draftsAhead = undefined;
      // Every revision of the repository, from one listing (the same for each registration of it read
      // with this one, which then find them once: shared-readings.ts), each registration keeping its own.
      const discover = async () => {
        const [refs, pulls] = await read;
        // The packages on the base branch: its `.<branch>` revisions, as Porch lists its registered branch.
        const base = indexRefs(refs).branches.get(baseBranch);
        const onBase = async () => {
          const dirs = base ? ((await listedAhead) ?? (await facts.packagesAt(base))) : [];
          // after the base branch's fetch, which brings most tagged commits along
          return { dirs, workspaces: await publishedWorkspaces(facts, refs) };
        };
        // A draft branch a publish left at its merged head is that published revision, not a Draft.
        const [merged, { dirs, workspaces }] = await Promise.all([
          (drafts ?? mergedDraftPulls(conn.port, { refs, openPulls: pulls }, env.draftPulls)).then((p) =>
            mergedInto(p, baseBranch),
          ),
          onBase(),
        ]);
        const discovered = discoverRevisions({
          refs,
          pullRequests: [...pulls, ...merged].map((p) => toPullInfo(canonical, p)),
          baseBranch,
          basePackages: new Set(dirs),
          publishedWorkspaces: workspaces,
        });
        return { refs, pulls, discovered };
      };
      const { refs, pulls, discovered } = await (together
        ? together.shared.derived(read, `revisions on ${baseBranch}`, discover)
        : discover());
      const revisions = discovered
        .flatMap((r) => {
          // only the registration's directory, its packages named within it (Porch's packageInDirectory)
          const pkg = packageIn(directory, r.package);
          return pkg === undefined ? [] : [{ ...r, package: pkg }];
        })
        .sort(byPackageThenRevision);
      return { refs, pulls, revisions };
    },
    madeDraft(branch, sha) {
      env.draftMade?.(conn.port.id, branch, sha);
    },
    whoami,
    async author() {
      const who = await whoami();
      const name = env.authorEnv.GIT_AUTHOR_NAME ?? who?.name ?? who?.login ?? "porchlight rpkg";
      const email =
        env.authorEnv.GIT_AUTHOR_EMAIL ?? who?.email ?? "porchlight-rpkg@users.noreply.github.com";
      return { name, email };
    },
  };
}

/**
 * The repository's configuration at its default branch, its files read as the app reads them
 * (github/default-branch-files.ts, `env.files`): each by the commit its repository's default branch is at,
 * asked of git (no request GitHub counts), and read again only at a commit not read before. The
 * repository's own commit is the one in the refs read ahead, its file read from the cache clone that
 * fetch fills; the organisation's `.github` (and any file a configuration extends) through the
 * connection's door, which asks git where that repository's default branch is each time, so a change
 * there is seen at the next opening though this repository did not move.
 */
async function configOf(
  env: PorchEnv,
  conn: RepoConnection,
  ahead: Promise<[RefInfo[], PullRequest[]]> | undefined,
  /** The default branch's commit being fetched (read ahead): its own file is then read there, by git. */
  fetched?: Promise<unknown>,
): Promise<Awaited<ReturnType<typeof loadRepoConfig>>> {
  const read = (readFile = conn.readFile) =>
    loadRepoConfig(readFile, conn.info.id, { ref: conn.info.defaultBranch });
  const files = env.files;
  if (!files) return read();
  // the default branch's commit, from the refs read ahead, else from git (no request to GitHub's API):
  // a repository without `.github/porchlight.yml` costs two counted 404s each time it is read by REST
  const sha = await (ahead ?? conn.port.listRefs().then((refs) => [refs] as const)).then(
    ([refs]) => indexRefs(refs).branches.get(conn.info.defaultBranch),
    () => undefined,
  );
  if (sha === undefined) return read();
  const { owner, repo } = conn.info.id;
  return read(async (file) => {
    if (file.owner !== owner || file.repo !== repo) return conn.readFile(file);
    return files.read(file, sha, async () => {
      // (a commit not read ahead fetched first, with its files: one git request, none GitHub counts)
      await (fetched ?? conn.port.commitMessages([sha])).catch(() => undefined);
      return conn.port.getFile(file.path, sha);
    });
  });
}

/**
 * Each revision tag's workspace, from its commit's message (one fetch of the commits for all, of those
 * the disk cache does not hold).
 */
async function publishedWorkspaces(
  facts: Pick<CommitFacts, "messages">,
  refs: readonly RefInfo[],
): Promise<Map<string, string>> {
  const tagged = await taggedRevisions(indexRefs(refs).tags, (shas) => facts.messages(shas));
  return new Map(tagged.flatMap((t) => (t.workspace ? [[t.tag, t.workspace] as const] : [])));
}
