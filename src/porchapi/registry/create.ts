import { cloneVerb } from "../../cli/rpkg/clone.js";
import { copyVerb } from "../../cli/rpkg/copy.js";
import { rpkgEgress } from "../../cli/rpkg/egress.js";
import type { RpkgEnv } from "../../cli/rpkg/env.js";
import { initVerb } from "../../cli/rpkg/init.js";
import { upgradeVerb } from "../../cli/rpkg/upgrade.js";
import { openRepository } from "../../porch/repository.js";
import { judgeLocation } from "../../sources/location.js";
import type { KubeObject } from "../resources.js";
import { ApiError } from "../status.js";
import type { Caller, WriteOptions } from "../store.js";
import { requireWrite } from "./authorize.js";
import { asApiErrors, requestEnv, type StoreSettings } from "./context.js";
import { findNamed, getRevision } from "./revisions.js";
import type { VerbCall } from "./run-verb.js";
import { runVerb } from "./run-verb.js";
import { newRevisionName, writeMetadata } from "./writes.js";

type Fields = Record<string, unknown>;
const fieldsOf = (v: unknown): Fields => (typeof v === "object" && v !== null ? (v as Fields) : {});
const text = (v: unknown) => (typeof v === "string" ? v : undefined);

function invalid(name: string, field: string, message: string): ApiError {
  return new ApiError("Invalid", `PackageRevision.porch.kpt.dev "${name}" is invalid: ${field}: ${message}`, {
    name,
    group: "porch.kpt.dev",
    kind: "PackageRevision",
    causes: [{ reason: "FieldValueInvalid", field, message }],
  });
}

/**
 * rpkg's verb for the revision's first task, as Porch's create takes it: none or `init` (a new package),
 * `clone` (of a revision of this API, or a git address), `edit` (a copy of another revision of the same
 * package), `upgrade` (a downstream revision moved to a newer upstream revision).
 */
