import type { PackageRevision } from "../../lifecycle/index.js";
import { approve, type CheckWait, DEFAULT_WAIT } from "../../porch/approve.js";
import { deleteRevision as deleteOperation, publishedDeletion } from "../../porch/delete.js";
import { stillAsRead } from "../../porch/drafts.js";
import { revisionConflict } from "../../porch/errors.js";
import { asProposal } from "../../porch/names.js";
import { ownerReferencesOf, sameOwners } from "../../porch/owners.js";
import { propose } from "../../porch/propose.js";
import { proposeDelete } from "../../porch/propose-delete.js";
import { kptfileChanges } from "../../porch/readiness.js";
import { openRevisionMetadata, registryAuthor } from "../../porch/registrations.js";
import { rejectProposal } from "../../porch/reject.js";
import type { RepoState, Repository } from "../../porch/repository.js";
import type { OpEnv } from "../../porch/steps.js";
import { apiErrorOfOperation } from "../porch-errors.js";
import type { KubeObject } from "../resources.js";
import { ApiError } from "../status.js";
import type { Caller, WriteOptions } from "../store.js";
import { requestEnv, type StoreSettings } from "./context.js";
import { repositoryTarget, type Write } from "./door.js";
import { writeKptfile } from "./resources.js";
import {
  changedMetadata,
  checkImmutable,
  fieldsOf,
  type LifecycleMove,
  lifecycleMove,
  movedSince,
  ownMetadata,
  updatedObject,
} from "./revision-strategy.js";
import { findIndexed, findNamed, getRevision, objectOfFound } from "./revisions.js";

/** Writes the revision's own labels and annotations where the object changes them. */
export async function writeMetadata(
  env: OpEnv,
  ns: string,
  name: string,
  obj: KubeObject,
  current?: KubeObject,
) {
  const owners = ownerReferencesOf(name, obj.metadata?.ownerReferences);
  const hadOwners = ownerReferencesOf(name, current?.metadata?.ownerReferences);
  const changed = changedMetadata(obj, current);
  if (!changed && sameOwners(owners, hadOwners)) return;
  const want = changed ?? ownMetadata(obj);
  const access = {
    token: env.token,
    apiUrl: env.apiUrl,
    cacheDir: env.cacheDir,
    conditional: env.conditional,
  };
  await openRevisionMetadata(access, ns).update(
    name,
    (m) => {
      m.labels = want.labels;
      m.annotations = want.annotations;
      m.ownerReferences = owners;
    },
    await registryAuthor(access, env.authorEnv),
    `Update package revision ${name}`,
  );
}

/** Runs a lifecycle operation of the engine, its failure as the API answers an operation's. */
async function operation<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw apiErrorOfOperation(e);
  }
}

/** Carries out a lifecycle move on the revision found, with the engine's operation for it. */
/** How an approval waits for the bot's checks: Porch's wait, told where the bot's jobs are parked. */
function checkWait(settings: StoreSettings): CheckWait {
  return settings.botParked ? { ...DEFAULT_WAIT, botParked: settings.botParked } : DEFAULT_WAIT;
}

async function move(
  settings: StoreSettings,
  env: OpEnv,
  to: LifecycleMove,
  found: { repo: Repository; rev: PackageRevision; state?: RepoState },
  name: string,
) {
  const { repo, state, rev } = found;
  const refused =
    (verb: string, why = "") =>
    () =>
      `cannot ${verb} ${name} with lifecycle '${rev.lifecycle}'${why}`;
  await operation(async () => {
    switch (to) {
      case "propose":
        return propose(env, { repo, rev, name });
      case "reject":
        return rejectProposal(env, { repo, rev: asProposal(rev, refused("reject")) });
      case "approve": {
        const proposal = asProposal(rev, refused("approve", ": only a proposal is approved"));
        return approve(env, { repo, rev: proposal, wait: checkWait(settings) });
      }
      case "propose-delete":
        return proposeDelete(env, { repo, rev, state: state ?? (await repo.load()), name });
    }
  });
}

/**
 * An update of a PackageRevision (or of its approval): its own labels and annotations written to git,
 * and a lifecycle change carried out by the engine's operation for it (propose, reject, propose-delete,
 * approve). A dry run checks the caller's permission, the immutable fields and the lifecycle move, and
 * answers the object as the update would leave it, writing nothing.
 */
export async function updateRevision(
  settings: StoreSettings,
  caller: Caller,
  ns: string,
  obj: KubeObject,
  current: KubeObject,
  subresource: string | undefined,
  opts: WriteOptions = {},
): Promise<Write> {
  const name = String(current.metadata?.name);
  const approval = subresource === "approval";
  const env = await requestEnv(settings, caller, ns);
  // an approval acts on the revision as the index holds it (its pull request is read by the engine)
  const found = approval
    ? await findIndexed(settings, caller, env, ns, name)
    : await findNamed(env, ns, name);
  // Porch's lock: another request moved the revision between this request's read and now — not the
  // bot's render of the commit read (the render of the caller's own write, which Porch makes inside it)
  const moved = movedSince(current, found.rev);
  if (moved && !(moved.commit && (await stillAsRead(found.repo, found.rev, moved.commit))))
    throw revisionConflict(ns, name, `${moved.reason}: read it again`);
  return {
    name,
    target: repositoryTarget(found.repo),
    ...(approval ? { verb: "approve" } : {}),
    async run() {
      const was = fieldsOf(current.spec);
      const spec = fieldsOf(obj.spec);
      checkImmutable(name, spec, was);
      const to = lifecycleMove(name, was.lifecycle, spec.lifecycle, approval);
      ownerReferencesOf(name, obj.metadata?.ownerReferences);
      if (opts.dryRun) return updatedObject(obj, current);
      // a draft's gates, conditions and package metadata go into its Kptfile, as Porch writes them
      const changes = approval || was.lifecycle !== "Draft" ? undefined : kptfileChanges(obj);
      if (changes) await writeKptfile(env, ns, name, changes);
      // the move before the labels: a watch between the two sees the moved revision (a controller acting
      // on Drafts does not act twice), and a refused move writes no labels
      if (to) await move(settings, env, to, found, name);
      if (!approval) await writeMetadata(env, ns, name, obj, current);
      // what was written, read again from GitHub once the door told the index
      return () => getRevision(settings, caller, ns, name);
    },
  };
}

/**
 * Deletes a revision with the engine's delete (a published one needs a deletion proposal first, as
 * Porch's). A dry run checks the caller's permission and that refusal, and deletes nothing.
 */
export async function deleteRevision(
  settings: StoreSettings,
  caller: Caller,
  ns: string,
  name: string,
  opts: WriteOptions = {},
): Promise<Write> {
  const env = await requestEnv(settings, caller, ns);
  const found = await findNamed(env, ns, name);
  const current = await objectOfFound(env, found);
  const { repo, state, rev } = found;
  return {
    name,
    target: repositoryTarget(repo),
    async run() {
      if (!opts.dryRun)
        await operation(() =>
          deleteOperation(env, { repo, rev, state, name, wait: () => checkWait(settings) }),
        );
      else if (rev.lifecycle === "Published")
        throw new ApiError("Forbidden", publishedDeletion(name), {
          name,
          group: "porch.kpt.dev",
          kind: "packagerevisions",
        });
      return current;
    },
  };
}
