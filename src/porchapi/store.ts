import type { Permission } from "../api/permission.js";
import type { KubeObject } from "./resources.js";

/**
 * The port the API serves through: one store a resource, each acting on GitHub as the caller (their
 * token), never as the app. A failure is an ApiError (status.ts): NotFound, Conflict, Forbidden…
 */
export interface Caller {
  /** The GitHub token the request carried (`Authorization: Bearer …`). */
  token: string;
  /**
   * Aborted when the request ends: its client went, the answer was sent, or the server stops. A store
   * passes it to its requests to GitHub, so that no work goes on for a request nobody waits for.
   */
  signal: AbortSignal;
}

export interface ListOptions {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  /**
   * The state as the server knows it now, without asking GitHub whether it changed (a watch woken by a
   * change the store told it of: `changes`). The caller's access is checked all the same.
   */
  known?: boolean;
}

/** How a write is made: `dryRun` (`?dryRun=All`) checks and answers the object it would make, changing nothing. */
export interface WriteOptions {
  dryRun?: boolean;
}

export interface ResourceStore {
  /** Whether its writes take `dryRun` (without it, a dry run is refused rather than carried out). */
  readonly dryRun?: boolean;
  /**
   * Whether it keeps `metadata.managedFields` as given with the object (server-side apply's and updates'
   * entries, apply.ts); without it, apply keeps ownership in an annotation and updates record none.
   */
  readonly managedFields?: boolean;
  /** A resource without it is read one object at a time (namespaces: porchlight keeps no list of owners). */
  list?(caller: Caller, namespace: string, opts: ListOptions): Promise<KubeObject[]>;
  /**
   * Tells `onChange` of each change the store hears of in `namespace` until the returned function is
   * called: a watch of one namespace of a resource with it is woken by changes (then lists with
   * `known`). Without it, and across all namespaces, a watch lists again every `watchPollMs`.
   */
  changes?(caller: Caller, namespace: string, onChange: () => void): () => void;
  get(caller: Caller, namespace: string, name: string): Promise<KubeObject>;
  create?(caller: Caller, namespace: string, obj: KubeObject, opts?: WriteOptions): Promise<KubeObject>;
  /**
   * Replaces the object (or its `subresource`) with `obj`; `current` is the object as read for this
   * request, whose resourceVersion the store holds against git's (a moved ref is a Conflict).
   */
  update?(
    caller: Caller,
    namespace: string,
    obj: KubeObject,
    current: KubeObject,
    subresource?: string,
    opts?: WriteOptions,
  ): Promise<KubeObject>;
  /**
   * Deletes the object; returns it as it was. An object with finalizers is not removed but marked
   * (`metadata.deletionTimestamp`) and returned so, still there, as the API server does.
   */
  delete?(caller: Caller, namespace: string, name: string, opts?: WriteOptions): Promise<KubeObject>;
}

/** The stores, by resource (plural). A resource without a store is not served. */
export type PorchStores = Readonly<Record<string, ResourceStore>>;

/** A repository of a namespace the caller reaches, and their GitHub permission on it. */
export interface RepositoryAccess {
  /** Its registration's name in the namespace (Porch's Repository name), or the repository's for the registry. */
  name: string;
  /** `owner/repo`. */
  repository: string;
  permission: Permission;
}

/**
 * What the caller may do in a namespace, as GitHub says it: their permission on each repository
 * registered there (the packages, and the variant files of management repositories) and on the one
 * that keeps the registrations (`OWNER/.porchlight`, Repository objects); undefined where they see none.
 */
export interface NamespaceAccess {
  registrations: readonly RepositoryAccess[];
  registry: RepositoryAccess | undefined;
}

/** How the API learns a caller's access to a namespace (`kubectl auth can-i` asks it). */
export type NamespaceAccessPort = (caller: Caller, namespace: string) => Promise<NamespaceAccess>;
