import { parseDocument, stringify } from "yaml";
import { z } from "zod";
import { fieldProblemText, labelsAndAnnotationsProblems } from "../api/object-meta.js";
import type { AnswerCache } from "../github/conditional.js";
import { connectRepo, createOwnedRepository, type RepoConnection, tokenIdentity } from "../github/connect.js";
import { GitHubError } from "../github/errors.js";
import type { CommitAuthor } from "../github/port.js";
import type { CommitFactCache } from "./commit-facts.js";
import { REGISTRY_REPO } from "./repo-address.js";

/**
 * Porch's Repository objects (`porchctl repo register`), kept in git: a Porch namespace is a GitHub
 * owner, and its registrations are files `repositories/<name>.yaml` on the default branch of that
 * owner's `.porchlight` repository (REGISTRY_REPO), each the very Repository object
 * (config.porch.kpt.dev/v1alpha1) Porch keeps in Kubernetes — `kubectl apply -f` takes it as it is. No
 * credential is ever written there: porchlight reaches the registered repository with the caller's token.
 */
const REGISTRY_DIR = "repositories";
const REPOSITORY_API_VERSION = "config.porch.kpt.dev/v1alpha1";

/**
 * A Repository object as a registration file holds it, checked where porchlight reads it back: what the
 * command line reads is required (a git repository's address, Porch's fields it prints), what Porch
 * defaults (namespace, branch, directory) may be left out, and fields of Porch's own pass as written.
 */
const repositoryObject = z.looseObject({
  apiVersion: z.literal(REPOSITORY_API_VERSION),
  kind: z.literal("Repository"),
  metadata: z.looseObject({
    name: z.string(),
    namespace: z.string().optional(),
    labels: z.record(z.string(), z.string()).optional(),
  }),
  spec: z.looseObject({
    description: z.string().optional(),
    content: z.literal("Package"),
    deployment: z.boolean().optional(),
    type: z.literal("git"),
    git: z.looseObject({
      repo: z.string(),
      branch: z.string().optional(),
      directory: z.string().optional(),
      createBranch: z.boolean().optional(),
    }),
  }),
});

export type RepositoryObject = z.infer<typeof repositoryObject> & {
  status?: { conditions: { type: string; status: string; reason: string; message: string }[] };
};

/** One of `metadata.ownerReferences`, as Kubernetes' OwnerReference. */
const ownerReference = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string(),
  uid: z.string(),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});
export type OwnerReference = z.infer<typeof ownerReference>;

/** The labels, annotations and owners of a PackageRevision object as its metadata file holds them. */
const revisionMetadataObject = z.looseObject({
  metadata: z.looseObject({
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
    ownerReferences: z.array(ownerReference).optional(),
  }),
});

export interface RegistrationInput {
  name: string;
  namespace: string;
  repo: string;
  branch?: string;
  directory?: string;
  description?: string;
  /** `metadata.labels`, which PackageVariantSet label selectors select repositories by. */
  labels?: Record<string, string>;
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
    metadata: {
      name: input.name,
      namespace: input.namespace,
      ...(input.labels && Object.keys(input.labels).length ? { labels: input.labels } : {}),
    },
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

/**
 * The first field Porch's Repository validation keeps as it was (x-kubernetes-validations of
 * config.porch.kpt.dev_repositories.yaml: a field set once is immutable), in Porch's message; undefined
 * when `next` changes none of them.
 */
function immutableChange(old: AppliedObject, next: AppliedObject): string | undefined {
  if (old.spec.type !== undefined && old.spec.type !== next.spec.type) return "spec.type is immutable";
  for (const field of ["repo", "branch", "directory"] as const) {
    const was = old.spec.git?.[field];
    if (was !== undefined && next.spec.git?.[field] !== was) return `spec.git.${field} is immutable`;
  }
  return undefined;
}

/**
 * A Repository object as `repo apply` takes it: what Porch's validation looks at before porchlight's
 * own schema (repositoryObject) reads it, so a change of `spec.type` is refused as Porch refuses it.
 */
const appliedObject = z.looseObject({
  apiVersion: z.literal(REPOSITORY_API_VERSION),
  kind: z.literal("Repository"),
  metadata: z.looseObject({ name: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/) }),
  spec: z.looseObject({
    type: z.string().optional(),
    git: z
      .looseObject({
        repo: z.string().optional(),
        branch: z.string().optional(),
        directory: z.string().optional(),
      })
      .optional(),
  }),
});
type AppliedObject = z.infer<typeof appliedObject>;

