import { approveVerb } from "../../cli/rpkg/approve.js";
import { delVerb } from "../../cli/rpkg/del.js";
import type { RpkgEnv } from "../../cli/rpkg/env.js";
import { proposeVerb } from "../../cli/rpkg/propose.js";
import { proposeDeleteVerb } from "../../cli/rpkg/propose-delete.js";
import { rejectVerb } from "../../cli/rpkg/reject.js";
import type { Verb } from "../../cli/rpkg/verb.js";
import { revisionName } from "../../lifecycle/index.js";
import { publishedDeletion } from "../../porch/delete.js";
import { LATEST_LABEL } from "../../porch/objects.js";
import { openRevisionMetadata, registryAuthor } from "../../porch/registrations.js";
import type { KubeObject } from "../resources.js";
import { ApiError } from "../status.js";
import type { Caller, WriteOptions } from "../store.js";
import { requireWrite } from "./authorize.js";
import { asApiErrors, requestEnv, type StoreSettings } from "./context.js";
import { findNamed, getRevision } from "./revisions.js";
import { runVerb } from "./run-verb.js";

/** What porchlight computes on every read (where the revision lives): not the revision's own annotations. */
const COMPUTED_ANNOTATIONS = new Set([
  "porchlight.dev/ref",
  "porchlight.dev/commit",
  "porchlight.dev/pull-request",
]);

type Fields = Record<string, unknown>;
const fieldsOf = (v: unknown): Fields => (typeof v === "object" && v !== null ? (v as Fields) : {});
const textMap = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(fieldsOf(v)).map(([k, x]) => [k, String(x)]));

/** The labels and annotations an object sets that are the revision's own (kept in git), not computed. */
function ownMetadata(obj: KubeObject): {
  labels: Record<string, string>;
  annotations: Record<string, string>;
} {
  const { [LATEST_LABEL]: _, ...labels } = textMap(obj.metadata?.labels);
  const annotations = Object.fromEntries(
    Object.entries(textMap(obj.metadata?.annotations)).filter(([k]) => !COMPUTED_ANNOTATIONS.has(k)),
  );
  return { labels, annotations };
}

const same = (a: Record<string, string>, b: Record<string, string>) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** Writes the revision's own labels and annotations where the object changes them. */
export async function writeMetadata(
  env: RpkgEnv,
  ns: string,
  name: string,
  obj: KubeObject,
  current?: KubeObject,
) {
  const want = ownMetadata(obj);
  const was = current ? ownMetadata(current) : { labels: {}, annotations: {} };
  if (same(want.labels, was.labels) && same(want.annotations, was.annotations)) return;
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
    },
    await registryAuthor(access, env.io.env),
    `Update package revision ${name}`,
  );
}

/** The spec fields a revision keeps for life: a change to one is Invalid, as Porch's. */
const IMMUTABLE = ["packageName", "workspaceName", "repository", "revision"] as const;

function checkImmutable(name: string, spec: Fields, was: Fields): void {
  const causes = IMMUTABLE.filter((f) => spec[f] !== undefined && spec[f] !== was[f]).map((f) => ({
    reason: "FieldValueInvalid",
    field: `spec.${f}`,
    message: `field is immutable (it was ${JSON.stringify(was[f])})`,
  }));
  if (causes.length > 0)
    throw new ApiError(
      "Invalid",
      `PackageRevision.porch.kpt.dev "${name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(", ")}`,
      { name, group: "porch.kpt.dev", kind: "PackageRevision", causes },
    );
}

