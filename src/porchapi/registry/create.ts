import { clone } from "../../porch/clone.js";
import { copy } from "../../porch/copy.js";
import { porchEgress, upstreamAccess } from "../../porch/egress.js";
import { init } from "../../porch/init.js";
import { openRepository, type Repository } from "../../porch/repository.js";
import type { OpEnv } from "../../porch/steps.js";
import { upgrade } from "../../porch/upgrade.js";
import { judgeLocation } from "../../sources/location.js";
import type { KubeObject } from "../resources.js";
import { ApiError } from "../status.js";
import type { Caller, WriteOptions } from "../store.js";
import { requestEnv, type StoreSettings } from "./context.js";
import { repositoryTarget, type Write } from "./door.js";
import { type Fields, fieldsOf, newRevisionName } from "./revision-strategy.js";
import { findNamed, getRevision } from "./revisions.js";
import { writeMetadata } from "./writes.js";

const text = (v: unknown) => (typeof v === "string" ? v : undefined);

function invalid(name: string, field: string, message: string): ApiError {
  return new ApiError("Invalid", `PackageRevision.porch.kpt.dev "${name}" is invalid: ${field}: ${message}`, {
    name,
    group: "porch.kpt.dev",
    kind: "PackageRevision",
    causes: [{ reason: "FieldValueInvalid", field, message }],
  });
}

/** The engine's operation that makes a new revision: its first task, as Porch's create takes it. */
type Task =
  | { type: "init"; description?: string; keywords?: string[]; site?: string }
  /** `git`: the source is a git address (else a package revision's name). */
  | { type: "clone"; source: string; git: boolean; directory?: string; ref?: string }
  | { type: "edit"; source: string }
  | { type: "upgrade" };

/**
 * The revision's first task, as Porch's create takes it: none or `init` (a new package), `clone` (of a
 * revision of this API, or a git address), `edit` (a copy of another revision of the same package),
 * `upgrade` (a downstream revision moved to a newer upstream revision).
 */
function taskOf(name: string, spec: Fields): Task {
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
  if (type === "upgrade") return { type };
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
async function checkCloneEgress(settings: StoreSettings, name: string, task: Task): Promise<void> {
  if (task.type !== "clone" || !task.git) return;
  const field = "spec.tasks[0].clone.upstreamRef.git.repo";
  const verdict = await judgeLocation(porchEgress(settings.env, settings.apiUrl), task.source);
  if (!verdict.ok) throw invalid(name, field, verdict.refusal);
}

/** Upgrade: the local revision moved to the new upstream revision's number (Porch names the revision, the engine its number). */
async function upgradeOf(settings: StoreSettings, caller: Caller, ns: string, name: string, spec: Fields) {
  const task = fieldsOf(fieldsOf((spec.tasks as unknown[])[0]).upgrade);
  const local = text(fieldsOf(task.localPackageRevisionRef).name);
  const upstream = text(fieldsOf(task.newUpstreamRef).name);
  if (!local || !upstream)
    throw invalid(name, "spec.tasks[0].upgrade", "name localPackageRevisionRef.name and newUpstreamRef.name");
  const target = await getRevision(settings, caller, ns, upstream);
  const revision = fieldsOf(target.spec).revision;
  return {
    name: local,
    revision: Number(revision ?? 0),
    ...(text(task.strategy) ? { strategy: String(task.strategy) } : {}),
  };
}

/** Runs the task's operation of the engine: the new revision made in `repo`. */
async function runTask(
  settings: StoreSettings,
  env: OpEnv,
  repo: Repository,
  spec: Fields,
  task: Task,
  upgrading: Awaited<ReturnType<typeof upgradeOf>> | undefined,
): Promise<void> {
  const workspace = String(spec.workspaceName);
  const pkg = String(spec.packageName);
  const upstreams = upstreamAccess(settings.env, settings.apiUrl);
  switch (task.type) {
    case "init":
      await init(env, {
        repository: repo,
        package: pkg,
        workspace,
        description: task.description,
        keywords: task.keywords,
        site: task.site,
      });
      return;
    case "clone":
      await clone(
        { ...env, upstreams },
        {
          repository: repo,
          source: task.source,
          package: pkg,
          workspace,
          directory: task.directory,
          ref: task.ref,
        },
      );
      return;
    case "edit":
      await copy(env, { repository: repo, source: task.source, workspace });
      return;
    case "upgrade":
      await upgrade(
        { ...env, upstreams },
        { repository: repo, workspace, ...(upgrading as NonNullable<typeof upgrading>) },
      );
      return;
  }
}

/**
 * Creates a PackageRevision as Porch does: its name REPOSITORY.PACKAGE.WORKSPACE, its first task run by
 * the engine. A dry run checks the object, the registration, the caller's permission, the task and that
 * the name is free, and answers the Draft it would make without its files (they are made by the task).
 */
export async function createRevision(
  settings: StoreSettings,
  caller: Caller,
  ns: string,
  obj: KubeObject,
  opts: WriteOptions = {},
): Promise<Write> {
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
  const env = await requestEnv(settings, caller, ns);
  const repository = String(spec.repository);
  if (!env.registrations?.has(repository))
    throw invalid(name, "spec.repository", `no repository "${repository}" is registered in namespace ${ns}`);
  const repo = await openRepository(env, repository, "init");
  return {
    name,
    target: repositoryTarget(repo),
    async run() {
      const task = taskOf(name, spec);
      const upgrading =
        task.type === "upgrade" ? await upgradeOf(settings, caller, ns, name, spec) : undefined;
      await checkEditSource(settings, caller, ns, name, spec);
      await checkCloneEgress(settings, name, task);
      if (opts.dryRun) {
        await refuseTaken(env, ns, name);
        return {
          ...obj,
          metadata: { ...obj.metadata, name, namespace: ns },
          spec: { ...spec, lifecycle: "Draft" },
        };
      }
      await runTask(settings, env, repo, spec, task, upgrading);
      await writeMetadata(env, ns, name, obj);
      return getRevision(settings, caller, ns, name);
    },
  };
}

/** AlreadyExists when a revision is named `name` in the namespace. */
async function refuseTaken(env: OpEnv, ns: string, name: string): Promise<void> {
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
