import type { PorchStores } from "../store.js";
import type { StoreSettings } from "./context.js";
import { createRevision } from "./create.js";
import { getNamespace, visibleNamespaces } from "./namespaces.js";
import { repositoryStore } from "./repositories.js";
import { getResources, listResources, updateResources } from "./resources.js";
import { getRevision, listRevisions } from "./revisions.js";
import { variantStore } from "./variants.js";
import { deleteRevision, updateRevision } from "./writes.js";

/** The stores of Porch's API over GitHub, as rpkg reaches it: each request acts with the caller's token. */
export function porchStores(settings: StoreSettings): PorchStores {
  return {
    namespaces: {
      get: (caller, _ns, name) => getNamespace(settings, caller, name),
      list: (caller) => visibleNamespaces(settings, caller),
    },
    packagerevisions: {
      dryRun: true,
      list: (caller, ns, opts) => listRevisions(settings, caller, ns, opts),
      get: (caller, ns, name) => getRevision(settings, caller, ns, name),
      create: (caller, ns, obj, o) => createRevision(settings, caller, ns, obj, o),
      update: (caller, ns, obj, current, sub, o) =>
        updateRevision(settings, caller, ns, obj, current, sub, o),
      delete: (caller, ns, name, o) => deleteRevision(settings, caller, ns, name, o),
    },
    packagerevisionresources: {
      dryRun: true,
      list: (caller, ns, opts) => listResources(settings, caller, ns, opts),
      get: (caller, ns, name) => getResources(settings, caller, ns, name),
      update: (caller, ns, obj, current, _sub, o) => updateResources(settings, caller, ns, obj, current, o),
    },
    repositories: repositoryStore(settings),
    packagevariants: variantStore(settings, "PackageVariant"),
    packagevariantsets: variantStore(settings, "PackageVariantSet"),
  };
}

export { namespaceAccess } from "./access.js";
export { CallerFolders } from "./caller-folders.js";
export { tokenCheck } from "./token-check.js";
export type { StoreSettings };
