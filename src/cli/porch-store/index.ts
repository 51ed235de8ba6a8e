import type { PorchStores } from "../../porchapi/store.js";
import type { StoreSettings } from "./context.js";
import { getNamespace } from "./namespaces.js";
import { getResources, listResources } from "./resources.js";
import { getRevision, listRevisions } from "./revisions.js";

/** The stores of Porch's API over GitHub, as rpkg reaches it: each request acts with the caller's token. */
export function porchStores(settings: StoreSettings): PorchStores {
  return {
    namespaces: { get: (caller, _ns, name) => getNamespace(settings, caller, name) },
    packagerevisions: {
      list: (caller, ns, opts) => listRevisions(settings, caller, ns, opts),
      get: (caller, ns, name) => getRevision(settings, caller, ns, name),
    },
    packagerevisionresources: {
      list: (caller, ns, opts) => listResources(settings, caller, ns, opts),
      get: (caller, ns, name) => getResources(settings, caller, ns, name),
    },
  };
}

export type { StoreSettings };
