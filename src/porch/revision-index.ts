import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { LRUCache } from "lru-cache";
import type { AnswerCache } from "../github/conditional.js";
import { DefaultBranchFiles } from "../github/default-branch-files.js";
import { GitObjectCache } from "../github/object-cache.js";
import { pullOfEvent } from "../github/octokit-repo.js";
import { OpenPulls, type PullChange } from "../github/open-pulls.js";
import type { PullRequest, RepoId } from "../github/port.js";
import { type DraftPullsMemo, noteClosedPull, noteDraftCommit } from "../jobs/publish/merged-drafts.js";
import {
  DRAFT_PREFIX,
  indexRefs,
  type PackageRevision,
  parseDraftBranch,
  parseRevisionTag,
} from "../lifecycle/index.js";
import type { PorchTask, PublishInfo } from "../lifecycle/kpt-trailer.js";
import type { RefInfo } from "../lifecycle/refs.js";
import type { HeardNotice } from "../queue/redis-notices.js";
import type { CommitFactCache } from "./commit-facts.js";
import { PLACEHOLDER, readCreationTimes, withCreationTime } from "./created.js";
import { nameOf } from "./names.js";
import { registrationsOfObjects } from "./namespace.js";
import {
  type PackageMetadata,
  type PackageRevisionObject,
  packageRevisionObject,
  withVersion,
} from "./objects.js";
import { ReadAccess, type Reader } from "./read-access.js";
import { openRegistry, openRevisionMetadata, type RevisionMetadata } from "./registrations.js";
import { REGISTRY_REPO } from "./repo-address.js";
import { RepoMetadataMemo } from "./repo-metadata.js";
import {
  openRepository,
  type PorchEnv,
  packageIn,
  type Registration,
  type RepoState,
  type Repository,
} from "./repository.js";
import { type ReadTogether, SharedReadings } from "./shared-readings.js";
import {
  kptfileReader,
  type RevisionUpstream,
  readHistories,
  readPackageMetadata,
  readUpstreams,
} from "./upstream-lock.js";

/**
 * One index of the package revisions of each namespace, built from git and GitHub by the listing
 * `rpkg get` uses (openRepository, load) and rebuildable at any time: git stays the only truth, the
 * index is what was read last, and a restart reads it again. What never changes for a commit (its
 * package directories, messages, Kptfile, history) is read once and kept by commit; a refresh asks
 * again only what moves (refs, pull requests, configuration), as conditional requests, so a refresh
 * that finds nothing changed costs no budget.
 *
 * It is kept current by what tells it of a change: `repositoryChanged` (the app's webhooks: pushes,
 * pull requests, tags and branches made or deleted), `namespaceChanged` (a write made through the API
 * or rpkg in this process), and an age past which a read refreshes anyway (`maxAgeMs`: 0 for
 * `porchlight api`, which hears no webhooks; the sweep's safety net where it does). Namespaces watched
 * (`subscribe`) are refreshed as soon as a change is heard — or, without webhooks, every `pollMs`,
 * once per namespace for all its watchers — and their watchers told.
 *
 * Authorization stays each caller's: a read answers only the repositories the caller's own token reads
 * (ReadAccess, trusted READ_ACCESS_TRUST_MS), and nothing of a namespace whose registrations repository
 * it does not read; what is refreshed for a caller is read with their token.
 */
export interface RevisionIndexSettings {
  apiUrl: string | undefined;
  /** The index's own folder of cache clones (one folder per namespace inside). */
  cacheDir: string;
  /** GitHub's answers kept per token, asked again as conditional requests. */
  conditional?: AnswerCache | undefined;
  /** The environment commits take their author from (unused by reads; PorchEnv asks for it). */
  authorEnv: Readonly<Record<string, string | undefined>>;
  /** How old a namespace's reading may be before a read refreshes it: 0, every read asks (conditionally). */
  maxAgeMs: number;
  /** How often a watched namespace is read again without a change heard (0: never). */
  pollMs: number;
  /** How long a token's read access is trusted (default READ_ACCESS_TRUST_MS). */
  accessTrustMs?: number;
  /** Reports a refresh that failed with no caller to tell (a watched namespace's). */
  onError?: (err: unknown) => void;
  /**
   * The fleet this index is one replica's of (Redis mode; queue/redis-notices.ts): every change this
   * replica hears (a webhook, a write it answered) is told to the others, and theirs heard here.
   */
  fleet?: IndexFleet | undefined;
}

/**
 * The channel the replicas of a fleet tell each other their changes on: notices every replica hears,
 * those of a namespace's writes numbered in the namespace's sequence (RedisNotices).
 */
export interface IndexFleet {
  /** Whether notices are heard now: while not, every read asks GitHub (conditionally), as without webhooks. */
  readonly listening: boolean;
  listen(onNotice: (n: HeardNotice) => void, onGap: () => void): Promise<void>;
  tell(body: unknown, key?: string): Promise<number | undefined>;
  sequence(key: string): Promise<number>;
}

/**
 * What a replica tells the fleet: a webhook of a repository, a write it answered in a namespace, or a
 * draft branch one of its writes moved (told before that write's `written`, on the same channel).
 */
