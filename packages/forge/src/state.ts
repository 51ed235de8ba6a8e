import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { isoTime } from "./http.js";
import { writePrivateFile } from "./private-file.js";
import {
  emptyData,
  type ForgeData,
  type InstallationRec,
  type IssueRec,
  type Permission,
  type RepoRec,
  type UserRec,
} from "./types.js";

/** Deliveries kept in memory for listing and redelivery; older ones are dropped (GitHub keeps 3 days). */
const MAX_DELIVERIES = 1000;

/**
 * How long the changes of API requests gather before forge.json is written (`saveSoon`). The file is the
 * whole state, rewritten whole: written at every mutating request it cost `porchlight serve` 6 s of its
 * one event loop over Porch's iterative test, growing with every pull request and check run kept; once a
 * second, its cost no longer follows the requests.
 */
const SAVE_DELAY_MS = 1000;

/**
 * The forge's metadata: one JSON document kept in memory and written to `<dataDir>/forge.json`
 * after each change, so a forge restarted on the same directory sees the same world. Webhook
 * deliveries stay in memory only: they are large, and a restarted forge starts a fresh log. It holds
 * every user's token, each app's private key and webhook secret: the file is its owner's alone (0600,
 * every write a new file, and one an older forge left looser tightened when it is opened), in a folder
 * made 0700.
 *
 * What an API request changes is written within a second (`saveSoon`), with whatever else changed
 * meanwhile; what the forge's owner does (seeding, a user made, the webhook URL set) is written at once
 * (`save`), and a forge stopped writes what is pending. A forge killed outright (SIGKILL, a crash) loses
 * at most the last second of requests' metadata, while their git objects and refs are on disk already:
 * a dev forge's trade, not GitHub's.
 */
export class Store {
  data: ForgeData;
  /** The write `saveSoon` scheduled, not yet made. */
  private pending: NodeJS.Timeout | undefined;

  constructor(
    private readonly file: string | null,
    readonly now: () => Date,
  ) {
    const kept = file !== null && existsSync(file);
    // a file an older forge wrote readable by others is tightened at once, not at the next change
    if (kept && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    this.data = kept ? (JSON.parse(readFileSync(file, "utf8")) as ForgeData) : emptyData();
    this.data.deliveries ??= [];
  }

  /** A store persisted in `dir`, or (null) kept in memory only. */
  static inDir(dir: string | null, now: () => Date): Store {
    // a folder made here is its owner's alone; one the operator made is left as they made it
    if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
    return new Store(dir ? join(dir, "forge.json") : null, now);
  }

  nextId(): number {
    this.data.seq += 1;
    return this.data.seq;
  }

  timestamp(): string {
    return isoTime(this.now());
  }

  /** Writes the whole state now (and with it whatever `saveSoon` had pending). */
  save(): void {
    if (this.pending) clearTimeout(this.pending);
    this.pending = undefined;
    this.trimDeliveries();
    if (!this.file) return;
    writePrivateFile(this.file, JSON.stringify({ ...this.data, deliveries: [] }));
  }

  /**
   * Writes the state within SAVE_DELAY_MS, once for every change made meanwhile: after each mutating
   * request. The timer holds no process open; stopping the forge writes what is pending (`save`).
   */
  saveSoon(): void {
    this.trimDeliveries();
    if (!this.file || this.pending) return;
    this.pending = setTimeout(() => this.save(), SAVE_DELAY_MS);
    this.pending.unref();
  }

  private trimDeliveries(): void {
    if (this.data.deliveries.length > MAX_DELIVERIES) {
      this.data.deliveries.splice(0, this.data.deliveries.length - MAX_DELIVERIES);
    }
  }

  user(login: string): UserRec | undefined {
    const l = login.toLowerCase();
    return this.data.users.find((u) => u.login.toLowerCase() === l);
  }

  ensureUser(login: string, type: UserRec["type"] = "User"): UserRec {
    const existing = this.user(login);
    if (existing) return existing;
    const u: UserRec = {
      id: this.nextId(),
      login,
      type,
      name: null,
      email: null,
      siteAdmin: false,
      createdAt: this.timestamp(),
    };
    this.data.users.push(u);
    return u;
  }

  repo(owner: string, name: string): RepoRec | undefined {
    const o = owner.toLowerCase();
    const n = name.toLowerCase().replace(/\.git$/, "");
    return this.data.repos.find((r) => r.ownerLogin.toLowerCase() === o && r.name.toLowerCase() === n);
  }

  repoById(id: number): RepoRec | undefined {
    return this.data.repos.find((r) => r.id === id);
  }

  installation(id: number): InstallationRec | undefined {
    return this.data.installations.find((i) => i.id === id);
  }

  app(id: number) {
    return this.data.apps.find((a) => a.id === id);
  }

  /** Repositories an installation can reach. */
  installationRepos(inst: InstallationRec): RepoRec[] {
    return this.data.repos.filter((r) => installationCovers(inst, r));
  }

  /** Installations (of any app) that cover a repository. */
  installationsFor(repo: RepoRec): InstallationRec[] {
    return this.data.installations.filter((i) => installationCovers(i, repo));
  }

  issue(repo: RepoRec, number: number): IssueRec | undefined {
    return this.data.issues.find((i) => i.repoId === repo.id && i.number === number);
  }

  /** A user's permission on a repository: owner is admin, else the collaborator entry. */
  permission(repo: RepoRec, login: string): Permission {
    if (repo.ownerLogin.toLowerCase() === login.toLowerCase()) return "admin";
    // a site administrator (GitHub Enterprise's) administers every repository
    if (this.user(login)?.siteAdmin) return "admin";
    const entry = Object.entries(repo.collaborators).find(([l]) => l.toLowerCase() === login.toLowerCase());
    return entry ? entry[1] : "none";
  }
}

export function installationCovers(inst: InstallationRec, repo: RepoRec): boolean {
  if (inst.accountLogin.toLowerCase() !== repo.ownerLogin.toLowerCase()) return false;
  return inst.repositorySelection === "all" || inst.repositoryIds.includes(repo.id);
}
