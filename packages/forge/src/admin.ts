import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { newToken } from "./auth.js";
import type { ForgeCore } from "./context.js";
import { commitFiles, ZERO_SHA } from "./git.js";
import { ApiError, isoTime } from "./http.js";
import { installationShape, repoLite } from "./shapes/app.js";
import { simpleUser } from "./shapes/user.js";
import type { AppRec, InstallationRec, Permission, RepoRec, TokenRec, UserRec } from "./types.js";

/** Events an app subscribes to by default: all the forge can send. */
const APP_EVENTS = [
  "check_run",
  "check_suite",
  "create",
  "delete",
  "issue_comment",
  "pull_request",
  "pull_request_review",
  "push",
  "status",
];

const APP_PERMISSIONS: Record<string, string> = {
  checks: "write",
  contents: "write",
  issues: "write",
  metadata: "read",
  pull_requests: "write",
  statuses: "write",
};

const DEFAULT_LABEL_COLORS: Record<string, string> = { bug: "d73a4a", enhancement: "a2eeef" };

export interface CreateAppOptions {
  name?: string;
  owner?: string;
  webhookUrl?: string | null;
  webhookSecret?: string;
  /** Reuse a key (PKCS#1 or PKCS#8 PEM) instead of generating one; tests save the key generation. */
  privateKeyPem?: string;
}

export function createApp(core: ForgeCore, opts: CreateAppOptions = {}): AppRec {
  const privateKey = opts.privateKeyPem
    ? createPrivateKey(opts.privateKeyPem)
    : generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
  const publicKey = createPublicKey(privateKey);
  const id = core.store.nextId();
  const name = opts.name ?? "porchlight";
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  const owner = core.store.ensureUser(opts.owner ?? "porchlight-dev", "Organization");
  const app: AppRec = {
    id,
    slug,
    name,
    ownerLogin: owner.login,
    clientId: `Iv1.${randomBytes(8).toString("hex")}`,
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    privateKeyPem: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    webhookSecret: opts.webhookSecret ?? randomBytes(20).toString("hex"),
    webhookUrl: opts.webhookUrl ?? null,
    hookId: core.store.nextId(),
    botLogin: `${slug}[bot]`,
    events: APP_EVENTS,
    permissions: APP_PERMISSIONS,
    createdAt: core.store.timestamp(),
  };
  core.store.data.apps.push(app);
  core.store.ensureUser(app.botLogin, "Bot");
  core.store.save();
  return app;
}

export interface CreateUserOptions {
  /** A PAT to accept for this user: a string, or true to mint one. */
  pat?: string | boolean;
  email?: string;
  name?: string;
  type?: "User" | "Organization";
  /** GitHub Enterprise's site administrator: admin of every repository, may create organizations. */
  siteAdmin?: boolean;
}

export function createUser(
  core: ForgeCore,
  login: string,
  opts: CreateUserOptions = {},
): { user: UserRec; pat?: string } {
  const user = core.store.ensureUser(login, opts.type ?? "User");
  user.email = opts.email ?? user.email ?? `${login}@users.noreply.localhost`;
  user.name = opts.name ?? user.name ?? login;
  if (opts.siteAdmin) user.siteAdmin = true;
  let pat: string | undefined;
  if (opts.pat) {
    pat = typeof opts.pat === "string" ? opts.pat : newToken("ghp");
    core.store.data.tokens.push({ token: pat, kind: "pat", login: user.login, expiresAt: null });
  }
  core.store.save();
  return pat ? { user, pat } : { user };
}

export interface CreateRepoOptions {
  private?: boolean;
  description?: string | null;
  defaultBranch?: string;
  /** Create an initial commit (README.md), like GitHub's `auto_init`. */
  autoInit?: boolean;
  /** Files for the initial commit (implies autoInit). */
  files?: Record<string, string>;
  topics?: string[];
}