type FleetNotice =
  | { kind: "repository"; full: string; pull?: PullEvent }
  | {
      kind: "written";
      namespace: string;
      full?: string;
      /** The writer told what its write did to pull requests (`pulls` notices): absent, not known. */
      pulls?: "told";
    }
  | { kind: "pulls"; full: string; change: PullChange }
  | { kind: "draft"; owner: string; repo: string; branch: string; sha: string };

/**
 * How long a read waits for the notices of writes other replicas answered before it (its namespace's
 * sequence ahead of what this replica heard); past it, the namespace is read afresh instead.
 */
const CATCH_UP_MS = 1_000;

/** A revision as the index holds it: the revision, its object (with its resourceVersion) and its labels. */
export interface IndexedRevision {
  rev: PackageRevision;
  object: PackageRevisionObject & { metadata: { resourceVersion: string } };
  /** The Kptfile's labels (field selectors `spec.packageMetadata.labels[…]`). */
  packageLabels: Record<string, string> | undefined;
}

/** One registered repository as read: its revisions in rpkg get's order. */
interface IndexedRepository {
  /** The registration's name. */
  name: string;
  registration: Registration;
  repo: Repository;
  revisions: readonly IndexedRevision[];
}

/** What a caller sees of a namespace: the registrations and the repositories their token reads. */
export interface NamespaceView {
  namespace: string;
  /** Every registration (names only matter for messages: a revision's name starts with one). */
  registrations: ReadonlyMap<string, Registration>;
  /** Registrations porchlight cannot read (not on this GitHub), with the reason. */
  elsewhere: ReadonlyMap<string, string>;
  /** The repositories the caller reads, read; one GitHub refused or that failed is left out. */
  repositories: readonly IndexedRepository[];
}

/** What never changes for a commit, read once: the details of a revision at its ref, commit and lifecycle. */
interface Details {
  upstream: RevisionUpstream | undefined;
  tasks: PorchTask[] | undefined;
  published: PublishInfo | undefined;
  packageMetadata: PackageMetadata | undefined;
  /** When the revision began, from git (created.ts): its `metadata.creationTimestamp`. */
  created: Date | undefined;
  /**
   * The commit the object names (`porchlight.dev/commit`): the revision's own, a placeholder's its
   * package's last change on the branch — a publish of another package changes no other `.main` object.
   */
  at: string;
}

interface RegistryState {
  registrations: Map<string, Registration>;
  elsewhere: Map<string, string>;
  metadata: Map<string, RevisionMetadata>;
  digest: string;
}

interface RepoEntry {
  registration: Registration;
  read?: IndexedRepository;
  digest: string;
}

/** One thing read (the registry, a repository): when its reading started, whether a change was heard since. */
interface Freshness {
  readAt: number;
  dirty: boolean;
  running?: { startedAt: number; done: Promise<void> };
}

interface Watcher {
  reader: Reader;
  onChange: () => void;
}

interface NamespaceState {
  registry?: RegistryState;
  fresh: Map<string, Freshness>;
  repos: Map<string, RepoEntry>;
  watchers: Set<Watcher>;
  poll?: NodeJS.Timeout;
  pending?: NodeJS.Timeout;
}

/** The registry's key among a namespace's Freshness entries (a registration's name never starts with a dot). */
const REGISTRY_KEY = `.${REGISTRY_REPO}`;
const DETAILS_KEPT = 100_000;
const FACTS_KEPT = 50_000;
const BRANCHES_KEPT = 10_000;
/** The packages' files kept by commit (packagerevisionresources), in bytes. */
const FILES_BYTES_KEPT = 128 * 1024 * 1024;
/**
 * The webhooks that can change what the index holds of a repository: its refs (push, create, delete),
 * its pull requests (opened, closed, merged, labelled, edited…) and the repository itself (renamed, its
 * default branch changed). Check runs, statuses, comments and reviews change no package revision; who
 * may read a repository is each caller's own question (ReadAccess), not the index's.
 */
const CHANGING_EVENTS = new Set(["push", "create", "delete", "pull_request", "repository"]);
/** How soon after a change is heard a watched namespace is read (changes arriving together read once). */
const SETTLE_MS = 25;

const now = () => performance.now();

/** A `pull_request` webhook's action, and its pull request where the payload holds it whole. */
interface PullEvent {
  action: string;
  pull?: PullRequest | undefined;
}

function pullEventOf(payload: unknown): PullEvent {
  const p = payload as { action?: unknown; pull_request?: unknown } | undefined;
  return {
    action: typeof p?.action === "string" ? p.action : "unknown",
    pull: pullOfEvent(p?.pull_request),
  };
}

/** A change of pull requests as another replica told it (JSON through Redis), of a shape it can be. */
function isPullChange(v: unknown): v is PullChange {
  const c = v as
    | { kind?: unknown; pull?: unknown; number?: unknown; labels?: unknown; branch?: unknown; sha?: unknown }
    | undefined;
  switch (c?.kind) {
    case "answered":
      return isPull(c.pull);
    case "merged":
      return typeof c.number === "number";
    case "labels":
      return (
        typeof c.number === "number" &&
        Array.isArray(c.labels) &&
        c.labels.every((l) => typeof l === "string")
      );
    case "pushed":
      return isText(c.branch) && isText(c.sha);
    case "deleted":
      return isText(c.branch);
    case "unknown":
      return true;
    default:
      return false;
  }
}