function problemOf(error: z.ZodError): string {
  const issue = error.issues[0];
  return `${issue?.path.join(".") || "the object"}: ${issue?.message ?? "invalid"}`;
}

export class RegistryError extends Error {
  override name = "RegistryError";
}

/** One namespace's registrations. */
export interface Registry {
  list(): Promise<RepositoryObject[]>;
  get(name: string): Promise<RepositoryObject | undefined>;
  /** Writes `obj` (a new registration; an existing name is refused, as Kubernetes refuses it). */
  add(obj: RepositoryObject, author: CommitAuthor): Promise<void>;
  /**
   * Writes `obj` as `kubectl apply` does: a new name is created, an existing one replaced ("configured",
   * or "unchanged" when nothing differs) unless it changes a field Porch makes immutable (refused with
   * Porch's words: `spec.type`, `spec.git.repo`, `spec.git.branch`, `spec.git.directory`).
   */
  apply(
    input: unknown,
    author: CommitAuthor,
  ): Promise<{ name: string; outcome: "created" | "configured" | "unchanged" }>;
  /** Removes `name`; false when it was not registered. */
  remove(name: string, author: CommitAuthor): Promise<boolean>;
  /**
   * When each registration was made, by name: the commit that added its file (its newest add, when it
   * was removed and registered again), from git, so the same across restarts (`creationTimestamp`).
   */
  created(): Promise<Map<string, Date>>;
}

export interface RegistryAccess {
  token: string;
  apiUrl: string | undefined;
  cacheDir: string;
  /** Where GETs keep their answers, asked again as conditional requests (the API server's, per token). */
  conditional?: AnswerCache | undefined;
  /** The command line's cache across commands (cli/disk-cache.ts): a registry's files by commit. */
  disk?: CommitFactCache | undefined;
  /** Aborts its requests to GitHub (an API request whose client went). */
  signal?: AbortSignal | undefined;
}

/**
 * One directory of `<namespace>/.porchlight`'s default branch, read and written whole: the objects a
 * Porch namespace keeps in Kubernetes, kept in git. `create`: make that repository when missing.
 */
interface NamespaceStore {
  /** The directory's files; none when the repository or its branch does not exist yet. */
  read(): Promise<Map<string, Buffer>>;
  /** When each file of the directory was added (its newest add), by path. */
  addedAt(): Promise<Map<string, Date>>;
  /** Applies `change` to the directory's files and commits them, retrying when the branch moved. */
  write(
    change: (files: Map<string, Buffer>) => void,
    message: string,
    author: CommitAuthor,
    create: boolean,
  ): Promise<void>;
}

/** Files kept in the cache on disk (path → base64), or undefined for anything else. */
function filesOf(kept: unknown): Map<string, Buffer> | undefined {
  if (typeof kept !== "object" || kept === null || Array.isArray(kept)) return undefined;
  const files = new Map<string, Buffer>();
  for (const [path, text] of Object.entries(kept)) {
    if (typeof text !== "string") return undefined;
    files.set(path, Buffer.from(text, "base64"));
  }
  return files;
}