export async function createRepo(
  core: ForgeCore,
  owner: string,
  name: string,
  opts: CreateRepoOptions = {},
): Promise<RepoRec> {
  if (!/^[A-Za-z0-9_.-]+$/.test(name) || name.endsWith(".git")) {
    throw new ApiError(422, "Repository creation failed.", {
      errors: [{ resource: "Repository", code: "custom", field: "name", message: "name is invalid" }],
    });
  }
  if (core.store.repo(owner, name)) {
    throw new ApiError(422, "Repository creation failed.", {
      errors: [
        {
          resource: "Repository",
          code: "custom",
          field: "name",
          message: "name already exists on this account",
        },
      ],
    });
  }
  const ownerRec = core.store.user(owner) ?? core.store.ensureUser(owner, "Organization");
  const now = core.store.timestamp();
  const repo: RepoRec = {
    id: core.store.nextId(),
    ownerLogin: ownerRec.login,
    name,
    private: opts.private ?? true,
    description: opts.description ?? null,
    defaultBranch: opts.defaultBranch ?? "main",
    topics: opts.topics ?? [],
    createdAt: now,
    updatedAt: now,
    pushedAt: null,
    labels: Object.entries(DEFAULT_LABEL_COLORS).map(([n, color]) => ({
      id: core.store.nextId(),
      name: n,
      color,
      description: null,
      default: true,
    })),
    collaborators: {},
    nextNumber: 1,
  };
  const dir = core.git.dir(repo.ownerLogin, name);
  // A reader of a repository once here would still hold that repository's packs.
  core.git.forget(dir);
  rmSync(dir, { recursive: true, force: true });
  await core.git.init(repo.ownerLogin, name, repo.defaultBranch);
  core.store.data.repos.push(repo);
  if (opts.autoInit || opts.files) {
    const files = opts.files ?? { "README.md": `# ${name}\n\n${opts.description ?? ""}\n` };
    const author = core.store.ensureUser(repo.ownerLogin);
    const sha = await commitFiles(core.git, dir, {
      parent: null,
      files,
      message: "Initial commit\n",
      author: {
        name: author.name ?? author.login,
        email: author.email ?? `${author.login}@users.noreply.localhost`,
      },
      tmpIndex: join(dir, "forge-index"),
    });
    await core.git.updateRef(dir, `refs/heads/${repo.defaultBranch}`, sha, ZERO_SHA);
    repo.pushedAt = now;
  }
  core.store.save();
  return repo;
}

export function createInstallation(
  core: ForgeCore,
  appId: number,
  account: string,
  repositories: "all" | string[] = "all",
): InstallationRec {
  const app = core.store.app(appId);
  if (!app) throw new Error(`no app ${appId}`);
  const acct = core.store.user(account) ?? core.store.ensureUser(account, "Organization");
  const now = core.store.timestamp();
  const inst: InstallationRec = {
    id: core.store.nextId(),
    appId,
    accountLogin: acct.login,
    repositorySelection: repositories === "all" ? "all" : "selected",
    repositoryIds:
      repositories === "all"
        ? []
        : repositories.map((n) => {
            const r = core.store.repo(acct.login, n);
            if (!r) throw new Error(`no repository ${acct.login}/${n}`);
            return r.id;
          }),
    createdAt: now,
    updatedAt: now,
  };
  core.store.data.installations.push(inst);
  const repos = core.store.installationRepos(inst);
  core.webhooks.emit(
    app,
    "installation",
    {
      action: "created",
      installation: installationShape(core, inst, { webhook: true }),
      repositories: repos.map((r) => repoLite(r)),
      sender: simpleUser(core, acct),
    },
    { installationId: inst.id, repositoryId: null },
  );
  core.store.save();
  return inst;
}

/** Adds repositories to a `selected` installation and sends `installation_repositories.added`. */
export function addInstallationRepos(core: ForgeCore, inst: InstallationRec, repos: RepoRec[]): void {
  const app = core.store.app(inst.appId);
  const added = repos.filter((r) => !inst.repositoryIds.includes(r.id));
  if (!app || inst.repositorySelection === "all" || added.length === 0) return;
  inst.repositoryIds.push(...added.map((r) => r.id));
  const acct = core.store.ensureUser(inst.accountLogin);
  core.webhooks.emit(
    app,
    "installation_repositories",
    {
      action: "added",
      installation: installationShape(core, inst, { webhook: true }),
      repository_selection: inst.repositorySelection,
      repositories_added: added.map((r) => repoLite(r)),
      repositories_removed: [],
      requester: null,
      sender: simpleUser(core, acct),
    },
    { installationId: inst.id, repositoryId: null },
  );
  core.store.save();
}

/** Mints an installation access token (one hour), optionally narrowed to some repositories. */
export function mintInstallationToken(
  core: ForgeCore,
  inst: InstallationRec,
  repositoryIds?: number[],
): TokenRec {
  const rec: TokenRec = {
    token: newToken("ghs"),
    kind: "installation",
    installationId: inst.id,
    expiresAt: isoTime(new Date(core.store.now().getTime() + core.tokenTtlMs)),
    ...(repositoryIds ? { repositoryIds } : {}),
  };
  const now = core.store.now().getTime();
  core.store.data.tokens = core.store.data.tokens.filter(
    (t) => !t.expiresAt || Date.parse(t.expiresAt) > now,
  );
  core.store.data.tokens.push(rec);
  core.store.save();
  return rec;
}

export function setPermission(core: ForgeCore, repo: RepoRec, login: string, level: Permission): void {
  const user = core.store.ensureUser(login);
  if (level === "none") delete repo.collaborators[user.login];
  else repo.collaborators[user.login] = level;
  core.store.save();
}