/** A pull request as another replica told it (JSON through Redis): the fields a listing reads, typed. */
function isPull(v: unknown): v is PullRequest {
  const p = v as Partial<PullRequest> | undefined;
  return (
    typeof p?.number === "number" &&
    (p.state === "open" || p.state === "closed") &&
    typeof p.headRef === "string" &&
    typeof p.baseRef === "string" &&
    Array.isArray(p.labels)
  );
}
const isText = (v: unknown): v is string => typeof v === "string" && v !== "";

/**
 * The commits of refs that are package revisions of a registration (draft branches and revision tags of
 * packages in its `directory`) not in `known`. Another registration's revisions in the same repository
 * (Porch's layout: one repository, a registration a directory) are never this one's to read: counted,
 * every read of a registration asked for the messages of all the others' revisions again.
 */
export function newRevisionCommits(
  refs: readonly RefInfo[],
  known: ReadonlySet<string>,
  directory: string,
): string[] {
  const { branches, tags } = indexRefs(refs);
  const shas = new Set<string>();
  const mine = (pkg: string) => packageIn(directory, pkg) !== undefined;
  for (const [branch, sha] of branches) {
    const draft = branch.startsWith(DRAFT_PREFIX) ? parseDraftBranch(branch) : undefined;
    if (draft?.ok && mine(draft.value.package)) shas.add(sha);
  }
  for (const [tag, sha] of tags) {
    const revision = parseRevisionTag(tag);
    if (revision.ok && mine(revision.value.package)) shas.add(sha);
  }
  return [...shas].filter((sha) => !known.has(sha));
}

/** Facts of commits kept in memory for the server's life (commit-facts.ts): a commit's facts never change. */
class MemoryCommitFacts implements CommitFactCache {
  readonly #facts = new LRUCache<string, { value: unknown }>({ max: FACTS_KEPT });
  commitFact(sha: string, kind: string): unknown {
    return this.#facts.get(`${sha}\n${kind}`)?.value;
  }
  keepCommitFact(sha: string, kind: string, value: unknown): void {
    this.#facts.set(`${sha}\n${kind}`, { value });
  }
}

const digestOf = (parts: Iterable<string>) => {
  const h = createHash("sha1");
  for (const p of parts) h.update(`${p}\n`);
  return h.digest("hex");
};

