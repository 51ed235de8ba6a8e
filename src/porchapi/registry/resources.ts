import type { FileTree } from "../../kpt/tree.js";
import type { PackageRevision } from "../../lifecycle/index.js";
import { nameOf } from "../../porch/names.js";
import { push } from "../../porch/push.js";
import { type KptfileChanges, patchKptfile } from "../../porch/readiness.js";
import type { Repository } from "../../porch/repository.js";
import type { OpEnv } from "../../porch/steps.js";
import type { KubeObject } from "../resources.js";
import { ApiError, notFound } from "../status.js";
import type { Caller, ListOptions, WriteOptions } from "../store.js";
import { asApiErrors, requestEnv, type StoreSettings } from "./context.js";
import { repositoryTarget, type Write } from "./door.js";
import { findNamed, listRevisions, withVersion } from "./revisions.js";

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
      // the placeholder's -1 too, as Porch's (its revision key's)
      ...(rev.revision !== 0 ? { revision: rev.revision } : {}),
      repository: repo.name,
      resources,
    },
    status: { renderStatus: { result: { exitCode: 0 }, error: "" } },
  });
}

/** A revision's files, read at its commit (kept by commit): the revision found in the caller's view of the index. */
export async function getResources(settings: StoreSettings, caller: Caller, ns: string, name: string) {
  return asApiErrors(async () => {
    // only the repositories whose registration starts the name are read (and refreshed)
    const view = await settings.index.view(caller, ns, { registrations: (n) => name.startsWith(`${n}.`) });
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
 * The files of `spec.resources` as a package's tree, in path order, as a folder of them reads (a file
 * under a `.git` directory is not the package's).
 */
function treeOf(files: readonly [string, unknown][]): FileTree {
  const kept = files.filter(([path]) => !path.split("/").slice(0, -1).includes(".git"));
  return new Map(
    kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([p, c]) => [p, Buffer.from(String(c))]),
  );
}

/**
 * An update of a revision's files: pushed to its draft by the engine's push (the files are the whole
 * package), rendered as Porch renders a push — a render that fails is refused unless the revision says
 * porch.kpt.dev/push-on-render-failure — and answered with the files as pushed. A dry run checks the
 * paths and the caller's permission and answers the object sent (the render is not run).
 */
export async function updateResources(
  settings: StoreSettings,
  caller: Caller,
  ns: string,
  obj: KubeObject,
  current: KubeObject,
  opts: WriteOptions = {},
): Promise<Write> {
  const name = String(current.metadata?.name);
  const resources = (obj.spec as { resources?: unknown } | undefined)?.resources;
  if (typeof resources !== "object" || resources === null)
    throw new ApiError(
      "Invalid",
      `PackageRevisionResources.porch.kpt.dev "${name}" is invalid: spec.resources: Required value`,
    );
  const files = Object.entries(resources as Record<string, unknown>);
  for (const [path] of files) checkPath(name, path);
  const env = await requestEnv(settings, caller, ns);
  const { repo } = await findNamed(env, ns, name);
  return {
    name,
    target: repositoryTarget(repo),
    async run() {
      if (opts.dryRun) return { ...obj, metadata: { ...current.metadata, ...obj.metadata } };
      await push(env, { repository: repo, name, files: { tree: treeOf(files) } });
      // what was written, read again from GitHub once the door told the index
      return () => getResources(settings, caller, ns, name);
    },
  };
}

/**
 * A draft's Kptfile with `changes` written into it as Porch writes a PackageRevision update's gates,
 * conditions and package metadata (readiness.ts patchKptfile), pushed and rendered by the engine's push
 * as an update of its files; nothing is pushed when the Kptfile already says it all.
 */
export async function writeKptfile(
  env: OpEnv,
  ns: string,
  name: string,
  changes: KptfileChanges,
): Promise<void> {
  const { repo, rev } = await findNamed(env, ns, name);
  const { tree } = await repo.conn.port.readTree(rev.sha, repo.packageDir(rev.package));
  const text = tree.get("Kptfile")?.toString("utf8");
  if (text === undefined) return;
  const next = patchKptfile(text, `${rev.package}/Kptfile`, changes);
  if (next === undefined) return;
  const files = new Map(tree);
  files.set("Kptfile", Buffer.from(next));
  await push(env, { repository: repo, name, files: { tree: files } });
}
