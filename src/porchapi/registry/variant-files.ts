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
  return readManagement(full, await connectRepo({ ...access, repo: { owner, repo } }));
}

/** The repository's variant files read again, at its default branch's head now. */
async function readManagement(full: string, conn: RepoConnection): Promise<ManagementRepo> {
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

/** What a write makes of the variant files as read at one head: an edit and its commit's message, or nothing. */
export type VariantChange =
  | { kind: "edit"; edit(files: Map<string, Buffer>): void; message: string }
  | { kind: "none" };

/** How many times a write is planned and pushed before a branch that keeps moving is given up on. */
const VARIANT_WRITE_ATTEMPTS = 5;

/**
 * Writes one object's change to the repository's variant files, as `author`: planned on the head they were
 * read at and pushed there. Another commit that landed meanwhile (another variant written, the bot's own
 * commit, anyone's push) is no conflict, as another object's write is none in Kubernetes: the files are
 * read again at the new head and `plan` asked again, which refuses (409, 404) only where *this* object
 * changed. A branch that moves under every one of VARIANT_WRITE_ATTEMPTS pushes is the API server's
 * ServerTimeout: nothing was written, and the client may try again. Answers the files as written.
 */
export async function writeVariantFiles(
  read: ManagementRepo,
  plan: (repo: ManagementRepo) => VariantChange,
  author: CommitAuthor,
  object: WrittenObject,
): Promise<ManagementRepo> {
  let repo = read;
  for (let attempt = 1; ; attempt++) {
    const change = plan(repo);
    if (change.kind === "none") return repo;
    const files = new Map(repo.files);
    change.edit(files);
    if (files.size === 0) files.set("README.md", Buffer.from(VARIANTS_README));
    const result = await repo.conn.port.commitTree({
      branch: repo.conn.info.defaultBranch,
      parent: repo.head,
      dir: VARIANTS_DIR,
      tree: files,
      message: change.message,
      author,
      kpt: null,
    });
    if (result.ok || result.reason === "unchanged") return { ...repo, files };
    if (attempt === VARIANT_WRITE_ATTEMPTS) throw overtaken(repo, object);
    repo = await readManagement(repo.full, repo.conn);
  }
}

/** The object a write is of, as its refusals name it: the request's verb, the resource, its group, the name. */
export interface WrittenObject {
  verb: "create" | "update" | "delete";
  resource: string;
  group: string;
  name: string;
}

/** The API server's ServerTimeout (500, retry after a second) of a write whose branch never held still. */
function overtaken(repo: ManagementRepo, object: WrittenObject): ApiError {
  const { verb, resource, group, name } = object;
  return new ApiError(
    "ServerTimeout",
    `The ${verb} operation against ${resource}.${group} "${name}" could not be completed at this time, please try again: ${repo.conn.info.defaultBranch} of ${repo.full} moved under each of ${VARIANT_WRITE_ATTEMPTS} pushes of its variant files (other commits kept landing there); nothing was written`,
    { name, group, kind: resource, retryAfterSeconds: 1 },
  );
}
