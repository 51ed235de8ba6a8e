import { parseDocument, stringify } from "yaml";
import { connectRepo, createOwnedRepository, type RepoConnection, tokenIdentity } from "../github/connect.js";
import { GitHubError } from "../github/errors.js";
import type { CommitAuthor } from "../github/port.js";

/**
 * Porch's Repository objects (`porchctl repo register`), kept in git: a Porch namespace is a GitHub
 * owner, and its registrations are files `repositories/<name>.yaml` on the default branch of that
 * owner's `.porchlight` repository, each the very Repository object (config.porch.kpt.dev/v1alpha1)
 * Porch keeps in Kubernetes — `kubectl apply -f` takes it as it is. No credential is ever written
 * there: porchlight reaches the registered repository with the caller's token.
 */
export const REGISTRY_REPO = ".porchlight";
export const REGISTRY_DIR = "repositories";
export const REPOSITORY_API_VERSION = "config.porch.kpt.dev/v1alpha1";

export interface RepositoryObject {
  apiVersion: typeof REPOSITORY_API_VERSION;
  kind: "Repository";
  metadata: { name: string; namespace: string };
  spec: {
    description?: string;
    content: "Package";
    deployment?: boolean;
    type: "git";
    git: { repo: string; branch: string; directory: string; createBranch?: boolean };
  };
  status?: { conditions: { type: string; status: string; reason: string; message: string }[] };
}

export interface RegistrationInput {
  name: string;
  namespace: string;
  repo: string;
  branch?: string;
  directory?: string;
  description?: string;
  deployment?: boolean;
  createBranch?: boolean;
}

/** A Repository name is a Kubernetes object name: lower case letters, digits, `-` and `.`. */
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

export function registrationObject(input: RegistrationInput): RepositoryObject {
  if (!NAME.test(input.name) || input.name.length > 253)
    throw new RegistryError(
      `"${input.name}" is not a valid repository name: use lower case letters, digits, "-" and "." (for example blueprints)`,
    );
  const directory = input.directory ? `/${input.directory.replace(/^\/+|\/+$/g, "")}` : "/";
  return {
    apiVersion: REPOSITORY_API_VERSION,
    kind: "Repository",
    metadata: { name: input.name, namespace: input.namespace },
    spec: {
      ...(input.description ? { description: input.description } : {}),
      content: "Package",
      ...(input.deployment ? { deployment: true } : {}),
      type: "git",
      git: {
        repo: input.repo,
        branch: input.branch ?? "main",
        directory: directory === "/" ? "/" : directory.slice(1),
        ...(input.createBranch ? { createBranch: true } : {}),
      },
    },
  };
}

export class RegistryError extends Error {
  override name = "RegistryError";
}

/**
 * The GitHub repository `OWNER/REPO` a registered git address names: `https://HOST/OWNER/REPO(.git)`,
 * `git@HOST:OWNER/REPO.git` or `OWNER/REPO`. The host is not checked against the API's: the forge
 * and GitHub Enterprise serve git and the API on hosts of their own.
 */
export function repoIdOfAddress(address: string): { owner: string; repo: string } | undefined {
  const trimmed = address.trim().replace(/\/+$/, "");
  let path: string;
  const scp = /^[^@/\s]+@[^:/\s]+:(.+)$/.exec(trimmed);
  if (scp) path = scp[1]!;
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    try {
      path = new URL(trimmed).pathname;
    } catch {
      return undefined;
    }
  } else path = trimmed;
  const parts = path.split("/").filter(Boolean);
  if (parts.length < 2) return undefined;
  const owner = parts[parts.length - 2]!;
  const repo = parts[parts.length - 1]!.replace(/\.git$/, "");
  if (!/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(owner) || !/^[A-Za-z0-9._-]+$/.test(repo)) return undefined;
  return { owner, repo };
}

/** One namespace's registrations. */
export interface Registry {
  list(): Promise<RepositoryObject[]>;
  get(name: string): Promise<RepositoryObject | undefined>;
  /** Writes `obj` (a new registration; an existing name is refused, as Kubernetes refuses it). */
  add(obj: RepositoryObject, author: CommitAuthor): Promise<void>;
  /** Removes `name`; false when it was not registered. */
  remove(name: string, author: CommitAuthor): Promise<boolean>;
}

export interface RegistryAccess {
  token: string;
  apiUrl: string | undefined;
  cacheDir: string;
}