export class RevisionIndex {
  readonly access: ReadAccess;
  readonly #namespaces = new Map<string, NamespaceState>();
  /** The draft branches' pull request listings, kept between readings (merged-drafts.ts). */
  readonly #draftPulls: DraftPullsMemo = new Map();
  /** Per namespace, the last notice number of the fleet's sequence this replica heard (fleet only). */
  readonly #applied = new Map<string, number>();
  /** Reads waiting for a namespace's notices to reach a number (#caughtUp). */
  readonly #catchingUp = new Map<string, Set<{ target: number; done: () => void }>>();
  readonly #facts = new MemoryCommitFacts();
  readonly #defaultBranchFiles = new DefaultBranchFiles();
  readonly #objects = new GitObjectCache();
  readonly #details = new LRUCache<string, Details>({ max: DETAILS_KEPT });
  /**
   * What each revision's object was made from (its repository's names, the revision as discovered, its
   * details and metadata as kept): a reading that finds the same keeps the object, its version not
   * digested again (a repository's every revision at each reading, hundreds in Porch's iterative test).
   */
  readonly #madeFrom = new WeakMap<
    IndexedRevision,
    { of: string; d: Details | undefined; metadata: unknown }
  >();
  /** Each repository's base branch as last read: its head and its packages' last changes. */
  readonly #branches = new LRUCache<string, { head: string; last: ReadonlyMap<string, string> }>({
    max: BRANCHES_KEPT,
  });
  readonly #files = new LRUCache<string, ReadonlyMap<string, Buffer>>({
    maxSize: FILES_BYTES_KEPT,
    sizeCalculation: (tree) => {
      let bytes = 1;
      for (const [path, b] of tree) bytes += path.length + b.length;
      return Math.min(bytes, FILES_BYTES_KEPT);
    },
  });
  #stopped = false;

  /**
   * What never changes for a commit, kept for the server's life (commit-facts.ts): the API's writes read
   * through it too, so a write's listing of a repository asks git only for commits not read before.
   */
  get facts(): CommitFactCache {
    return this.#facts;
  }

  /**
   * Repositories' default-branch files by commit, for the server's life (github/default-branch-files.ts):
   * the configuration every opening reads, the index's and the API's writes', asked of GitHub once a commit.
   */
  get files(): DefaultBranchFiles {
    return this.#defaultBranchFiles;
  }

  /**
   * Which commits the cache clones hold, and trees and files' bytes by id, for the server's life
   * (github/object-cache.ts), the index's clones and the API's writes' alike: an opening asks git only
   * what none before it read. Without it each opening asked again whether the clone holds a commit whole
   * and read a Kptfile with three git processes, a third of the API's git processes in Porch's iterative
   * test.
   */
  get objects(): GitObjectCache {
    return this.#objects;
  }

  /**
   * What is known of draft branches' merged pull requests (merged-drafts.ts), by repository: the API's
   * writes open their repository with it too, and note the drafts they move, so that neither a write nor
   * the index's next reading asks GitHub about a draft no pull request was opened from.
   */
  get draftPulls(): DraftPullsMemo {
    return this.#draftPulls;
  }

  /**
   * Draft branch `branch` of `repo` was moved by an API write of this replica to `sha`, a commit it made:
   * noted in draftPulls, so that no reading asks GitHub whether a pull request was merged at it, and told
   * to the other replicas of a fleet, which note it too. Without that, each of them asked at its next
   * reading after every draft the fleet created or changed: the fleet's GitHub requests were 1.54× one
   * replica's, most of the difference those listings. Told before the write's `written` notice, on the
   * same channel: a replica that has caught up with the write has heard it.
   */
  draftMade(repo: RepoId, branch: string, sha: string): void {
    noteDraftCommit(this.#draftPulls, { id: repo }, branch, sha);
    this.settings.fleet
      ?.tell({ kind: "draft", owner: repo.owner, repo: repo.repo, branch, sha } satisfies FleetNotice)
      .catch((e: unknown) => this.settings.onError?.(e));
  }

  /**
   * Each token's answers about repositories (their default branch, its permission), trusted as its read
   * access is: every opening reads through it, the index's and the API's writes' (repo-metadata.ts).
   */
  readonly metadata: RepoMetadataMemo;

  /**
   * The open pull requests of each repository, kept with the changes heard since their listing
   * (github/open-pulls.ts): from the app's `pull_request` webhooks (here or, told, on another replica)
   * and the API's writes of this replica, which open every repository with it. A reading after a write,
   * or after another registration's of the same repository, lists them again only where that is not
   * known; trusted as long as the index's readings are (maxAgeMs; none while a fleet's notices are not
   * heard). Three registrations of one repository publishing together listed them 3.1 times a
   * revision, in full, each listing after another's change.
   */
  readonly openPulls: OpenPulls;

  constructor(readonly settings: RevisionIndexSettings) {
    this.metadata = new RepoMetadataMemo(settings.accessTrustMs);
    this.openPulls = new OpenPulls(
      () => (settings.fleet && !settings.fleet.listening ? 0 : settings.maxAgeMs),
      {
        // what this replica's writes did to pull requests, told before each write's own notice
        tell: (full, change) =>
          settings.fleet
            ?.tell({ kind: "pulls", full, change } satisfies FleetNotice)
            .catch((e: unknown) => settings.onError?.(e)),
      },
    );
    this.access = new ReadAccess(
      {
        apiUrl: settings.apiUrl,
        conditional: settings.conditional,
        cacheDir: settings.cacheDir,
        metadata: this.metadata,
      },
      settings.accessTrustMs,
    );
  }

  /**
   * Joins the fleet (settings.fleet): resolves once this replica hears the others' notices, so that a
   * replica serves only once it hears every change told after it started (what came before, it reads).
   */
  async hearFleet(): Promise<void> {
    await this.settings.fleet?.listen(
      (n) => this.#heard(n),
      () => this.#gap(),
    );
  }

  /** A notice of the fleet: another replica's change applied here; a namespace's sequence counted. */
  #heard(n: HeardNotice): void {
    const body = n.body as FleetNotice | undefined;
    if (!n.own && body?.kind === "repository" && typeof body.full === "string") {
      const told = body.pull;
      if (told) this.#pullHeard(body.full, String(told.action), isPull(told.pull) ? told.pull : undefined);
      this.#repositoryChangedHere(body.full);
    }
    if (!n.own && body?.kind === "written" && typeof body.namespace === "string") {
      // another replica's write: what it did to pull requests was told before it, or is not known
      if (body.pulls !== "told") {
        if (typeof body.full === "string") this.openPulls.unsure(body.full);
        else this.openPulls.unsureAll();
      }
      this.#writtenHere(body.namespace, body.full);
    }
    if (!n.own && body?.kind === "pulls" && isText(body.full) && isPullChange(body.change))
      this.openPulls.told(body.full, body.change);
    if (!n.own && body?.kind === "draft" && [body.owner, body.repo, body.branch, body.sha].every(isText))
      noteDraftCommit(
        this.#draftPulls,
        { id: { owner: body.owner, repo: body.repo } },
        body.branch,
        body.sha,
      );
    if (n.key !== undefined && n.seq !== undefined) this.#count(n.key, n.seq);
  }

  /**
   * The subscription was lost and made again: what other replicas told meanwhile was not heard, so every
   * namespace is read afresh (its watchers told of what changed) and its sequence taken as it is then.
   */
  #gap(): void {
    this.#applied.clear();
    this.openPulls.unsureAll();
    for (const ns of this.#namespaces.keys()) this.namespaceChanged(ns);
  }

  /** Notice number `seq` of namespace `key` heard (or this replica's own write numbered so). */
  #count(key: string, seq: number): void {
    const was = this.#applied.get(key);
    if (was !== undefined && was >= seq) return;
    this.#applied.set(key, seq);
    const waiting = this.#catchingUp.get(key);
    if (!waiting) return;
    for (const w of [...waiting])
      if (w.target <= seq) {
        waiting.delete(w);
        w.done();
      }
  }

  /**
   * Before a namespace is answered from the index: every write another replica answered before now has
   * been heard (the namespace's sequence in Redis reached), waiting for its notice at most CATCH_UP_MS;
   * one not heard by then (lost with a connection) makes the namespace read afresh. A namespace this
   * replica has not counted yet is read afresh anyway: its count starts at the sequence as it is now.
   */
  async #caughtUp(ns: string): Promise<void> {
    const fleet = this.settings.fleet;
    if (!fleet?.listening) return;
    const key = ns.toLowerCase();
    let target: number;
    try {
      target = await fleet.sequence(key);
    } catch (e) {
      // Redis unreachable now: answered from what this replica heard, read again past its age
      this.settings.onError?.(e);
      return;
    }
    const applied = this.#applied.get(key);
    if (applied === undefined || this.#namespaces.get(key)?.registry === undefined) {
      if (applied === undefined || applied < target) this.#applied.set(key, target);
      return;
    }
    if (applied >= target) return;
    const heard = await new Promise<boolean>((resolve) => {
      const waiting = this.#catchingUp.get(key) ?? new Set();
      this.#catchingUp.set(key, waiting);
      const w = { target, done: () => resolve(true) };
      waiting.add(w);
      setTimeout(() => {
        waiting.delete(w);
        resolve(false);
      }, CATCH_UP_MS).unref();
    });
    if (!heard) {
      this.namespaceChanged(key);
      this.#count(key, target);
    }
  }

  #state(ns: string): NamespaceState {
    const key = ns.toLowerCase();
    let s = this.#namespaces.get(key);
    if (!s) {
      s = { fresh: new Map(), repos: new Map(), watchers: new Set() };
      this.#namespaces.set(key, s);
    }
    return s;
  }

  /**
   * The namespace as `reader` sees it: nothing unless their token reads `NS/.porchlight`, then the
   * repositories registered there that their token reads, each refreshed first when a change was heard
   * or its reading is older than maxAgeMs (`known`: as read last, a watch woken by a change;
   * `registrations`: only those, for a request that needs no other).
   */
  async view(
    reader: Reader,
    ns: string,
    opts: {
      known?: boolean;
      /** Only the registrations this keeps (a get of one name, a list of one repository): the others are neither read nor answered. */
      registrations?: (name: string) => boolean;
    } = {},
  ): Promise<NamespaceView> {
    const empty: NamespaceView = {
      namespace: ns,
      registrations: new Map(),
      elsewhere: new Map(),
      repositories: [],
    };
    if (!(await this.access.canRead(reader, `${ns}/${REGISTRY_REPO}`))) return empty;
    if (!opts.known) await this.#caughtUp(ns);
    const state = this.#state(ns);
    // a replica of a fleet that hears no notices now (Redis gone) asks GitHub at each read, as without webhooks
    const maxAgeMs = this.settings.fleet && !this.settings.fleet.listening ? 0 : this.settings.maxAgeMs;
    const after = now() - maxAgeMs;
    // known: as the index holds it (a watch woken by the index, which reads the changes itself)
    if (!(opts.known && state.registry))
      await this.#fresh(state, REGISTRY_KEY, after, () => this.#readRegistry(reader, ns, state));
    const registry = state.registry;
    if (!registry) return empty;
    const wanted = opts.registrations ?? (() => true);
    const readable = await Promise.all(
      [...registry.registrations].map(async ([name, r]) => {
        if (!wanted(name)) return [];
        try {
          return (await this.access.canRead(reader, r.full)) ? [name] : [];
        } catch {
          return [];
        }
      }),
    );
    const names = readable.flat();
    // registrations of one repository read now list it once, and find its revisions once
    const shared = new SharedReadings(now);
    await Promise.allSettled(
      names.map((name) =>
        opts.known && state.repos.get(name)?.read
          ? undefined
          : this.#fresh(state, name, after, () => this.#readRepository(reader, ns, state, name, shared)),
      ),
    );
    shared.close();
    const repositories = names.flatMap((n) => {
      const read = state.repos.get(n)?.read;
      return read ? [read] : [];
    });
    return {
      namespace: ns,
      registrations: registry.registrations,
      elsewhere: registry.elsewhere,
      repositories,
    };
  }

  /**
   * A change heard on repository `full` (`owner/repo`): a webhook of it (`event`, its name; one that
   * changes no package revision, as a check run, is let go). Its registrations in every namespace are
   * read again at the next read; a watched namespace at once.
   */
  repositoryChanged(full: string, event?: string, payload?: unknown): void {
    if (event !== undefined && !CHANGING_EVENTS.has(event)) return;
    const told = event === "pull_request" ? pullEventOf(payload) : undefined;
    if (told) this.#pullHeard(full, told.action, told.pull);
    this.#repositoryChangedHere(full);
    this.settings.fleet
      ?.tell({ kind: "repository", full, ...(told ? { pull: told } : {}) } satisfies FleetNotice)
      .catch((e: unknown) => this.settings.onError?.(e));
  }

  /**
   * A webhook of repository `full` heard: a `pull_request` event's pull request applied to the open
   * ones known (`action` and `pull`, from its payload), and a change of any pull request of it that the
   * event does not carry (a payload that does not parse) makes them listed again.
   */
  #pullHeard(full: string, action: string, pull: PullRequest | undefined): void {
    if (!pull) {
      this.openPulls.unsure(full);
      return;
    }
    this.openPulls.heard(full, action, pull);
    // a draft's proposal closed: whether it merged at the draft's head is known, not asked (merged-drafts.ts)
    if (pull.state === "closed") noteClosedPull(this.#draftPulls, full, pull);
  }

  /** A change of repository `full` heard (a webhook filtered by repositoryChanged, here or on another replica). */
  #repositoryChangedHere(full: string): void {
    const lower = full.toLowerCase();
    for (const [ns, state] of this.#namespaces) {
      let touched = false;
      if (lower === `${ns}/${REGISTRY_REPO}`) {
        this.#dirty(state, REGISTRY_KEY);
        touched = true;
      }
      for (const [name, entry] of state.repos)
        if (entry.registration.full.toLowerCase() === lower) {
          this.#dirty(state, name);
          touched = true;
        }
      if (touched) this.#soon(ns, state);
    }
  }

  /**
   * A write in this process (the API's) landed in repository `full` of namespace `ns` (where known;
   * else anywhere in it): that repository and the namespace's registrations (which keep the revisions'
   * own labels and owners) are read again at the next read; a watched namespace at once. In a fleet,
   * resolves once the other replicas are told, numbered in the namespace's sequence: a read on any
   * replica after the write's answer waits until that replica heard it (#caughtUp).
   */
  async written(ns: string, full: string | undefined): Promise<void> {
    this.#writtenHere(ns, full);
    const fleet = this.settings.fleet;
    if (!fleet) return;
    const key = ns.toLowerCase();
    try {
      const body: FleetNotice = { kind: "written", namespace: key, ...(full ? { full } : {}), pulls: "told" };
      const seq = await fleet.tell(body, key);
      // this replica's own write, heard before its notice comes back, when it heard every one before it
      if (seq !== undefined && this.#applied.get(key) === seq - 1) this.#count(key, seq);
    } catch (e) {
      // Redis unreachable: the write stands (it is in GitHub); the others read it past their index's age
      this.settings.onError?.(e);
    }
  }

  #writtenHere(ns: string, full: string | undefined): void {
    if (full === undefined) {
      this.namespaceChanged(ns);
      return;
    }
    const state = this.#namespaces.get(ns.toLowerCase());
    if (state) this.#dirty(state, REGISTRY_KEY);
    this.#repositoryChangedHere(full);
    if (state) this.#soon(ns, state);
  }

  /** A change in namespace `ns` not known to be of one repository: everything of it is read again. */
  namespaceChanged(ns: string): void {
    const state = this.#namespaces.get(ns.toLowerCase());
    if (!state) return;
    for (const key of state.fresh.keys()) this.#dirty(state, key);
    this.#soon(ns, state);
  }

  /**
   * Tells `onChange` of every change the index reads in namespace `ns` until the
   * returned function is called. Without webhooks (pollMs), a watched namespace is read every pollMs,
   * once for all its watchers, with a watcher's token.
   */
  subscribe(reader: Reader, ns: string, onChange: () => void): () => void {
    const watcher: Watcher = { reader, onChange };
    const state = this.#state(ns);
    state.watchers.add(watcher);
    if (this.settings.pollMs > 0 && !state.poll) {
      state.poll = setInterval(() => this.namespaceChanged(ns), this.settings.pollMs);
      state.poll.unref();
    }
    return () => {
      state.watchers.delete(watcher);
      if (state.watchers.size === 0 && state.poll) {
        clearInterval(state.poll);
        state.poll = undefined;
      }
    };
  }

  /**
   * The files of directory `dir` at commit `sha` of `repo` (a repository of a caller's view), read from
   * git once and kept by commit: a commit's files never change.
   */
  async filesAt(repo: Repository, sha: string, dir: string): Promise<ReadonlyMap<string, Buffer>> {
    const key = `${repo.full.toLowerCase()}\n${sha}\n${dir}`;
    const kept = this.#files.get(key);
    if (kept) return kept;
    const { sha: read, tree } = await repo.conn.port.readTree(sha, dir);
    if (read === sha) this.#files.set(key, tree);
    return tree;
  }

  /** Stops the polls and the reads planned; a read in flight finishes. */
  stop(): void {
    this.#stopped = true;
    for (const state of this.#namespaces.values()) {
      if (state.poll) clearInterval(state.poll);
      if (state.pending) clearTimeout(state.pending);
      state.poll = undefined;
      state.pending = undefined;
    }
  }

  #dirty(state: NamespaceState, key: string): void {
    const f = state.fresh.get(key);
    if (f) f.dirty = true;
  }

  /** A watched namespace with a change heard: read again soon, with a watcher's token, and its watchers told. */
  #soon(ns: string, state: NamespaceState): void {
    if (this.#stopped || state.pending || state.watchers.size === 0) return;
    state.pending = setTimeout(() => {
      state.pending = undefined;
      this.#refreshWatched(ns, state).catch((e) => this.settings.onError?.(e));
    }, SETTLE_MS);
    state.pending.unref();
  }

  async #refreshWatched(ns: string, state: NamespaceState): Promise<void> {
    const before = this.#digest(state);
    // each dirty thing read with the token of a watcher who reads it (the first that can), ended with
    // that watcher's request: a watch whose client went asks GitHub nothing more
    // (the next token only for what this round has not read: a change heard meanwhile waits its turn)
    const started = now();
    const tried = new Set<string>();
    for (const { reader } of [...state.watchers]) {
      if (tried.has(reader.token) || reader.signal?.aborted) continue;
      if (tried.size > 0 && ![...state.fresh.values()].some((f) => f.dirty && f.readAt < started)) break;
      tried.add(reader.token);
      await this.view(reader, ns).catch(() => undefined);
    }
    if (this.#digest(state) !== before) this.#tell(state);
  }

  #tell(state: NamespaceState): void {
    for (const w of [...state.watchers]) {
      try {
        w.onChange();
      } catch (e) {
        this.settings.onError?.(e);
      }
    }
  }

  #digest(state: NamespaceState): string {
    return digestOf([state.registry?.digest ?? "", ...[...state.repos].map(([n, e]) => `${n}:${e.digest}`)]);
  }

  /**
   * Waits until `key` was read by a reading that started at or after `after` with no change heard since
   * it started, starting one (`read`) when none is under way; concurrent reads share it.
   */
  async #fresh(state: NamespaceState, key: string, after: number, read: () => Promise<void>): Promise<void> {
    for (;;) {
      let f = state.fresh.get(key);
      if (!f) {
        f = { readAt: Number.NEGATIVE_INFINITY, dirty: true };
        state.fresh.set(key, f);
      }
      // a reading under way started after every change heard before it (it cleared `dirty`): what it
      // reads is newer than what is held, so it is waited for
      if (!f.running && !f.dirty && f.readAt >= after) return;
      if (f.running) {
        // another's reading: waited for, then looked at again — it counts only when no change was heard
        // since it started (a write told meanwhile marks the entry dirty again) and it succeeded (one that
        // failed may have failed for its own caller only: their request ended)
        await f.running.done.catch(() => undefined);
        continue;
      }
      const startedAt = now();
      f.dirty = false;
      const entry = f;
      const done = read().then(
        () => {
          entry.readAt = startedAt;
        },
        (e: unknown) => {
          entry.dirty = true;
          throw e;
        },
      );
      entry.running = { startedAt, done };
      try {
        await done;
        return;
      } finally {
        if (entry.running?.done === done) entry.running = undefined;
      }
    }
  }

  #env(
    reader: Reader,
    ns: string,
    registrations?: ReadonlyMap<string, Registration>,
    read?: { known: ReadonlySet<string>; directory: string; together: ReadTogether },
  ): PorchEnv {
    return {
      ...(read
        ? {
            together: read.together,
            prefetch: (refs: readonly RefInfo[]) => newRevisionCommits(refs, read.known, read.directory),
          }
        : {}),
      draftPulls: this.#draftPulls,
      openPulls: this.openPulls,
      token: reader.token,
      apiUrl: this.settings.apiUrl,
      cacheDir: join(this.settings.cacheDir, Buffer.from(ns.toLowerCase()).toString("hex")),
      conditional: this.settings.conditional,
      disk: this.#facts,
      files: this.#defaultBranchFiles,
      objects: this.#objects,
      metadata: this.metadata,
      authorEnv: this.settings.authorEnv,
      namespace: ns,
      ...(registrations ? { registrations } : {}),
      signal: reader.signal,
    };
  }

  async #readRegistry(reader: Reader, ns: string, state: NamespaceState): Promise<void> {
    const env = this.#env(reader, ns);
    await mkdir(env.cacheDir, { recursive: true });
    const [objects, metadata] = await Promise.all([
      openRegistry(env, ns).then((r) => r.list()),
      openRevisionMetadata(env, ns).all(),
    ]);
    const { registrations, elsewhere } = registrationsOfObjects(objects, this.settings.apiUrl, ns);
    const digest = digestOf([
      JSON.stringify([...registrations]),
      JSON.stringify([...elsewhere]),
      JSON.stringify([...metadata].sort(([a], [b]) => a.localeCompare(b))),
    ]);
    const was = state.registry;
    state.registry = { registrations, elsewhere, metadata, digest };
    // a registration gone, or changed, is read again; the revisions' own metadata changed: all
    for (const [name, entry] of [...state.repos]) {
      const now = registrations.get(name);
      if (!now || JSON.stringify(now) !== JSON.stringify(entry.registration)) {
        state.repos.delete(name);
        state.fresh.delete(name);
      } else if (was && was.digest !== digest) this.#dirty(state, name);
    }
  }

  async #readRepository(
    reader: Reader,
    ns: string,
    state: NamespaceState,
    name: string,
    shared: SharedReadings,
  ): Promise<void> {
    // begun now: a listing another registration started since is as new as this reading needs
    const together = { shared, since: now() };
    const registry = state.registry;
    const registration = registry?.registrations.get(name);
    if (!registry || !registration) return;
    // the commits of revisions not read before, fetched with the base branch's
    const known = new Set(state.repos.get(name)?.read?.revisions.map((r) => r.rev.sha));
    const env = this.#env(reader, ns, registry.registrations, {
      known,
      directory: registration.directory,
      together,
    });
    await mkdir(env.cacheDir, { recursive: true });
    let repo: Repository;
    let loaded: RepoState;
    try {
      repo = await openRepository(env, name, "get", undefined, true);
      loaded = await repo.load();
    } catch (e) {
      // as rpkg get lists a namespace: a repository that cannot be read now is left out
      state.repos.delete(name);
      throw e;
    }
    const { revisions } = loaded;
    const details = await this.#detailsOf(repo, loaded);
    // a revision read from the same inputs as at the last reading is the object made then
    const before = new Map((state.repos.get(name)?.read?.revisions ?? []).map((r) => [r.rev.ref, r]));
    const indexed = revisions.map((rev): IndexedRevision => {
      const d = details.get(rev);
      const metadata = registry.metadata.get(nameOf(repo, rev));
      const inputs = { of: `${repo.namespace}\n${repo.name}\n${JSON.stringify(rev)}`, d, metadata };
      const was = before.get(rev.ref);
      const from = was && this.#madeFrom.get(was);
      if (was && from?.of === inputs.of && from.d === d && from.metadata === metadata) return was;
      const object = withVersion(
        withCreationTime(
          packageRevisionObject(repo, d ? { ...rev, sha: d.at } : rev, {
            upstreamLock: d?.upstream?.lock,
            tasks: d?.tasks,
            published: d?.published,
            metadata,
            packageMetadata: d?.packageMetadata,
          }),
          d?.created,
        ),
      );
      const made: IndexedRevision = { rev, object, packageLabels: d?.packageMetadata?.labels };
      this.#madeFrom.set(made, inputs);
      return made;
    });
    const digest = digestOf(
      indexed.map((r) => `${r.object.metadata.name}@${r.object.metadata.resourceVersion}`),
    );
    state.repos.set(name, { registration, digest, read: { name, registration, repo, revisions: indexed } });
  }

  /**
   * Each revision's details, read only for the revisions not read before: by repository, ref, commit and
   * lifecycle; a placeholder (`.main`) by its package's last change instead of the branch's head, so a
   * publish (which moves the branch) reads again only the package it changed.
   */
  async #detailsOf(repo: Repository, state: RepoState): Promise<Map<PackageRevision, Details>> {
    const { revisions } = state;
    const last = await this.#lastChanges(repo, state);
    // a placeholder is read as its package at its last change: the same files, history and time
    const asRead = (r: PackageRevision): PackageRevision => {
      const at = r.revision === PLACEHOLDER ? last.get(repo.packageDir(r.package)) : undefined;
      return at ? { ...r, sha: at } : r;
    };
    const keyOf = (r: PackageRevision) =>
      [repo.full, repo.packageDir(r.package), r.ref, asRead(r).sha, r.lifecycle, r.workspace].join("\n");
    const out = new Map<PackageRevision, Details>();
    const missing = new Map<PackageRevision, PackageRevision>();
    for (const r of revisions) {
      const kept = this.#details.get(keyOf(r));
      if (kept) out.set(r, kept);
      else missing.set(asRead(r), r);
    }
    if (missing.size === 0) return out;
    const read = [...missing.keys()];
    // the commits read, fetched first in one request (with the base branch's head, which a draft's
    // creation time is counted from): each reader then asks git alone, and the Kptfiles cost no request
    const base = indexRefs(state.refs).branches.get(repo.baseBranch);
    const shas = [...new Set([...read.map((r) => r.sha), ...(base ? [base] : [])])];
    await repo.conn.port.commitMessages(shas).catch(() => undefined);
    const kptfiles = kptfileReader(repo);
    const [upstreams, histories, packageMetadata, created] = await Promise.all([
      readUpstreams(repo, read, kptfiles),
      readHistories(repo, read),
      readPackageMetadata(repo, read, kptfiles),
      readCreationTimes([{ repo, state }], read, () => repo),
    ]);
    for (const [r, rev] of missing) {
      const d: Details = {
        upstream: upstreams.get(r),
        tasks: histories.tasks.get(r),
        published: histories.published.get(r),
        packageMetadata: packageMetadata.get(r),
        created: created.get(r),
        at: r.sha,
      };
      this.#details.set(keyOf(rev), d);
      out.set(rev, d);
    }
    return out;
  }

  /**
   * The last change of each package on the repository's base branch, by directory: asked of git for the
   * commits since the head last read (one git log), the whole history the first time.
   */
  async #lastChanges(repo: Repository, state: RepoState): Promise<ReadonlyMap<string, string>> {
    const head = state.revisions.find((r) => r.revision === PLACEHOLDER)?.sha;
    if (!head) return new Map();
    const dirs = state.revisions
      .filter((r) => r.revision === PLACEHOLDER && r.sha === head)
      .map((r) => repo.packageDir(r.package));
    const key = `${repo.full.toLowerCase()}\n${repo.baseBranch}`;
    const seen = this.#branches.get(key);
    if (seen?.head === head && dirs.every((d) => seen.last.has(d))) return seen.last;
    const changed = await repo.conn.port.lastChanges(head, dirs, seen?.head);
    const last = new Map<string, string>();
    for (const d of dirs) {
      const at = changed.get(d) ?? seen?.last.get(d);
      if (at) last.set(d, at);
    }
    // a package new to this reading that no commit since changed (it was not listed before): its own
    const unknown = dirs.filter((d) => !last.has(d));
    if (unknown.length > 0 && seen)
      for (const [d, at] of await repo.conn.port.lastChanges(head, unknown)) last.set(d, at);
    this.#branches.set(key, { head, last });
    return last;
  }
}
