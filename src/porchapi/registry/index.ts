import type { PorchStores } from "../store.js";
import type { StoreSettings } from "./context.js";
import { createRevision } from "./create.js";
import { door, type WriteNotice } from "./door.js";
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
  // each write tells the index where it landed, so that lists and watches see it at once
  const written: WriteNotice = (ns, repository) => settings.index.written(ns, repository);
  const revisions = door(
    "porch.kpt.dev",
    "packagerevisions",
    {
      dryRun: true,
      list: (caller, ns, opts) => listRevisions(settings, caller, ns, opts),
      get: (caller, ns, name) => getRevision(settings, caller, ns, name),
      create: (caller, ns, obj, o) => createRevision(settings, caller, ns, obj, o),
      update: (caller, ns, obj, current, sub, o) =>
        updateRevision(settings, caller, ns, obj, current, sub, o),
      delete: (caller, ns, name, o) => deleteRevision(settings, caller, ns, name, o),
    },
    written,
  );
  return {
    namespaces: {
      get: (caller, _ns, name) => getNamespace(settings, caller, name),
      list: (caller) => visibleNamespaces(settings, caller),
    },
    packagerevisions: {
      ...revisions,
      changes: (caller, ns, onChange) => settings.index.subscribe(caller, ns, onChange),
    },
    packagerevisionresources: door(
      "porch.kpt.dev",
      "packagerevisionresources",
      {
        dryRun: true,
        list: (caller, ns, opts) => listResources(settings, caller, ns, opts),
        get: (caller, ns, name) => getResources(settings, caller, ns, name),
        update: (caller, ns, obj, current, _sub, o) => updateResources(settings, caller, ns, obj, current, o),
      },
      written,
    ),
    repositories: door("config.porch.kpt.dev", "repositories", repositoryStorage(settings), written),
    packagevariants: door(
      "config.porch.kpt.dev",
      "packagevariants",
      variantStorage(settings, "PackageVariant"),
      written,
    ),
    packagevariantsets: door(
      "config.porch.kpt.dev",
      "packagevariantsets",
      variantStorage(settings, "PackageVariantSet"),
      written,
    ),
  };
}

export { namespaceAccess } from "./access.js";
export { CallerFolders } from "./caller-folders.js";
export { tokenCheck } from "./token-check.js";
export type { StoreSettings };
