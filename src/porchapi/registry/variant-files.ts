import { type Document, parseAllDocuments, stringify } from "yaml";
import { connectRepo, type RepoConnection } from "../../github/connect.js";
import type { CommitAuthor } from "../../github/port.js";
import type { RegistryAccess } from "../../porch/registrations.js";
import { VARIANTS_DIR, VARIANTS_README } from "../../variants/index.js";
import { ApiError } from "../status.js";

/**
 * The variant files of one management repository, `.porchlight/variants/` on its default branch, read
 * and written as the caller (their token): the PackageVariant and PackageVariantSet objects Porch keeps in
 * Kubernetes, kept where porchlight's fan-out reads them (docs/variants.md).
 */
export interface ManagementRepo {
  /** `owner/name`. */
  full: string;
  conn: RepoConnection;
  /** The default branch's commit the files were read at (null: the repository has no commit yet). */
  head: string | null;
  /** The files below `.porchlight/variants/`, by their path there. */
  files: Map<string, Buffer>;
}

/** One object of a variant file: which document of which file it is. */
export interface VariantDocument {
  repo: ManagementRepo;
  /** The file's path below `.porchlight/variants/`. */
  path: string;
  /** Its position among the file's documents. */
  index: number;
  kind: string;
  name: string;
  /** The document as written (its data). */
  data: Record<string, unknown>;
}

const VARIANT_KINDS = ["PackageVariant", "PackageVariantSet"] as const;

/** The management repository `full`, its variant files read at the default branch's head. */
export async function openManagement(access: RegistryAccess, full: string): Promise<ManagementRepo> {
  const [owner = "", repo = ""] = full.split("/");
  const conn = await connectRepo({ ...access, repo: { owner, repo } });
  const head =
    (await conn.port.listRefs()).find((r) => r.ref === `refs/heads/${conn.info.defaultBranch}`)?.sha ?? null;
  const files = head ? (await conn.port.readTree(head, VARIANTS_DIR)).tree : new Map<string, Buffer>();
  return { full, conn, head, files };
}

const isYaml = (path: string) => /\.ya?ml$/.test(path);

/** The PackageVariant and PackageVariantSet documents of the repository's variant files, in file order. */
export function variantDocuments(repo: ManagementRepo): VariantDocument[] {
  const out: VariantDocument[] = [];
  for (const [path, bytes] of [...repo.files].sort(([a], [b]) => a.localeCompare(b))) {
    if (!isYaml(path)) continue;
    parseAllDocuments(bytes.toString("utf8")).forEach((doc, index) => {
      if (doc.errors.length > 0) return;
      const data: unknown = doc.toJS();
      if (typeof data !== "object" || data === null || Array.isArray(data)) return;
      const record = data as Record<string, unknown>;
      const meta = record.metadata;
      const name =
        typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>).name : undefined;
      const kind = record.kind;
      if (typeof name !== "string" || !VARIANT_KINDS.some((k) => k === kind)) return;
      out.push({ repo, path, index, kind: String(kind), name, data: record });
    });
  }
  return out;
}

/** The YAML text of one object, as a document of a variant file. */
export function documentText(obj: Record<string, unknown>): string {
  return stringify(obj, { lineWidth: 0 });
}

/**
 * The file's text with document `index` replaced by `text` (or removed, for undefined); the other
 * documents keep their bytes (comments and all). Undefined when no document is left.
 */
export function editFile(file: string, index: number, text: string | undefined): string | undefined {
  const docs: Document[] = parseAllDocuments(file) as Document[];
  const broken = docs.find((d) => d.errors.length > 0);
  // a document that does not parse cannot be written back as it was: the file is fixed in git first
  if (broken)
    throw new ApiError(
      "Conflict",
      `the variant file holding it is not valid YAML (${broken.errors[0]?.message.split("\n")[0] ?? ""}): fix the file in git, then try again`,
    );
  const parts = docs.flatMap((d, i) => {
    if (i !== index) return [String(d)];
    return text === undefined ? [] : [text];
  });
  if (parts.length === 0) return undefined;
  // each document written after its own `---`, whether or not its source had one
  return parts
    .map((p) => p.replace(/^---[ \t]*\n/, ""))
    .map((p) => (p.endsWith("\n") ? p : `${p}\n`))
    .join("---\n");
}

/**
 * Commits `change` to the repository's variant files on top of the head they were read at, as `author`.
 * A branch moved since then is a Conflict (the caller reads again), as Kubernetes' optimistic locking.
 */
export async function commitVariantFiles(
  repo: ManagementRepo,
  change: (files: Map<string, Buffer>) => void,
  message: string,
  author: CommitAuthor,
  conflict: () => ApiError,
): Promise<void> {
  const files = new Map(repo.files);
  change(files);
  if (files.size === 0) files.set("README.md", Buffer.from(VARIANTS_README));
  const result = await repo.conn.port.commitTree({
    branch: repo.conn.info.defaultBranch,
    parent: repo.head,
    dir: VARIANTS_DIR,
    tree: files,
    message,
    author,
    kpt: null,
  });
  if (!result.ok && result.reason === "non-fast-forward") throw conflict();
}

const WRITERS = new Set(["write", "maintain", "admin"]);

/** The caller may push to the management repository, or a 403 in Kubernetes' words naming their permission. */
export async function requireVariantWrite(
  repo: ManagementRepo,
  verb: string,
  resource: string,
  name: string,
  namespace: string,
): Promise<void> {
  const permission = repo.conn.info.permission;
  if (WRITERS.has(permission)) return;
  const who = (await repo.conn.whoami())?.login ?? "the token's user";
  throw new ApiError(
    "Forbidden",
    `${resource}.config.porch.kpt.dev "${name}" is forbidden: User "${who}" cannot ${verb} resource "${resource}" in API group "config.porch.kpt.dev" in the namespace "${namespace}": ${who} has ${permission} permission on ${repo.full}, which keeps the variant files, and ${verb} needs write`,
    { name, group: "config.porch.kpt.dev", kind: resource },
  );
}
