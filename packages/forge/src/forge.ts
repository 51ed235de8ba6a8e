import { accessLevel } from "./access.js";
import {
  addInstallationRepos,
  type CreateAppOptions,
  type CreateRepoOptions,
  type CreateUserOptions,
  createApp,
  createInstallation,
  createRepo,
  createUser,
  mintInstallationToken,
  setPermission,
} from "./admin.js";
import type { ForgeCore } from "./context.js";
import type { Faults } from "./faults.js";
import type { RateLimiter } from "./ratelimit.js";
import type { RequestLog } from "./requestlog.js";
import { ForgeServer } from "./server.js";
import type { AppRec, InstallationRec, Permission, RepoRec, UserRec } from "./types.js";
import type { Webhooks } from "./webhooks.js";

export interface ForgeOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Where repositories and metadata live; a temp dir (removed on stop) when absent. */
  dataDir?: string;
  /** Webhook URL and secret for apps created without their own. */
  webhookUrl?: string;
  webhookSecret?: string;
  /** The forge's clock (token expiry, timestamps, rate-limit windows). */
  now?: () => Date;
  /** How long a webhook receiver may take before the delivery counts as failed (default 10 s, as GitHub). */
  webhookTimeoutMs?: number;
}

export interface AppCredentials {
  appId: number;
  slug: string;
  privateKeyPem: string;
  webhookSecret: string;
}

/** A running forge: GitHub's REST API, git smart HTTP and webhooks over bare repositories. */
export class Forge {
  constructor(
    private readonly server: ForgeServer,
    readonly url: string,
    private readonly defaults: { webhookUrl?: string; webhookSecret?: string },
  ) {}

  get core(): ForgeCore {
    return this.server.core;
  }
  /** REST base for GitHub Enterprise-style clients (`${url}/api/v3`); the root serves REST too. */
  get apiUrl(): string {
    return `${this.url}/api/v3`;
  }
  get requestLog(): RequestLog {
    return this.server.requestLog;
  }
  get faults(): Faults {
    return this.server.faults;
  }
  get rateLimit(): RateLimiter {
    return this.server.core.rateLimit;
  }
  get webhooks(): Webhooks {
    return this.server.core.webhooks;
  }
  /** Internal failures seen so far (handler crashes, failed post-push steps). */
  get errors(): Error[] {
    return this.server.core.errors;
  }
  get dataDir(): string {
    return this.server.dataDir;
  }

  /**
   * Resolves once `check` returns a truthy value, re-checking after every request and every
   * webhook delivery (no polling interval); rejects after `timeoutMs` (default 30 s) naming
   * `what`. For tests waiting on an app that works in the background after acking a webhook.
   */
  waitFor<T>(check: () => T | undefined | null | false, what = "condition", timeoutMs = 30_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const first = check();
      if (first) {
        resolve(first);
        return;
      }
      const timer = setTimeout(() => {
        unsubscribe();
        reject(new Error(`forge.waitFor: timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const unsubscribe = this.server.changed.subscribe(() => {
        const v = check();
        if (!v) return;
        clearTimeout(timer);
        unsubscribe();
        resolve(v);
      });
    });
  }

  async stop(): Promise<void> {
    await this.server.close();
  }

  /** Installation tokens minted from now on live `ms` (GitHub's hour by default). */
  setTokenLifetime(ms: number): void {
    this.core.tokenTtlMs = ms;
  }

  createApp(opts: CreateAppOptions = {}): AppCredentials {
    const app = createApp(this.core, {
      webhookUrl: this.defaults.webhookUrl ?? null,
      ...(this.defaults.webhookSecret ? { webhookSecret: this.defaults.webhookSecret } : {}),
      ...opts,
    });
    return {
      appId: app.id,
      slug: app.slug,
      privateKeyPem: app.privateKeyPem,
      webhookSecret: app.webhookSecret,
    };
  }

  app(appId: number): AppRec | undefined {
    return this.core.store.app(appId);
  }

  /** Installs an app on an account, for all its repositories or the named ones. */
  createInstallation(
    appId: number,
    account: string,
    repositories: "all" | string[] = "all",
  ): InstallationRec {
    return createInstallation(this.core, appId, account, repositories);
  }

  /** Adds repositories to a `selected` installation (sends installation_repositories.added). */
  addToInstallation(installationId: number, repos: string[]): void {
    const inst = this.core.store.installation(installationId);
    if (!inst) throw new Error(`no installation ${installationId}`);
    addInstallationRepos(
      this.core,
      inst,
      repos.map((full) => this.repo(full)),
    );
  }

  /** An installation access token, as `POST /app/installations/{id}/access_tokens` would give. */
  installationToken(installationId: number): string {
    const inst = this.core.store.installation(installationId);
    if (!inst) throw new Error(`no installation ${installationId}`);
    return mintInstallationToken(this.core, inst).token;
  }

  async createRepo(fullName: string, opts: CreateRepoOptions = {}): Promise<RepoRec> {
    const [owner, name] = splitFull(fullName);
    return createRepo(this.core, owner, name, opts);
  }

  repo(fullName: string): RepoRec {
    const [owner, name] = splitFull(fullName);
    const r = this.core.store.repo(owner, name);
    if (!r) throw new Error(`no repository ${fullName}`);
    return r;
  }

  createUser(login: string, opts: CreateUserOptions = {}): { user: UserRec; pat?: string } {
    return createUser(this.core, login, opts);
  }

  setPermission(fullName: string, login: string, level: Permission): void {
    setPermission(this.core, this.repo(fullName), login, level);
  }

  /** What a user may do on a repository (for assertions). */
  permissionOf(fullName: string, login: string): Permission {
    const user = this.core.store.user(login);
    if (!user) return "none";
    return accessLevel(
      this.core,
      { kind: "user", user, token: { token: "", kind: "pat", expiresAt: null } },
      this.repo(fullName),
    );
  }

  /**
   * Points the webhooks of every app (and of apps created later), or of one app, at `url`
   * (null: record deliveries without sending).
   */
  setWebhookUrl(url: string | null, appId?: number): void {
    if (appId === undefined) {
      if (url) this.defaults.webhookUrl = url;
      else delete this.defaults.webhookUrl;
    }
    for (const a of this.core.store.data.apps) if (appId === undefined || a.id === appId) a.webhookUrl = url;
    this.core.store.save();
  }

  /** A clone URL carrying a token as GitHub's basic auth (`x-access-token:<token>`). */
  cloneUrl(fullName: string, token?: string): string {
    const u = new URL(`${this.url}/${fullName}.git`);
    if (token) {
      u.username = "x-access-token";
      u.password = token;
    }
    return u.toString();
  }
}

function splitFull(fullName: string): [string, string] {
  const [owner, name, ...rest] = fullName.split("/");
  if (!owner || !name || rest.length) throw new Error(`expected owner/name, got "${fullName}"`);
  return [owner, name];
}

/** Starts a forge and resolves once it listens. */
export async function startForge(opts: ForgeOptions = {}): Promise<Forge> {
  const server = new ForgeServer({
    port: opts.port ?? 0,
    host: opts.host ?? "127.0.0.1",
    dataDir: opts.dataDir ?? null,
    now: opts.now ?? (() => new Date()),
    webhookTimeoutMs: opts.webhookTimeoutMs ?? 10_000,
  });
  const url = await server.listen();
  return new Forge(server, url, {
    ...(opts.webhookUrl ? { webhookUrl: opts.webhookUrl } : {}),
    ...(opts.webhookSecret ? { webhookSecret: opts.webhookSecret } : {}),
  });
}
