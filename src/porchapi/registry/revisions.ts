import { labelsMatch, parseLabelSelector, SelectorError } from "../../api/label-selector.js";
import type { PackageRevision } from "../../lifecycle/index.js";
import { readCreationTimes, withCreationTime } from "../../porch/created.js";
import { checkFieldSelector, fieldsMatch, repositorySelected } from "../../porch/field-selectors.js";
import { type Listing, objectsOf, readDetails, selectable } from "../../porch/listing.js";
import { nameOf } from "../../porch/names.js";
import { withVersion } from "../../porch/objects.js";
import { openRepository, type PorchEnv, type RepoState, type Repository } from "../../porch/repository.js";
import type { IndexedRevision } from "../../porch/revision-index.js";
import { parseFieldSelector } from "../../porch/selectors.js";
import type { KubeObject } from "../resources.js";
import { ApiError, notFound } from "../status.js";
import type { Caller, ListOptions } from "../store.js";
import { asApiErrors, type StoreSettings } from "./context.js";

export { withVersion };

/** What a revision's object is made of, all read. */
const ALL = { upstreams: true, tasks: true, packageMetadata: true, metadata: true };

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

/**
 * The namespace's revisions the caller's token reads, from the index (src/porch/revision-index.ts),
 * each with its repository; `known`: as the index holds them, unrefreshed (a watch woken by a change).
 */
async function viewOf(
  settings: StoreSettings,
  caller: Caller,
  ns: string,
  known = false,
  registrations?: (name: string) => boolean,
) {
  const view = await settings.index.view(caller, ns, { known, ...(registrations ? { registrations } : {}) });
  return {
    view,
    rows: view.repositories.flatMap((repo) => repo.revisions.map((r) => ({ repo: repo.repo, r }))),
  };
}

/** An object of the index, the request's own to change (a patch, an apply). */
const copyOf = (o: IndexedRevision["object"]): KubeObject => structuredClone({ ...o });

/** PackageRevisions of a namespace: the revisions of its registered repositories, as `rpkg get` lists them. */
export async function listRevisions(settings: StoreSettings, caller: Caller, ns: string, opts: ListOptions) {
  const { fields, labels } = selectors(opts);
  return asApiErrors(async () => {
    // a list of one repository (`spec.repository=…`) reads that one alone
    const { rows } = await viewOf(settings, caller, ns, opts.known, (name) =>
      repositorySelected(fields, name),
    );
    return rows
      .filter(
        ({ repo, r }) =>
          repositorySelected(fields, repo.name) &&
          fieldsMatch(fields, selectable(repo, r.rev), r.packageLabels) &&
          labelsMatch(labels, r.object.metadata.labels ?? {}),
      )
      .map(({ r }) => copyOf(r.object));
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
  // its refs and pull requests asked for while its configuration is read (load follows at once)
  const repo = await openRepository(env, registration, "get", undefined, true);
  const state = await repo.load();
  const rev = state.revisions.find((r) => nameOf(repo, r) === name);
  if (!rev) throw missing();
  return { repo, state, rev };
}

/**
 * A revision an approval moves, as the index holds it for the caller (read again where a change was
 * heard: the get before the approval has just done so), with its repository opened as the caller for the
 * engine to act on: approving or rejecting reads the pull request it acts on itself, so the repository's
 * refs and pull requests are not read again here. One the index does not list (yet) is found as the
 * engine finds it.
 */
export async function findIndexed(
  settings: StoreSettings,
  caller: Caller,
  env: PorchEnv,
  ns: string,
  name: string,
): Promise<{ repo: Repository; rev: PackageRevision; state?: RepoState }> {
  const view = await settings.index.view(caller, ns, { registrations: (n) => name.startsWith(`${n}.`) });
  for (const indexed of view.repositories) {
    const found = indexed.revisions.find((r) => r.object.metadata.name === name);
    if (found) return { repo: await openRepository(env, indexed.name, "get"), rev: found.rev };
  }
  return findNamed(env, ns, name);
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
    // only the repositories whose registration starts the name are read (and refreshed)
    const { view, rows } = await viewOf(settings, caller, ns, false, (n) => name.startsWith(`${n}.`));
    const found = rows.find(({ r }) => r.object.metadata.name === name);
    if (found) return copyOf(found.r.object);
    const registration = [...view.registrations.keys()].some((n) => name.startsWith(`${n}.`));
    throw notFound(
      "packagerevisions",
      "porch.kpt.dev",
      name,
      registration
        ? undefined
        : `no repository registered in namespace ${ns} starts its name (names look like REPOSITORY.PACKAGE.WORKSPACE)`,
    );
  });
}