function namespaceStore(access: RegistryAccess, namespace: string, dir: string): NamespaceStore {
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
  const headOf = async (c: RepoConnection) =>
    (await c.port.listRefs()).find((r) => r.ref === `refs/heads/${c.info.defaultBranch}`)?.sha ?? null;
  return {
    async read() {
      const c = await connect(false);
      const head = c && (await headOf(c));
      if (!c || !head) return new Map();
      // a commit's files never change: read from git once, then from the cache on disk
      // the directory hex-encoded: one name per directory (a lowercased, dashed name could be two's)
      const fact = `files.${Buffer.from(dir).toString("hex")}`;
      const kept = filesOf(access.disk?.commitFact(head, fact));
      if (kept) return kept;
      const { tree } = await c.port.readTree(head, dir);
      const encoded = Object.fromEntries([...tree].map(([path, bytes]) => [path, bytes.toString("base64")]));
      access.disk?.keepCommitFact(head, fact, encoded);
      return tree;
    },
    async addedAt() {
      const c = await connect(false);
      const head = c && (await headOf(c));
      if (!c || !head) return new Map();
      return c.port.addedAt(head, dir);
    },
    async write(change, message, author, create) {
      const c = await connect(create);
      if (!c) throw new Error(`the registry repository ${namespace} does not exist`);
      for (let attempt = 0; attempt < 5; attempt++) {
        const head = await headOf(c);
        const files = head ? (await c.port.readTree(head, dir)).tree : new Map<string, Buffer>();
        change(files);
        const result = await c.port.commitTree({
          branch: c.info.defaultBranch,
          parent: head,
          dir,
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
    },
  };
}

/** The registrations of `namespace`, in `<namespace>/.porchlight`; `create`: make that repository when missing. */
export async function openRegistry(
  access: RegistryAccess,
  namespace: string,
  opts: { create?: boolean } = {},
): Promise<Registry> {
  const store = namespaceStore(access, namespace, REGISTRY_DIR);
  const read = async (): Promise<Map<string, RepositoryObject>> => {
    const out = new Map<string, RepositoryObject>();
    for (const [path, bytes] of [...(await store.read())].sort(([a], [b]) => a.localeCompare(b))) {
      if (!path.endsWith(".yaml")) continue;
      const obj = readObject(repositoryObject, bytes);
      if (!obj.ok)
        throw new RegistryError(
          `${namespace}/${REGISTRY_REPO}: ${REGISTRY_DIR}/${path} is not a Repository object (${obj.problem}); fix or remove it`,
        );
      out.set(obj.value.metadata.name, obj.value);
    }
    return out;
  };
  return {
    async list() {
      return [...(await read()).values()];
    },
    async get(name) {
      return (await read()).get(name);
    },
    async add(obj, author) {
      if ((await read()).has(obj.metadata.name))
        throw new RegistryError(
          `repositories.config.porch.kpt.dev "${obj.metadata.name}" already exists in namespace ${namespace}; unregister it first, or choose another --name`,
        );
      await store.write(
        (files) => files.set(`${obj.metadata.name}.yaml`, Buffer.from(stringify(obj, { lineWidth: 0 }))),
        `Register repository ${obj.metadata.name} (${obj.spec.git.repo})`,
        author,
        opts.create ?? true,
      );
    },
    async apply(input, author) {
      const given = appliedObject.safeParse(input);
      if (!given.success)
        throw new RegistryError(`the Repository object is invalid: ${problemOf(given.error)}`);
      const name = given.data.metadata.name;
      // labels and annotations as the API server takes them: nothing it would refuse is committed
      const meta = labelsAndAnnotationsProblems(given.data.metadata, "metadata").map(fieldProblemText);
      if (meta.length > 0)
        throw new RegistryError(`Repository.config.porch.kpt.dev "${name}" is invalid: ${meta.join(", ")}`);
      // Porch's defaults, as its CRD sets them
      const git = given.data.spec.git;
      if (git && git.branch === undefined) git.branch = "main";
      if (given.data.spec.content === undefined) given.data.spec.content = "Package";
      let outcome: "created" | "configured" | "unchanged" = "unchanged";
      const file = `${name}.yaml`;
      await store.write(
        (files) => {
          const before = files.get(file);
          const old = before && readObject(appliedObject, before);
          const refused = old?.ok ? immutableChange(old.value, given.data) : undefined;
          if (refused)
            throw new RegistryError(
              `Repository.config.porch.kpt.dev "${name}" is invalid: <nil>: Invalid value: "object": ${refused}`,
            );
          const obj = repositoryObject.safeParse({
            ...given.data,
            metadata: { ...given.data.metadata, namespace },
          });
          if (!obj.success)
            throw new RegistryError(
              `Repository.config.porch.kpt.dev "${name}" is invalid: ${problemOf(obj.error)} (porchlight registers git repositories of packages: spec.type git, spec.git.repo, spec.content Package)`,
            );
          const text = Buffer.from(stringify(obj.data, { lineWidth: 0 }));
          outcome = !before ? "created" : before.equals(text) ? "unchanged" : "configured";
          files.set(file, text);
        },
        `Apply repository ${name} (${git?.repo ?? "no address"})`,
        author,
        opts.create ?? true,
      );
      return { name, outcome };
    },
    async remove(name, author) {
      if (!(await read()).has(name)) return false;
      await store.write(
        (files) => files.delete(`${name}.yaml`),
        `Unregister repository ${name}`,
        author,
        false,
      );
      return true;
    },
    async created() {
      const added = await store.addedAt();
      const out = new Map<string, Date>();
      for (const [name, obj] of await read()) {
        const at = added.get(`${name}.yaml`);
        if (at) out.set(obj.metadata.name, at);
      }
      return out;
    },
  };
}

const REVISION_METADATA_DIR = "packagerevisions";

/** A package revision's own metadata, as Porch keeps it on its PackageRevision object. */
export interface RevisionMetadata {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** `metadata.ownerReferences` (a PackageVariant's controller reference, by uid), in their order. */
  ownerReferences: OwnerReference[];
}

/**
 * The labels, annotations and owner references of `namespace`'s package revisions (`kubectl annotate
 * packagerevision`, `porchlight rpkg annotate`, a controller's adopt or orphan): files
 * `packagerevisions/<name>.yaml` in `<namespace>/.porchlight`, each a PackageRevision object holding only
 * its metadata. A revision without a file has none.
 */
export function openRevisionMetadata(access: RegistryAccess, namespace: string) {
  const store = namespaceStore(access, namespace, REVISION_METADATA_DIR);
  const file = (name: string) => `${name}.yaml`;
  const parse = (name: string, bytes: Buffer | undefined): RevisionMetadata => {
    if (!bytes) return { labels: {}, annotations: {}, ownerReferences: [] };
    const obj = readObject(revisionMetadataObject, bytes);
    if (!obj.ok)
      throw new RegistryError(
        `${namespace}/${REGISTRY_REPO}: ${REVISION_METADATA_DIR}/${file(name)} is not a PackageRevision object (${obj.problem}); fix or remove it`,
      );
    const meta = obj.value.metadata;
    return {
      labels: { ...meta.labels },
      annotations: { ...meta.annotations },
      ownerReferences: [...(meta.ownerReferences ?? [])],
    };
  };
  return {
    async get(name: string): Promise<RevisionMetadata> {
      return parse(name, (await store.read()).get(file(name)));
    },
    /** Every revision's metadata the namespace keeps, by revision name (one read of the directory). */
    async all(): Promise<Map<string, RevisionMetadata>> {
      const out = new Map<string, RevisionMetadata>();
      for (const [path, bytes] of await store.read()) {
        if (!path.endsWith(".yaml") || path.includes("/")) continue;
        const name = path.slice(0, -".yaml".length);
        out.set(name, parse(name, bytes));
      }
      return out;
    },
    /** Applies `change` to `name`'s metadata and writes it (the file goes when nothing is left). */
    async update(
      name: string,
      change: (m: RevisionMetadata) => void,
      author: CommitAuthor,
      message = `Annotate package revision ${name}`,
    ): Promise<void> {
      await store.write(
        (files) => {
          const meta = parse(name, files.get(file(name)));
          change(meta);
          const size = Object.keys(meta.labels).length + Object.keys(meta.annotations).length;
          if (size + meta.ownerReferences.length === 0) {
            files.delete(file(name));
            return;
          }
          const obj = {
            apiVersion: "porch.kpt.dev/v1alpha1",
            kind: "PackageRevision",
            metadata: {
              name,
              namespace,
              ...(Object.keys(meta.labels).length > 0 ? { labels: meta.labels } : {}),
              ...(Object.keys(meta.annotations).length > 0 ? { annotations: meta.annotations } : {}),
              ...(meta.ownerReferences.length > 0 ? { ownerReferences: meta.ownerReferences } : {}),
            },
          };
          files.set(file(name), Buffer.from(stringify(obj, { lineWidth: 0 })));
        },
        message,
        author,
        true,
      );
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
      `namespace ${namespace} has no ${namespace}/${REGISTRY_REPO} repository to keep its Porch objects in (repository registrations, revision annotations), and porchlight could not create it${why}: create the repository ${namespace}/${REGISTRY_REPO}, or ask an owner of ${namespace} to, then run the command again`,
    );
  }
}

/** A file of the registry read as `schema` reads it, or what is wrong with it: the YAML's error, or the first field. */
function readObject<T>(
  schema: z.ZodType<T>,
  bytes: Buffer,
): { ok: true; value: T } | { ok: false; problem: string } {
  const doc = parseDocument(bytes.toString("utf8"));
  const yamlError = doc.errors[0];
  if (yamlError) return { ok: false, problem: yamlError.message };
  const parsed = schema.safeParse(doc.toJS());
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, problem: problemOf(parsed.error) };
}
