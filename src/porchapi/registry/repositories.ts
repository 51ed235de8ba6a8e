import { labelsMatch, parseLabelSelector, SelectorError } from "../../api/label-selector.js";
import { readiness } from "../../cli/repo-status.js";
import {
  openRegistry,
  type RegistryAccess,
  type RepositoryObject,
  registryAuthor,
} from "../../porch/registrations.js";
import { parseFieldSelector } from "../../porch/selectors.js";
import type { KubeObject } from "../resources.js";
import { ApiError, notFound } from "../status.js";
import type { Caller, ListOptions, ResourceStore } from "../store.js";
import { asApiErrors, callerAccess, type StoreSettings } from "./context.js";
import { withVersion } from "./revisions.js";

/** How long one registration's Ready check may take (a git URL elsewhere that never answers). */
const READY_TIMEOUT_MS = 10_000;

/**
 * Porch's Repository objects: the registrations of the namespace's `.porchlight` repository, as
 * `porchlight repo` keeps them (create, update and delete commit there, as the caller), each with Porch's
 * Ready condition: whether porchlight can read it with the caller's token.
 */
export function repositoryStore(settings: StoreSettings): ResourceStore {
  const access = (caller: Caller): Promise<RegistryAccess> => callerAccess(settings, caller);
  const withStatus = async (a: RegistryAccess, obj: RepositoryObject): Promise<KubeObject> =>
    withVersion({ ...obj, status: { conditions: [await readiness(obj, a, READY_TIMEOUT_MS)] } });
  const get = async (caller: Caller, ns: string, name: string) =>
    asApiErrors(async () => {
      const a = await access(caller);
      const obj = await (await openRegistry(a, ns)).get(name);
      if (!obj) throw notFound("repositories", "config.porch.kpt.dev", name);
      return withStatus(a, obj);
    });
  const write = async (caller: Caller, ns: string, obj: KubeObject) =>
    asApiErrors(async () => {
      const a = await access(caller);
      const { status: _, ...written } = obj;
      const metadata = { ...written.metadata };
      delete metadata.resourceVersion;
      delete metadata.uid;
      const { name } = await (await openRegistry(a, ns, { create: true })).apply(
        { ...written, metadata: { ...metadata, namespace: ns } },
        await registryAuthor(a, settings.env),
      );
      return name;
    });
  return {
    list: (caller, ns, opts) =>
      asApiErrors(async () => {
        const { labels, names } = selectors(opts);
        const a = await access(caller);
        const all = await (await openRegistry(a, ns)).list();
        const kept = all.filter(
          (o) =>
            (names === undefined || names === o.metadata.name) &&
            labelsMatch(labels, o.metadata.labels ?? {}),
        );
        return Promise.all(kept.map((o) => withStatus(a, o)));
      }),
    get,
    async create(caller, ns, obj) {
      const name = String(obj.metadata?.name ?? "");
      if (await exists(caller, ns, name))
        throw new ApiError("AlreadyExists", `repositories.config.porch.kpt.dev "${name}" already exists`);
      return get(caller, ns, await write(caller, ns, obj));
    },
    update: async (caller, ns, obj) => get(caller, ns, await write(caller, ns, obj)),
    delete: async (caller, ns, name) => {
      const current = await get(caller, ns, name);
      await asApiErrors(async () => {
        const a = await access(caller);
        await (await openRegistry(a, ns)).remove(name, await registryAuthor(a, settings.env));
      });
      return current;
    },
  };
  async function exists(caller: Caller, ns: string, name: string): Promise<boolean> {
    const a = await access(caller);
    return (await asApiErrors(async () => (await openRegistry(a, ns)).get(name))) !== undefined;
  }
}

/** Label selectors, and metadata.name as the one field selector a registration file answers. */
function selectors(opts: ListOptions) {
  try {
    const fields = parseFieldSelector(opts.fieldSelector ?? "");
    let names: string | undefined;
    for (const f of fields) {
      if (f.field !== "metadata.name" || f.op === "!=")
        throw new ApiError(
          "BadRequest",
          `"${f.field}" is not a known field selector: only "metadata.name=NAME" selects repositories`,
        );
      names = f.value;
    }
    return { labels: parseLabelSelector(opts.labelSelector ?? ""), names };
  } catch (e) {
    if (e instanceof SelectorError) throw new ApiError("BadRequest", e.message);
    throw e;
  }
}