/** The verb that moves a revision from one lifecycle to another by an update, as Porch's update allows. */
function lifecycleVerb(name: string, from: unknown, to: unknown, approval: boolean): Verb | undefined {
  if (to === undefined || to === from) return undefined;
  if (from === "Draft" && to === "Proposed" && !approval) return proposeVerb;
  if (from === "Proposed" && to === "Draft") return rejectVerb;
  if (from === "Proposed" && to === "Published" && approval) return approveVerb;
  if (from === "Published" && to === "DeletionProposed" && !approval) return proposeDeleteVerb;
  if (from === "DeletionProposed" && to === "Published") return rejectVerb;
  const how =
    to === "Published"
      ? "a proposal is published through the approval subresource (kubectl patch --subresource=approval)"
      : "Draft → Proposed, Proposed → Draft or (approval) Published, Published → DeletionProposed, DeletionProposed → Published";
  throw new ApiError(
    "Invalid",
    `PackageRevision.porch.kpt.dev "${name}" is invalid: spec.lifecycle: cannot change from ${String(from)} to ${String(to)}${approval ? " through approval" : ""}: ${how}`,
    {
      name,
      group: "porch.kpt.dev",
      kind: "PackageRevision",
      causes: [
        {
          reason: "FieldValueInvalid",
          field: "spec.lifecycle",
          message: `cannot change from ${String(from)} to ${String(to)}${approval ? " through approval" : ""}: ${how}`,
        },
      ],
    },
  );
}

/**
 * An update of a PackageRevision (or of its approval): its own labels and annotations written to git,
 * and a lifecycle change carried out by rpkg's verb for it (propose, reject, propose-delete, approve).
 * A dry run checks the caller's permission, the immutable fields and the lifecycle move, and answers the
 * object as the update would leave it, writing nothing.
 */
export async function updateRevision(
  settings: StoreSettings,
  caller: Caller,
  ns: string,
  obj: KubeObject,
  current: KubeObject,
  subresource: string | undefined,
  opts: WriteOptions = {},
): Promise<KubeObject> {
  const name = String(current.metadata?.name);
  const spec = fieldsOf(obj.spec);
  const was = fieldsOf(current.spec);
  await asApiErrors(async () => {
    const env = await requestEnv(settings, caller, ns);
    const { repo } = await findNamed(env, ns, name);
    const approval = subresource === "approval";
    await requireWrite(repo, approval ? "approve" : "update", "packagerevisions", name);
    checkImmutable(name, spec, was);
    const verb = lifecycleVerb(name, was.lifecycle, spec.lifecycle, approval);
    if (opts.dryRun) return;
    if (!approval) await writeMetadata(env, ns, name, obj, current);
    if (verb) await runVerb(env, verb, { positional: [name], values: { repository: repo.name } });
  });
  if (!opts.dryRun) {
    // what was written is read again from GitHub, not from the index as it was before the write
    settings.index.namespaceChanged(ns);
    return getRevision(settings, caller, ns, name);
  }
  const { labels, annotations } = ownMetadata(obj);
  const latest = textMap(current.metadata?.labels)[LATEST_LABEL];
  return {
    ...current,
    metadata: {
      ...current.metadata,
      labels: { ...labels, ...(latest === undefined ? {} : { [LATEST_LABEL]: latest }) },
      annotations: { ...annotations, ...computedAnnotations(current) },
    },
    spec: { ...was, lifecycle: spec.lifecycle ?? was.lifecycle },
  };
}

const computedAnnotations = (obj: KubeObject) =>
  Object.fromEntries(
    Object.entries(textMap(obj.metadata?.annotations)).filter(([k]) => COMPUTED_ANNOTATIONS.has(k)),
  );

/**
 * Deletes a revision as `rpkg del` does (a published one needs a deletion proposal first, as Porch's). A
 * dry run checks the caller's permission and that refusal, and deletes nothing.
 */
export async function deleteRevision(
  settings: StoreSettings,
  caller: Caller,
  ns: string,
  name: string,
  opts: WriteOptions = {},
) {
  const current = await getRevision(settings, caller, ns, name);
  await asApiErrors(async () => {
    const env = await requestEnv(settings, caller, ns);
    const { repo, rev } = await findNamed(env, ns, name);
    await requireWrite(repo, "delete", "packagerevisions", name);
    if (!opts.dryRun) await runVerb(env, delVerb, { positional: [name], values: { repository: repo.name } });
    else if (rev.lifecycle === "Published")
      throw new ApiError("Forbidden", publishedDeletion(name), {
        name,
        group: "porch.kpt.dev",
        kind: "packagerevisions",
      });
  });
  return current;
}

/** The name Porch gives a new revision: REPOSITORY.PACKAGE.WORKSPACE. */
export function newRevisionName(spec: Fields): string {
  return revisionName(String(spec.repository), {
    package: String(spec.packageName),
    workspace: String(spec.workspaceName),
  });
}
