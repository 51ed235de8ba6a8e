import { clone } from "../../porch/clone.js";
import { copy } from "../../porch/copy.js";
import { porchEgress, upstreamAccess } from "../../porch/egress.js";
import { init } from "../../porch/init.js";
import { ownerReferencesOf } from "../../porch/owners.js";
import { kptfileChanges } from "../../porch/readiness.js";
import { openRepository, type Repository } from "../../porch/repository.js";
import type { OpEnv } from "../../porch/steps.js";
import { upgrade } from "../../porch/upgrade.js";
import { judgeLocation } from "../../sources/location.js";
import type { KubeObject } from "../resources.js";
import { ApiError } from "../status.js";
import type { Caller, WriteOptions } from "../store.js";
import { requestEnv, type StoreSettings } from "./context.js";
import { repositoryTarget, type Write } from "./door.js";
import { writeKptfile } from "./resources.js";
import { type Fields, fieldsOf, invalid, prepareForCreate, type Task, taskOf } from "./revision-strategy.js";
import { findNamed, getRevision } from "./revisions.js";
import { writeMetadata } from "./writes.js";

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
  task: Task,
) {
  if (task.type !== "edit") return;
  const { source } = task;
  const src = fieldsOf((await getRevision(settings, caller, ns, source)).spec);
  if (src.packageName !== spec.packageName || src.repository !== spec.repository)
    throw invalid(
      name,
      "spec.tasks[0].edit.sourceRef.name",
      `source revision must be from same package ${String(spec.repository)}/${String(spec.packageName)}: ${source} is ${String(src.repository)}/${String(src.packageName)} (an edit makes a new revision of its source's package; use a clone task for another package)`,
    );
}

/**
 * A clone's git address judged by the egress policy before anything connects to it (the engine's clone
 * judges it again): a refusal is Invalid, naming the field and the policy.
 */
async function checkCloneEgress(settings: StoreSettings, name: string, task: Task): Promise<void> {
  if (task.type !== "clone" || !task.git) return;
  const field = "spec.tasks[0].clone.upstreamRef.git.repo";
  const verdict = await judgeLocation(porchEgress(settings.env, settings.apiUrl), task.source);
  if (!verdict.ok) throw invalid(name, field, verdict.refusal);
}

/** The number of the upstream revision an upgrade names (Porch names the revision, the engine its number). */
async function upstreamRevision(settings: StoreSettings, caller: Caller, ns: string, upstream: string) {
  const target = await getRevision(settings, caller, ns, upstream);
  return Number(fieldsOf(target.spec).revision ?? 0);
}

/** Runs the task's operation of the engine: the new revision made in `repo`. */
async function runTask(
  settings: StoreSettings,
  env: OpEnv,
  repo: Repository,
  spec: Fields,
  task: Task,
  revision: number | undefined,
): Promise<void> {
  const workspace = String(spec.workspaceName);
  const pkg = String(spec.packageName);
  const upstreams = upstreamAccess(settings.env, settings.apiUrl, settings.report);
  switch (task.type) {
    case "init":
      await init(env, {
        repository: repo,
        package: pkg,
        workspace,
        description: task.description,
        keywords: task.keywords,
        site: task.site,
        // Porch's server makes a new revision of an existing package with init too (porchctl refuses it)
        ofExisting: true,
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
        { repository: repo, workspace, name: task.name, revision, strategy: task.strategy },
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
  const { name, spec } = prepareForCreate(obj);
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
      const revision =
        task.type === "upgrade" ? await upstreamRevision(settings, caller, ns, task.upstream) : undefined;
      await checkEditSource(settings, caller, ns, name, spec, task);
      await checkCloneEgress(settings, name, task);
      ownerReferencesOf(name, obj.metadata?.ownerReferences);
      if (opts.dryRun) {
        await refuseTaken(env, ns, name);
        return {
          ...obj,
          metadata: { ...obj.metadata, name, namespace: ns },
          spec: { ...spec, lifecycle: "Draft" },
        };
      }
      await runTask(settings, env, repo, spec, task, revision);
      await writeMetadata(env, ns, name, obj);
      const changes = kptfileChanges(obj, "create");
      if (changes) await writeKptfile(env, ns, name, changes);
      // what was written, read again from GitHub once the door told the index
      return () => getRevision(settings, caller, ns, name);
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
