import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pushVerb } from "../../cli/rpkg/push.js";
import type { PackageRevision } from "../../lifecycle/index.js";
import { nameOf } from "../../porch/names.js";
import type { Repository } from "../../porch/repository.js";
import type { KubeObject } from "../resources.js";
import { ApiError, notFound } from "../status.js";
import type { Caller, ListOptions, WriteOptions } from "../store.js";
import { requireWrite } from "./authorize.js";
import { asApiErrors, requestEnv, type StoreSettings } from "./context.js";
import { findNamed, listRevisions, withVersion } from "./revisions.js";
import { runVerb } from "./run-verb.js";

/**
 * PackageRevisionResources: a revision's files, each by its path in the package with its content, as
 * Porch's (`spec.resources`), read from the revision's commit.
 */
async function resourcesObject(
  settings: StoreSettings,
  repo: Repository,
  rev: PackageRevision,
): Promise<KubeObject> {
  const tree = await settings.index.filesAt(repo, rev.sha, repo.packageDir(rev.package));
  const resources: Record<string, string> = {};
  for (const path of [...tree.keys()].sort()) resources[path] = (tree.get(path) as Buffer).toString("utf8");
  return withVersion({
    apiVersion: "porch.kpt.dev/v1alpha1",
    kind: "PackageRevisionResources",
    metadata: { name: nameOf(repo, rev), namespace: repo.namespace },
    spec: {
      packageName: rev.package,
      workspaceName: rev.workspace,
      ...(rev.revision > 0 ? { revision: rev.revision } : {}),
      repository: repo.name,
      resources,
    },
    status: { renderStatus: { result: { exitCode: 0 }, error: "" } },
  });
}

/** A revision's files, read at its commit (kept by commit): the revision found in the caller's view of the index. */
export async function getResources(settings: StoreSettings, caller: Caller, ns: string, name: string) {
  return asApiErrors(async () => {
    const view = await settings.index.view(caller, ns);
    for (const { repo, revisions } of view.repositories) {
      const found = revisions.find((r) => r.object.metadata.name === name);
      if (found) return resourcesObject(settings, repo, found.rev);
    }
    throw notFound("packagerevisionresources", "porch.kpt.dev", name);
  });
}

/** Every revision's files in the namespace (the revisions `opts` selects, as for PackageRevisions). */
export async function listResources(settings: StoreSettings, caller: Caller, ns: string, opts: ListOptions) {
  const revisions = await listRevisions(settings, caller, ns, opts);
  // the index as that list left it: one reading of the namespace for the whole list
  return asApiErrors(async () => {
    const view = await settings.index.view(caller, ns, { known: true });
    const found = new Map(
      view.repositories.flatMap(({ repo, revisions: rs }) =>
        rs.map((r) => [r.object.metadata.name, { repo, rev: r.rev }] as const),
      ),
    );
    return Promise.all(
      revisions.flatMap((r) => {
        const at = found.get(String(r.metadata?.name));
        return at ? [resourcesObject(settings, at.repo, at.rev)] : [];
      }),
    );
  });
}

/** A path of `spec.resources` that stays inside the package, or an Invalid answer naming it. */
function checkPath(name: string, path: string): void {
  if (path === "" || path.startsWith("/") || path.split("/").some((p) => p === ".." || p === "." || p === ""))
    throw new ApiError(
      "Invalid",
      `PackageRevisionResources.porch.kpt.dev "${name}" is invalid: spec.resources[${JSON.stringify(path)}]: a file's path is relative to the package, without . or .. parts`,
    );
}

/**
 * An update of a revision's files: pushed to its draft as `rpkg push` pushes a folder (the files are the
 * whole package), rendered as Porch renders a push — a render that fails is refused unless the revision
 * says porch.kpt.dev/push-on-render-failure — and answered with the files as pushed. A dry run checks the
 * paths and the caller's permission and answers the object sent (the render is not run).
 */
export async function updateResources(
  settings: StoreSettings,
  caller: Caller,
  ns: string,
  obj: KubeObject,
  current: KubeObject,
  opts: WriteOptions = {},
): Promise<KubeObject> {
  const name = String(current.metadata?.name);
  const resources = (obj.spec as { resources?: unknown } | undefined)?.resources;
  if (typeof resources !== "object" || resources === null)
    throw new ApiError(
      "Invalid",
      `PackageRevisionResources.porch.kpt.dev "${name}" is invalid: spec.resources: Required value`,
    );
  const files = Object.entries(resources as Record<string, unknown>);
  for (const [path] of files) checkPath(name, path);
  await asApiErrors(async () => {
    const env = await requestEnv(settings, caller, ns);
    const { repo } = await findNamed(env, ns, name);
    await requireWrite(repo, "update", "packagerevisionresources", name);
    if (opts.dryRun) return;
    const dir = await mkdtemp(join(env.cacheDir, "push-"));
    try {
      for (const [path, content] of files) {
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await writeFile(join(dir, path), String(content));
      }
      await runVerb(env, pushVerb, { positional: [name, dir], values: { repository: repo.name } });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  if (opts.dryRun) return { ...obj, metadata: { ...current.metadata, ...obj.metadata } };
  settings.index.namespaceChanged(ns);
  return getResources(settings, caller, ns, name);
}
