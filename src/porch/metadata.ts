import type { PackageRevision } from "../lifecycle/index.js";
import { nameOf } from "./names.js";
import { openRevisionMetadata, type RevisionMetadata } from "./registrations.js";
import type { PorchEnv, Repository } from "./repository.js";

/** The namespace's store of revisions' own labels and annotations (in `<namespace>/.porchlight`). */
export function metadataStore(env: PorchEnv, namespace: string) {
  return openRevisionMetadata(
    {
      token: env.token,
      apiUrl: env.apiUrl,
      cacheDir: env.cacheDir,
      conditional: env.conditional,
      disk: env.disk,
    },
    namespace,
  );
}

/** The annotations of revision `rev` (none where nothing was annotated). */
export async function revisionAnnotations(
  env: PorchEnv,
  repo: Repository,
  rev: PackageRevision,
): Promise<Record<string, string>> {
  return (await metadataStore(env, repo.namespace).get(nameOf(repo, rev))).annotations;
}

/** Every revision's own labels and annotations in `namespace`, by revision name. */
export function namespaceRevisionMetadata(
  env: PorchEnv,
  namespace: string,
): Promise<Map<string, RevisionMetadata>> {
  return metadataStore(env, namespace).all();
}