/** The registrations of `namespace`, in `<namespace>/.porchlight`; `create`: make that repository when missing. */
export async function openRegistry(
  access: RegistryAccess,
  namespace: string,
  opts: { create?: boolean } = {},
): Promise<Registry> {
  const id = { owner: namespace, repo: REGISTRY_REPO };
  let conn: RepoConnection | undefined;
  const connect = async (create: boolean): Promise<RepoConnection | undefined> => {
    if (conn) return conn;
    try {
      conn = await connectRepo({ ...access, repo: id });
      return conn;
    } catch (e) {
      if (!(e instanceof GitHubError && e.kind === "not-found")) throw e;
      if (!create) return undefined;
    }
    await createRegistryRepo(access, namespace);
    conn = await connectRepo({ ...access, repo: id });
    return conn;
  };
  const read = async (c: RepoConnection): Promise<Map<string, RepositoryObject>> => {
    const out = new Map<string, RepositoryObject>();
    const refs = await c.port.listRefs();
    if (!refs.some((r) => r.ref === `refs/heads/${c.info.defaultBranch}`)) return out;
    const { tree } = await c.port.readTree(c.info.defaultBranch, REGISTRY_DIR);
    for (const [path, bytes] of [...tree].sort(([a], [b]) => a.localeCompare(b))) {
      if (!path.endsWith(".yaml")) continue;
      const doc = parseDocument(bytes.toString("utf8"));
      const obj = doc.toJS() as RepositoryObject | null;
      if (doc.errors.length > 0 || obj?.kind !== "Repository" || typeof obj.metadata?.name !== "string")
        throw new RegistryError(
          `${namespace}/${REGISTRY_REPO}: ${REGISTRY_DIR}/${path} is not a Repository object (${doc.errors[0]?.message ?? "kind or metadata.name missing"}); fix or remove it`,
        );
      out.set(obj.metadata.name, obj);
    }
    return out;
  };
  const write = async (
    c: RepoConnection,
    change: (files: Map<string, Buffer>) => void,
    message: string,
    author: CommitAuthor,
  ) => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const refs = await c.port.listRefs();
      const head = refs.find((r) => r.ref === `refs/heads/${c.info.defaultBranch}`)?.sha ?? null;
      const files = head ? (await c.port.readTree(head, REGISTRY_DIR)).tree : new Map<string, Buffer>();
      change(files);
      const result = await c.port.commitTree({
        branch: c.info.defaultBranch,
        parent: head,
        dir: REGISTRY_DIR,
        tree: files,
        message,
        author,
        kpt: null,
      });
      if (result.ok || result.reason === "unchanged") return;
    }
    throw new RegistryError(
      `${namespace}/${REGISTRY_REPO} kept changing while porchlight wrote to it; run the command again`,
    );
  };
  return {
    async list() {
      const c = await connect(false);
      return c ? [...(await read(c)).values()] : [];
    },
    async get(name) {
      const c = await connect(false);
      return c ? (await read(c)).get(name) : undefined;
    },
    async add(obj, author) {
      const c = (await connect(opts.create ?? true))!;
      const existing = await read(c);
      if (existing.has(obj.metadata.name))
        throw new RegistryError(
          `repositories.config.porch.kpt.dev "${obj.metadata.name}" already exists in namespace ${namespace}; unregister it first, or choose another --name`,
        );
      await write(
        c,
        (files) => files.set(`${obj.metadata.name}.yaml`, Buffer.from(stringify(obj, { lineWidth: 0 }))),
        `Register repository ${obj.metadata.name} (${obj.spec.git.repo})`,
        author,
      );
    },
    async remove(name, author) {
      const c = await connect(false);
      if (!c || !(await read(c)).has(name)) return false;
      await write(c, (files) => files.delete(`${name}.yaml`), `Unregister repository ${name}`, author);
      return true;
    },
  };
}

/** Who commits a registration: the token's user, or GIT_AUTHOR_NAME / GIT_AUTHOR_EMAIL when set. */
export async function registryAuthor(
  access: RegistryAccess,
  env: Record<string, string | undefined>,
): Promise<CommitAuthor> {
  const me = await tokenIdentity(access);
  return {
    name: env.GIT_AUTHOR_NAME ?? me?.name ?? "porchlight repo",
    email: env.GIT_AUTHOR_EMAIL ?? me?.email ?? "porchlight-repo@users.noreply.github.com",
  };
}

async function createRegistryRepo(access: RegistryAccess, namespace: string): Promise<void> {
  try {
    await createOwnedRepository(
      access,
      namespace,
      REGISTRY_REPO,
      "Porch Repository registrations (porchlight repo register)",
    );
  } catch (e) {
    const why = e instanceof GitHubError ? ` (${e.message})` : "";
    throw new RegistryError(
      `namespace ${namespace} has no ${namespace}/${REGISTRY_REPO} repository to keep its registrations in, and porchlight could not create it${why}: create the repository ${namespace}/${REGISTRY_REPO}, or ask an owner of ${namespace} to, then run the command again`,
    );
  }
}