function taskCall(name: string, spec: Fields, repository: string) {
  const tasks = Array.isArray(spec.tasks) ? spec.tasks : [];
  if (tasks.length > 1)
    throw invalid(name, "spec.tasks", "a new revision takes one task (init, clone, edit or upgrade)");
  const task = fieldsOf(tasks[0] ?? { type: "init" });
  const pkg = String(spec.packageName);
  const workspace = String(spec.workspaceName);
  const values = { repository, workspace };
  const type = task.type;
  if (type === "init") {
    const init = fieldsOf(task.init);
    const keywords = Array.isArray(init.keywords) ? init.keywords.map(String).join(",") : undefined;
    const call: VerbCall = {
      positional: [pkg],
      values: {
        ...values,
        ...(text(init.description) ? { description: String(init.description) } : {}),
        ...(keywords ? { keywords } : {}),
        ...(text(init.site) ? { site: String(init.site) } : {}),
      },
    };
    return { verb: initVerb, call };
  }
  if (type === "clone") {
    const up = fieldsOf(fieldsOf(task.clone).upstreamRef);
    const byName = text(fieldsOf(up.upstreamRef).name);
    const git = fieldsOf(up.git);
    if (byName) return { verb: cloneVerb, call: { positional: [byName, pkg], values } };
    if (text(git.repo))
      return {
        verb: cloneVerb,
        call: {
          positional: [String(git.repo), pkg],
          values: {
            ...values,
            ...(text(git.ref) ? { ref: String(git.ref) } : {}),
            ...(text(git.directory) ? { directory: String(git.directory) } : {}),
          },
        },
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
    return { verb: copyVerb, call: { positional: [source], values } };
  }
  if (type === "upgrade") return undefined;
  throw invalid(
    name,
    "spec.tasks[0].type",
    `"${String(type)}" is not a task a revision is created with: use init, clone, edit or upgrade`,
  );
}

/**
 * An edit makes a new revision of its source's own package, as Porch's edit task: a source of another
 * package or repository is refused (rpkg copy takes no package name, so only the API can ask it).
 */
async function checkEditSource(
  settings: StoreSettings,
  caller: Caller,
  ns: string,
  name: string,
  spec: Fields,
) {
  const task = fieldsOf((spec.tasks as unknown[] | undefined)?.[0]);
  if (task.type !== "edit") return;
  const source = String(fieldsOf(fieldsOf(task.edit).sourceRef).name);
  const src = fieldsOf((await getRevision(settings, caller, ns, source)).spec);
  if (src.packageName !== spec.packageName || src.repository !== spec.repository)
    throw invalid(
      name,
      "spec.tasks[0].edit.sourceRef.name",
      `source revision must be from same package ${String(spec.repository)}/${String(spec.packageName)}: ${source} is ${String(src.repository)}/${String(src.packageName)} (an edit makes a new revision of its source's package; use a clone task for another package)`,
    );
}

/**
 * A clone's git address judged by the egress policy before anything connects to it (the verb judges it
 * again, as `rpkg clone` does): a refusal is Invalid, naming the field and the policy.
 */
async function checkCloneEgress(env: RpkgEnv, name: string, spec: Fields): Promise<void> {
  const task = fieldsOf((spec.tasks as unknown[] | undefined)?.[0]);
  if (task.type !== "clone") return;
  const up = fieldsOf(fieldsOf(task.clone).upstreamRef);
  const repo = text(fieldsOf(up.git).repo);
  if (text(fieldsOf(up.upstreamRef).name) || repo === undefined) return;
  const field = "spec.tasks[0].clone.upstreamRef.git.repo";
  const verdict = await judgeLocation(rpkgEgress(env), repo);
  if (!verdict.ok) throw invalid(name, field, verdict.refusal);
}

/** Upgrade: the local revision moved to the new upstream revision's number, as `rpkg upgrade --revision`. */
async function upgradeCall(
  settings: StoreSettings,
  caller: Caller,
  ns: string,
  name: string,
  spec: Fields,
  repository: string,
) {
  const task = fieldsOf(fieldsOf((spec.tasks as unknown[])[0]).upgrade);
  const local = text(fieldsOf(task.localPackageRevisionRef).name);
  const upstream = text(fieldsOf(task.newUpstreamRef).name);
  if (!local || !upstream)
    throw invalid(name, "spec.tasks[0].upgrade", "name localPackageRevisionRef.name and newUpstreamRef.name");
  const target = await getRevision(settings, caller, ns, upstream);
  const revision = fieldsOf(target.spec).revision;
  const call: VerbCall = {
    positional: [local],
    values: {
      repository,
      workspace: String(spec.workspaceName),
      revision: String(revision ?? 0),
      ...(text(task.strategy) ? { strategy: String(task.strategy) } : {}),
    },
  };
  return { verb: upgradeVerb, call };
}

/**
 * Creates a PackageRevision as Porch does: its name REPOSITORY.PACKAGE.WORKSPACE, its first task run. A
 * dry run checks the object, the registration, the caller's permission, the task and that the name is
 * free, and answers the Draft it would make without its files (they are made by the task).
 */
export async function createRevision(
  settings: StoreSettings,
  caller: Caller,
  ns: string,
  obj: KubeObject,
  opts: WriteOptions = {},
): Promise<KubeObject> {
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
  await asApiErrors(async () => {
    const env = await requestEnv(settings, caller, ns);
    const repository = String(spec.repository);
    if (!env.registrations?.has(repository))
      throw invalid(
        name,
        "spec.repository",
        `no repository "${repository}" is registered in namespace ${ns}`,
      );
    await requireWrite(await openRepository(env, repository, "init"), "create", "packagerevisions", name);
    const { verb, call } =
      taskCall(name, spec, repository) ?? (await upgradeCall(settings, caller, ns, name, spec, repository));
    await checkEditSource(settings, caller, ns, name, spec);
    await checkCloneEgress(env, name, spec);
    if (opts.dryRun) return refuseTaken(env, ns, name);
    await runVerb(env, verb, call);
    await writeMetadata(env, ns, name, obj);
  });
  if (!opts.dryRun) {
    // what was written is read again from GitHub, not from the index as it was before the write
    settings.index.namespaceChanged(ns);
    return getRevision(settings, caller, ns, name);
  }
  return {
    ...obj,
    metadata: { ...obj.metadata, name, namespace: ns },
    spec: { ...spec, lifecycle: "Draft" },
  };
}

/** AlreadyExists when a revision is named `name` in the namespace. */
async function refuseTaken(env: Parameters<typeof findNamed>[0], ns: string, name: string): Promise<void> {
  const found = await findNamed(env, ns, name).then(
    () => true,
    (e: unknown) => {
      if (e instanceof ApiError && e.reason === "NotFound") return false;
      throw e;
    },
  );
  if (found)
    throw new ApiError("AlreadyExists", `packagerevisions.porch.kpt.dev "${name}" already exists`, {
      name,
      group: "porch.kpt.dev",
      kind: "packagerevisions",
    });
}
