import { ANNOTATIONS_MAX_BYTES, annotationsBytes } from "../api/object-meta.js";
import type { PackageRevision } from "../lifecycle/index.js";
import { PorchError } from "./errors.js";
import { nameOf } from "./names.js";
import { revisionOf } from "./open.js";
import {
  openRevisionMetadata,
  RegistryError,
  type RevisionMetadata,
  registryAuthor,
} from "./registrations.js";
import type { PorchEnv, Repository } from "./repository.js";
import type { OpEnv } from "./steps.js";

/** The namespace's store of revisions' own labels and annotations (in `<namespace>/.porchlight`). */
function metadataStore(env: PorchEnv, namespace: string) {
  return openRevisionMetadata(access(env), namespace);
}

function access(env: PorchEnv) {
  return {
    token: env.token,
    apiUrl: env.apiUrl,
    cacheDir: env.cacheDir,
    conditional: env.conditional,
    disk: env.disk,
  };
}

/** The annotations of revision `rev` (none where nothing was annotated). */
export async function revisionAnnotations(
  env: PorchEnv,
  repo: Repository,
  rev: PackageRevision,
): Promise<Record<string, string>> {
  return (await asBadRequest(metadataStore(env, repo.namespace).get(nameOf(repo, rev)))).annotations;
}

/**
 * A namespace whose .porchlight repository cannot keep its metadata (none, and none can be made; a file
 * that is no PackageRevision) as a bad request, in the registry's words.
 */
async function asBadRequest<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (e) {
    throw e instanceof RegistryError ? new PorchError("bad-request", e.message) : e;
  }
}

/** Every revision's own labels and annotations in `namespace`, by revision name. */
export function namespaceRevisionMetadata(
  env: PorchEnv,
  namespace: string,
): Promise<Map<string, RevisionMetadata>> {
  return metadataStore(env, namespace).all();
}

/** What `kubectl label` / `kubectl annotate` arguments ask: keys to set (KEY=VALUE) and to remove (KEY-). */
export interface MetadataChanges {
  set: Map<string, string>;
  remove: string[];
}

/**
 * `changes` applied to `current` (a revision's labels or annotations) in place, as kubectl applies them:
 * a key that already has another value is refused unless `overwrite`, naming it and its value, and
 * annotations past Kubernetes' 256 KiB (keys and values) are refused, as the API server refuses them.
 */
function applyMetadataChanges(
  current: Record<string, string>,
  changes: MetadataChanges,
  overwrite: boolean,
  kind: "label" | "annotation",
): void {
  const clash = [...changes.set].filter(([k, v]) => current[k] !== undefined && current[k] !== v);
  if (clash.length > 0 && !overwrite) {
    const which = clash.map(([k]) => `'${k}' already has a value (${current[k]})`).join(", ");
    throw new PorchError(
      "bad-request",
      kind === "annotation"
        ? `--overwrite is false but found the following declared annotation(s): ${which}`
        : `${which}, and --overwrite is false`,
    );
  }
  for (const [k, v] of changes.set) current[k] = v;
  for (const k of changes.remove) delete current[k];
  const bytes = kind === "annotation" ? annotationsBytes(current) : 0;
  if (bytes > ANNOTATIONS_MAX_BYTES) {
    const message = `the revision's annotations would come to ${bytes} bytes (keys and values), over Kubernetes' limit of ${ANNOTATIONS_MAX_BYTES} (256 KiB): keep large data in the package's files, not in annotations; nothing was written`;
    throw new PorchError("invalid", message, undefined, undefined, {
      causes: [{ field: "metadata.annotations", reason: "FieldValueTooLong", message }],
    });
  }
}

/**
 * Sets and removes a revision's own labels or annotations (`kind`), as `kubectl label` / `kubectl annotate
 * packagerevision` do in Porch: kept in the namespace's .porchlight repository
 * (packagerevisions/NAME.yaml). A key that already has another value is refused unless `overwrite`.
 * `name` is the revision as the caller named it. Answers its full name.
 */
export async function changeMetadata(
  env: OpEnv,
  args: {
    repository: string | Repository;
    name: string;
    kind: "label" | "annotation";
    changes: MetadataChanges;
    overwrite?: boolean | undefined;
  },
): Promise<{ name: string }> {
  const { kind } = args;
  const { repo, rev } = await revisionOf(
    env,
    args.repository,
    kind === "label" ? "label" : "annotate",
    args.name,
  );
  const full = nameOf(repo, rev);
  const author = await registryAuthor(access(env), env.authorEnv);
  const update = metadataStore(env, repo.namespace).update(
    full,
    (meta) =>
      applyMetadataChanges(
        kind === "label" ? meta.labels : meta.annotations,
        args.changes,
        args.overwrite ?? false,
        kind,
      ),
    author,
    `${kind === "label" ? "Label" : "Annotate"} package revision ${full}`,
  );
  await asBadRequest(update);
  return { name: full };
}
