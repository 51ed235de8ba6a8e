import { parse } from "yaml";
import { z } from "zod";
import type { VariantProblem } from "./problem.js";
import type { RepositoryInfo } from "./repositories.js";

/**
 * Porch's Repository objects as `porchlight repo register` keeps them: `repositories/<name>.yaml` on the
 * default branch of the namespace's (the owner's) `.porchlight` repository. Their `metadata.labels` are
 * what a PackageVariantSet's label selectors select repositories by, and their labels and annotations
 * are `repository.labels` and `repository.annotations` in its expressions, as Porch's.
 */
export const REGISTRATIONS_REPO = ".porchlight";
const stringMap = z.record(z.string(), z.string());
export const REGISTRATIONS_DIR = "repositories";
/** Where `porchlight rpkg annotate` keeps a revision's labels and annotations: `packagerevisions/<name>.yaml`. */
const REVISION_METADATA_DIR = "packagerevisions";

export interface ObjectMetadata {
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
}

const metadataSchema = z.looseObject({
  metadata: z.looseObject({ labels: stringMap.optional(), annotations: stringMap.optional() }),
});

/**
 * The labels and annotations of package revisions, by revision name, from the registry's
 * `packagerevisions/<name>.yaml` files (what Porch keeps on the PackageRevision object, and a set's
 * expressions read as `upstream.labels` and `upstream.annotations`). A file that does not parse is none.
 */
export function revisionMetadata(files: Iterable<readonly [string, string]>): Map<string, ObjectMetadata> {
  const out = new Map<string, ObjectMetadata>();
  for (const [path, text] of files) {
    const m = new RegExp(`^${REVISION_METADATA_DIR}/([^/]+)\\.ya?ml$`).exec(path);
    if (!m?.[1]) continue;
    let raw: unknown;
    try {
      raw = parse(text);
    } catch {
      continue;
    }
    const parsed = metadataSchema.safeParse(raw);
    if (parsed.success)
      out.set(m[1], {
        labels: parsed.data.metadata.labels ?? {},
        annotations: parsed.data.metadata.annotations ?? {},
      });
  }
  return out;
}

const registrationSchema = z.looseObject({
  apiVersion: z.literal("config.porch.kpt.dev/v1alpha1"),
  kind: z.literal("Repository"),
  metadata: z.looseObject({
    name: z.string().min(1),
    labels: stringMap.optional(),
    annotations: stringMap.optional(),
  }),
  spec: z.looseObject({ git: z.looseObject({ repo: z.string().min(1) }) }),
});

export interface RegistrationFile {
  /** The file's path in the `.porchlight` repository, `repositories/<name>.yaml`. */
  path: string;
  text: string;
}

/** True for a registration file of the `.porchlight` repository. */
export function isRegistrationFile(path: string): boolean {
  return path.startsWith(`${REGISTRATIONS_DIR}/`) && /\.ya?ml$/.test(path);
}

/**
 * The repositories with the labels and annotations of the registrations that name them (by git address:
 * `https://HOST/OWNER/REPO(.git)`, `git@HOST:OWNER/REPO.git` or `OWNER/REPO`). A repository registered
 * more than once (one registration per directory) has the labels of all, the first file by name winning
 * a key both set. A registration that is not a Repository object is reported, as a warning, and left out.
 */
export function withRegistrations(
  repositories: readonly RepositoryInfo[],
  files: readonly RegistrationFile[],
  /** Where the files are, for problems: `acme/.porchlight`. */
  registry: string,
): { repositories: RepositoryInfo[]; problems: VariantProblem[] } {
  const problems: VariantProblem[] = [];
  const meta = new Map<
    RepositoryInfo,
    { labels: Record<string, string>; annotations: Record<string, string> }
  >();
  for (const file of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
    let raw: unknown;
    try {
      raw = parse(file.text);
    } catch (err) {
      problems.push(problemOf(registry, file, "", `not valid YAML: ${firstLine(err)}`));
      continue;
    }
    const parsed = registrationSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = (issue?.path ?? []).map(String).join(".");
      problems.push(
        problemOf(registry, file, field, `not a Repository registration: ${issue?.message ?? ""}`),
      );
      continue;
    }
    const { metadata, spec } = parsed.data;
    const repo = repositories.find((r) => namesRepository(spec.git.repo, r));
    if (!repo) continue;
    const m = meta.get(repo) ?? { labels: {}, annotations: {} };
    m.labels = { ...metadata.labels, ...m.labels };
    m.annotations = { ...metadata.annotations, ...m.annotations };
    meta.set(repo, m);
  }
  return {
    repositories: repositories.map((r) => {
      const m = meta.get(r);
      return m
        ? { ...r, labels: { ...m.labels, ...r.labels }, annotations: { ...m.annotations, ...r.annotations } }
        : r;
    }),
    problems,
  };
}

/** Whether a registered git address names the repository (`owner/name`, in any case, as GitHub's). */
function namesRepository(address: string, r: RepositoryInfo): boolean {
  const full = (r.fullName ?? r.name).toLowerCase();
  const a = address
    .trim()
    .replace(/\/+$/, "")
    .replace(/\.git$/, "")
    .toLowerCase();
  return a === full || a.endsWith(`/${full}`) || a.endsWith(`:${full}`);
}

function problemOf(registry: string, file: RegistrationFile, field: string, message: string): VariantProblem {
  return {
    file: `${registry}:${file.path}`,
    line: 1,
    column: 1,
    field,
    severity: "warning",
    message: `${message}; its labels are not seen by repository selectors`,
    hint: "fix the file, or register the repository again with porchlight repo register",
  };
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0] ?? "";
}
