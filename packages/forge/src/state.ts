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
 * The forge's metadata: one JSON document kept in memory and written to `<dataDir>/forge.json`
 * after each change, so a forge restarted on the same directory sees the same world. Webhook
 * deliveries stay in memory only: they are large, and a restarted forge starts a fresh log. It holds
 * every user's token, each app's private key and webhook secret: the file is its owner's alone (0600,
 * every write a new file, and one an older forge left looser tightened when it is opened), in a folder
 * made 0700.
 */
export class Store {
  data: ForgeData;

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

  save(): void {
    if (this.data.deliveries.length > MAX_DELIVERIES) {
      this.data.deliveries.splice(0, this.data.deliveries.length - MAX_DELIVERIES);
    }
    if (!this.file) return;
    writePrivateFile(this.file, JSON.stringify({ ...this.data, deliveries: [] }));
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
