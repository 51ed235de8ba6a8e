import { revisionName } from "../../lifecycle/index.js";
import { LATEST_LABEL } from "../../porch/objects.js";
import type { KubeObject } from "../resources.js";
import { ApiError } from "../status.js";

/**
 * PackageRevision's strategy, as Porch's registry has one: what a create and an update may change and
 * how the object they answer looks, with no GitHub in it (the storage, revisions.ts and writes.ts, reads
 * and writes).
 */

/** What porchlight computes on every read (where the revision lives): not the revision's own annotations. */
const COMPUTED_ANNOTATIONS = new Set([
  "porchlight.dev/ref",
  "porchlight.dev/commit",
  "porchlight.dev/pull-request",
]);

export type Fields = Record<string, unknown>;
export const fieldsOf = (v: unknown): Fields => (typeof v === "object" && v !== null ? (v as Fields) : {});
const textMap = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(fieldsOf(v)).map(([k, x]) => [k, String(x)]));

/** The labels and annotations an object sets that are the revision's own (kept in git), not computed. */
export function ownMetadata(obj: KubeObject): {
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

/** The revision's own labels and annotations `obj` sets, where they differ from `current`'s. */
export function changedMetadata(
  obj: KubeObject,
  current?: KubeObject,
): { labels: Record<string, string>; annotations: Record<string, string> } | undefined {
  const want = ownMetadata(obj);
  const was = current ? ownMetadata(current) : { labels: {}, annotations: {} };
  return same(want.labels, was.labels) && same(want.annotations, was.annotations) ? undefined : want;
}

/** The spec fields a revision keeps for life: a change to one is Invalid, as Porch's. */
const IMMUTABLE = ["packageName", "workspaceName", "repository", "revision"] as const;

export function checkImmutable(name: string, spec: Fields, was: Fields): void {
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

/**
 * What moved in git since the request read the revision (`current`, as the API answered it): its
 * lifecycle, or its commit — another request's work in between, which Porch's lock answers with a
 * conflict (`commit`: the commit read, when that alone moved, for the caller to tell the bot's render of
 * it from another writer's change). Undefined when it is as read.
 */
export function movedSince(
  current: KubeObject,
  now: { lifecycle: string; sha: string },
): { reason: string; commit?: string } | undefined {
  const was = fieldsOf(current.spec).lifecycle;
  if (was !== undefined && was !== now.lifecycle)
    return { reason: `it is ${now.lifecycle} now, and was ${String(was)} when read` };
  const commit = textMap(current.metadata?.annotations)["porchlight.dev/commit"];
  if (commit !== undefined && commit !== now.sha)
    return {
      reason: `its commit is ${now.sha.slice(0, 7)} now, and was ${commit.slice(0, 7)} when read`,
      commit,
    };
  return undefined;
}

/** The engine's operation that moves a revision from one lifecycle to another. */
export type LifecycleMove = "propose" | "reject" | "approve" | "propose-delete";

/** The move an update asks for, as Porch's update allows it (publishing: through approval only), or none. */
export function lifecycleMove(
  name: string,
  from: unknown,
  to: unknown,
  approval: boolean,
): LifecycleMove | undefined {
  if (to === undefined || to === from) return undefined;
  if (from === "Draft" && to === "Proposed" && !approval) return "propose";
  if (from === "Proposed" && to === "Draft") return "reject";
  if (from === "Proposed" && to === "Published" && approval) return "approve";
  // (through the approval too: Porch's approval strategy takes a Published revision's deletion proposal)
  if (from === "Published" && to === "DeletionProposed") return "propose-delete";
  if (from === "DeletionProposed" && to === "Published") return "reject";
  // the approval takes a proposal: a draft is proposed first, by an update of the PackageRevision itself
  if (approval && from === "Draft")
    throw invalid(
      name,
      "spec.lifecycle",
      `Invalid value: "Draft": cannot approve package with Draft lifecycle value; only Proposed packages can be approved: propose it first, with spec.lifecycle: Proposed in an update of the PackageRevision itself (kubectl patch packagerevision ${name} --type=merge -p '{"spec":{"lifecycle":"Proposed"}}', or porchlight rpkg propose ${name}), then approve it through the approval subresource`,
    );
  const how =
    to === "Published"
      ? "a proposal is published through the approval subresource (kubectl patch --subresource=approval)"
      : "Draft → Proposed, Proposed → Draft or (approval) Published, Published → DeletionProposed (either way), DeletionProposed → Published";
  throw invalid(
    name,
    "spec.lifecycle",
    `cannot change from ${String(from)} to ${String(to)}${approval ? " through approval" : ""}: ${how}`,
  );
}

/** A dry run's answer to an update: `current` as the update would leave it (its own metadata, its lifecycle). */
export function updatedObject(obj: KubeObject, current: KubeObject): KubeObject {
  const { labels, annotations } = ownMetadata(obj);
  const latest = textMap(current.metadata?.labels)[LATEST_LABEL];
  const computed = Object.fromEntries(
    Object.entries(textMap(current.metadata?.annotations)).filter(([k]) => COMPUTED_ANNOTATIONS.has(k)),
  );
  const was = fieldsOf(current.spec);
  return {
    ...current,
    metadata: {
      ...current.metadata,
      ownerReferences: obj.metadata?.ownerReferences,
      labels: { ...labels, ...(latest === undefined ? {} : { [LATEST_LABEL]: latest }) },
      annotations: { ...annotations, ...computed },
    },
    spec: { ...was, lifecycle: fieldsOf(obj.spec).lifecycle ?? was.lifecycle },
  };
}

/** The name Porch gives a new revision: REPOSITORY.PACKAGE.WORKSPACE. */
function newRevisionName(spec: Fields): string {
  return revisionName(String(spec.repository), {
    package: String(spec.packageName),
    workspace: String(spec.workspaceName),
  });
}

const text = (v: unknown) => (typeof v === "string" ? v : undefined);

export function invalid(name: string, field: string, message: string): ApiError {
  return new ApiError("Invalid", `PackageRevision.porch.kpt.dev "${name}" is invalid: ${field}: ${message}`, {
    name,
    group: "porch.kpt.dev",
    kind: "PackageRevision",
    causes: [{ reason: "FieldValueInvalid", field, message }],
  });
}

/** The engine's operation that makes a new revision: its first task, as Porch's create takes it. */
export type Task =
  | { type: "init"; description?: string; keywords?: string[]; site?: string }
  /** `git`: the source is a git address (else a package revision's name). */
  | { type: "clone"; source: string; git: boolean; directory?: string; ref?: string }
  | { type: "edit"; source: string }
  /** `name`, the local revision, moved to the revision `upstream` names. */
  | { type: "upgrade"; name: string; upstream: string; strategy?: string };

/**
 * The revision's first task, as Porch's create takes it: none or `init` (a new package), `clone` (of a
 * revision of this API, or a git address), `edit` (a copy of another revision of the same package),
 * `upgrade` (a downstream revision moved to a newer upstream revision).
 */
export function taskOf(name: string, spec: Fields): Task {
  const tasks = Array.isArray(spec.tasks) ? spec.tasks : [];
  if (tasks.length > 1)
    throw invalid(name, "spec.tasks", "a new revision takes one task (init, clone, edit or upgrade)");
  const task = fieldsOf(tasks[0] ?? { type: "init" });
  const type = task.type;
  if (type === "init") {
    const init = fieldsOf(task.init);
    const keywords = Array.isArray(init.keywords)
      ? init.keywords
          .flatMap((k) => String(k).split(","))
          .map((k) => k.trim())
          .filter(Boolean)
      : [];
    return {
      type,
      ...(text(init.description) ? { description: String(init.description) } : {}),
      ...(keywords.length > 0 ? { keywords } : {}),
      ...(text(init.site) ? { site: String(init.site) } : {}),
    };
  }
  if (type === "clone") {
    const up = fieldsOf(fieldsOf(task.clone).upstreamRef);
    const byName = text(fieldsOf(up.upstreamRef).name);
    const git = fieldsOf(up.git);
    if (byName) return { type, source: byName, git: false };
    const repo = text(git.repo);
    if (repo)
      return {
        type,
        source: repo,
        git: true,
        ...(text(git.ref) ? { ref: String(git.ref) } : {}),
        ...(text(git.directory) ? { directory: String(git.directory) } : {}),
      };
    throw invalid(
      name,
      "spec.tasks[0].clone.upstreamRef",
      "name the upstream: upstreamRef.name (a package revision) or git.repo",
    );
  }
  if (type === "edit") {
    const source = text(fieldsOf(fieldsOf(task.edit).sourceRef).name);
    if (!source) throw invalid(name, "spec.tasks[0].edit.sourceRef.name", "name the revision to copy");
    return { type, source };
  }
  if (type === "upgrade") {
    const upgrade = fieldsOf(task.upgrade);
    const local = text(fieldsOf(upgrade.localPackageRevisionRef).name);
    const upstream = text(fieldsOf(upgrade.newUpstreamRef).name);
    if (!local || !upstream)
      throw invalid(
        name,
        "spec.tasks[0].upgrade",
        "name localPackageRevisionRef.name and newUpstreamRef.name",
      );
    return {
      type,
      name: local,
      upstream,
      ...(text(upgrade.strategy) ? { strategy: String(upgrade.strategy) } : {}),
    };
  }
  throw invalid(
    name,
    "spec.tasks[0].type",
    `"${String(type)}" is not a task a revision is created with: use init, clone, edit or upgrade`,
  );
}

/**
 * What a create is given, checked before anything is read (Porch's PrepareForCreate and the fields it
 * requires): the revision's name REPOSITORY.PACKAGE.WORKSPACE (a name given must be that one), a Draft.
 */
export function prepareForCreate(obj: KubeObject): { name: string; spec: Fields } {
  const spec = fieldsOf(obj.spec);
  const given = text(obj.metadata?.name) ?? "";
  for (const f of ["repository", "packageName", "workspaceName"])
    if (!text(spec[f])) throw invalid(given, `spec.${f}`, "Required value");
  const name = newRevisionName(spec);
  if (given !== "" && given !== name)
    throw invalid(
      given,
      "metadata.name",
      `a new revision is named REPOSITORY.PACKAGE.WORKSPACE: ${name} (or leave the name out)`,
    );
  if (spec.lifecycle !== undefined && spec.lifecycle !== "Draft")
    throw invalid(name, "spec.lifecycle", "a new revision is a Draft: propose it with an update");
  return { name, spec };
}
