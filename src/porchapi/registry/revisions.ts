import { createHash } from "node:crypto";
import { labelsMatch, parseLabelSelector, SelectorError } from "../../api/label-selector.js";
import type { PackageRevision } from "../../lifecycle/index.js";
import { readCreationTimes, withCreationTime } from "../../porch/created.js";
import {
  checkFieldSelector,
  fieldsMatch,
  readsKptfile,
  repositorySelected,
} from "../../porch/field-selectors.js";
import { type Listing, objectsOf, readDetails, revisionLabels, selectable } from "../../porch/listing.js";
import { nameOf } from "../../porch/names.js";
import { openRepository, type PorchEnv, type RepoState, type Repository } from "../../porch/repository.js";
import { parseFieldSelector } from "../../porch/selectors.js";
import type { KubeObject } from "../resources.js";
import { ApiError, notFound } from "../status.js";
import type { Caller, ListOptions } from "../store.js";
import { asApiErrors, requestEnv, type StoreSettings } from "./context.js";

/** Everything a PackageRevision object shows is read: the API answers whole objects. */
const ALL = { upstreams: true, tasks: true, packageMetadata: true, metadata: true };

/**
 * An object's resourceVersion: a digest of the object itself, which git alone makes (the revision's ref
 * and commit, its pull request, its labels and annotations in the namespace's .porchlight): any change
 * on GitHub is a new version, and the same state is the same version on every read.
 */
export function withVersion<T extends KubeObject>(obj: T): T {
  // keys sorted: the same object read in another order (a file written again) is the same version
  const sorted = (_: string, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v;
  const version = createHash("sha1").update(JSON.stringify(obj, sorted)).digest("hex").slice(0, 16);
  return { ...obj, metadata: { ...obj.metadata, resourceVersion: version } };
}

function selectors(opts: ListOptions) {
  try {
    const fields = parseFieldSelector(opts.fieldSelector ?? "");
    const refused = checkFieldSelector(fields);
    if (refused) throw new ApiError("BadRequest", refused);
    return { fields, labels: parseLabelSelector(opts.labelSelector ?? "") };
  } catch (e) {
    if (e instanceof SelectorError) throw new ApiError("BadRequest", e.message);
    throw e;
  }
}

/** The revisions of `loaded` as objects, with everything read, kept where `keep` holds. */
async function objectsOfLoaded(
  env: PorchEnv,
  loaded: readonly { repo: Repository; state: RepoState }[],
  keep: (repo: Repository, r: PackageRevision) => boolean,
): Promise<{ listing: Listing; objects: KubeObject[] }> {
  const repoOf = new Map<PackageRevision, Repository>();
  for (const { repo, state } of loaded)
    for (const r of state.revisions) if (keep(repo, r)) repoOf.set(r, repo);
  const repoFor = (r: PackageRevision) => repoOf.get(r) as Repository;
  const details = await readDetails(
    ALL,
    env,
    loaded.map((l) => l.repo),
    [...repoOf.keys()],
    repoFor,
  );
  const listing: Listing = { revisions: [...repoOf.keys()], repoFor, ...details };
  const created = await readCreationTimes(loaded, listing.revisions, repoFor);
  const objects = objectsOf(listing).map((o, i) =>
    withVersion(withCreationTime({ ...o }, created.get(listing.revisions[i] as PackageRevision))),
  );
  return { listing, objects };
}

/** The repositories of the namespace's registrations `names`, each read; one GitHub refuses is left out. */
async function loadAll(env: PorchEnv, names: readonly string[]) {
  const settled = await Promise.allSettled(
    names.map(async (n) => {
      const repo = await openRepository(env, n, "get");
      return { repo, state: await repo.load() };
    }),
  );
  return settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
}

/** PackageRevisions of a namespace: the revisions of its registered repositories, as `rpkg get` lists them. */
export async function listRevisions(settings: StoreSettings, caller: Caller, ns: string, opts: ListOptions) {
  const { fields, labels } = selectors(opts);
  return asApiErrors(async () => {
    const env = await requestEnv(settings, caller, ns);
    const names = [...(env.registrations?.keys() ?? [])].filter((n) => repositorySelected(fields, n));
    const own = fields.filter((f) => !readsKptfile([f]));
    const { listing, objects } = await objectsOfLoaded(env, await loadAll(env, names), (repo, r) =>
      fieldsMatch(own, selectable(repo, r), undefined),
    );
    const kptfileFields = fields.filter((f) => readsKptfile([f]));
    return objects.filter((_, i) => {
      const r = listing.revisions[i] as PackageRevision;
      return (
        fieldsMatch(
          kptfileFields,
          selectable(listing.repoFor(r), r),
          listing.packageMetadata.get(r)?.labels,
        ) && labelsMatch(labels, revisionLabels(r, listing.metadata.get(r)))
      );
    });
  });
}

/** The registration a revision's name starts with (`blueprints.hello.v1` is in `blueprints`), longest first. */
function registrationOf(env: PorchEnv, name: string): string | undefined {
  return [...(env.registrations?.keys() ?? [])]
    .filter((n) => name.startsWith(`${n}.`))
    .sort((a, b) => b.length - a.length)[0];
}

/** One revision, found by its name, with its repository and state. */
export async function findNamed(env: PorchEnv, ns: string, name: string) {
  const registration = registrationOf(env, name);
  const missing = () =>
    notFound(
      "packagerevisions",
      "porch.kpt.dev",
      name,
      registration === undefined
        ? `no repository registered in namespace ${ns} starts its name (names look like REPOSITORY.PACKAGE.WORKSPACE)`
        : undefined,
    );
  if (registration === undefined) throw missing();
  const repo = await openRepository(env, registration, "get");
  const state = await repo.load();
  const rev = state.revisions.find((r) => nameOf(repo, r) === name);
  if (!rev) throw missing();
  return { repo, state, rev };
}

/** The object of a revision found (findNamed), with everything read. */
export async function objectOfFound(
  env: PorchEnv,
  { repo, state, rev }: Awaited<ReturnType<typeof findNamed>>,
): Promise<KubeObject> {
  const { objects } = await objectsOfLoaded(env, [{ repo, state }], (_, r) => r === rev);
  return objects[0] as KubeObject;
}

export async function getRevision(
  settings: StoreSettings,
  caller: Caller,
  ns: string,
  name: string,
): Promise<KubeObject> {
  return asApiErrors(async () => {
    const env = await requestEnv(settings, caller, ns);
    return objectOfFound(env, await findNamed(env, ns, name));
  });
}
