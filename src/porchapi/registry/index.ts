import type { PorchStores, ResourceStore } from "../store.js";
import type { StoreSettings } from "./context.js";
import { createRevision } from "./create.js";
import { door } from "./door.js";
import { getNamespace, visibleNamespaces } from "./namespaces.js";
import { repositoryStorage } from "./repositories.js";
import { getResources, listResources, updateResources } from "./resources.js";
import { getRevision, listRevisions } from "./revisions.js";
import { variantStorage } from "./variants.js";
import { deleteRevision, updateRevision } from "./writes.js";

/**
 * Porch's API over GitHub, one storage a resource, each acting with the caller's token and calling the
 * engine (src/porch) directly; every write goes through the door (door.ts), which authorizes it once.
 */
export function porchStores(settings: StoreSettings): PorchStores {
  const stores: Record<string, ResourceStore> = {
    namespaces: {
      get: (caller, _ns, name) => getNamespace(settings, caller, name),
      list: (caller) => visibleNamespaces(settings, caller),
    },
    packagerevisions: door("porch.kpt.dev", "packagerevisions", {
      dryRun: true,
      list: (caller, ns, opts) => listRevisions(settings, caller, ns, opts),
      get: (caller, ns, name) => getRevision(settings, caller, ns, name),
      create: (caller, ns, obj, o) => createRevision(settings, caller, ns, obj, o),
      update: (caller, ns, obj, current, sub, o) =>
        updateRevision(settings, caller, ns, obj, current, sub, o),
      delete: (caller, ns, name, o) => deleteRevision(settings, caller, ns, name, o),
    }),
    packagerevisionresources: door("porch.kpt.dev", "packagerevisionresources", {
      dryRun: true,
      list: (caller, ns, opts) => listResources(settings, caller, ns, opts),
      get: (caller, ns, name) => getResources(settings, caller, ns, name),
      update: (caller, ns, obj, current, _sub, o) => updateResources(settings, caller, ns, obj, current, o),
    }),
    repositories: door("config.porch.kpt.dev", "repositories", repositoryStorage(settings)),
    packagevariants: door(
      "config.porch.kpt.dev",
      "packagevariants",
      variantStorage(settings, "PackageVariant"),
    ),
    packagevariantsets: door(
      "config.porch.kpt.dev",
      "packagevariantsets",
      variantStorage(settings, "PackageVariantSet"),
    ),
  };
  const revisions = stores.packagerevisions as ResourceStore;
  stores.packagerevisions = {
    ...revisions,
    changes: (caller, ns, onChange) => settings.index.subscribe(caller, ns, onChange),
  };
  return Object.fromEntries(
    Object.entries(stores).map(([resource, store]) => [resource, telling(settings, store)]),
  );
}

/**
 * The store, each of its writes telling the index that its namespace changed (whether it succeeded or
 * not: a write that failed halfway may have pushed), so that lists and watches see it at once.
 */
function telling(settings: StoreSettings, store: ResourceStore): ResourceStore {
  const told = <T>(ns: string, work: Promise<T>): Promise<T> =>
    work.finally(() => settings.index.namespaceChanged(ns));
  const { create, update } = store;
  const remove = store.delete;
  return {
    ...store,
    ...(create ? { create: (c, ns, obj, o) => told(ns, create(c, ns, obj, o)) } : {}),
    ...(update
      ? { update: (c, ns, obj, current, sub, o) => told(ns, update(c, ns, obj, current, sub, o)) }
      : {}),
    ...(remove ? { delete: (c, ns, name, o) => told(ns, remove(c, ns, name, o)) } : {}),
  };
}

export { namespaceAccess } from "./access.js";
export { CallerFolders } from "./caller-folders.js";
export { tokenCheck } from "./token-check.js";
export type { StoreSettings };
