import type { Permission } from "../../api/permission.js";
import type { Identity } from "../../github/connect.js";
import type { Repository } from "../../porch/repository.js";
import type { KubeObject } from "../resources.js";
import { ApiError } from "../status.js";
import type { Caller, ListOptions, ResourceStore, WriteOptions } from "../store.js";
import { asApiErrors } from "./context.js";

/** The repository a write lands in, as the caller reaches it: their permission there decides. */
export interface WriteTarget {
  /** `owner/name`. */
  full: string;
  permission: Permission;
  whoami(): Promise<Identity | undefined>;
  /** What the repository keeps for the resource, said in a refusal ("the variant files"). */
  keeps?: string;
}

/**
 * One write as a storage plans it: what it found of the object (the repository it lands in, `target`;
 * none where GitHub alone decides, as for the registrations repository), and the write itself, run once
 * the door let it through. `verb` is the refusal's word where it is not the request's (`approve`).
 * `run` answers the object, or a read of it that the door makes once it has told the index of the
 * write (so that the answer is what GitHub holds after it, not the index's reading from before).
 */
export interface Write {
  name: string;
  target: WriteTarget | undefined;
  verb?: string;
  run(): Promise<KubeObject | (() => Promise<KubeObject>)>;
}

/**
 * Told of each write the door ran (its namespace, the repository it landed in where known); the answer
 * waits for it (in a fleet: until the other replicas are told).
 */
export type WriteNotice = (namespace: string, repository: string | undefined) => void | Promise<void>;

/**
 * A resource's storage: its reads, and its writes as plans the door authorizes before any of them runs.
 * Each write's plan reads what it needs to know where it lands (and refuses what is wrong before that),
 * and runs the rest.
 */
export interface Storage {
  readonly dryRun?: boolean;
  readonly managedFields?: boolean;
  list?(caller: Caller, namespace: string, opts: ListOptions): Promise<KubeObject[]>;
  get(caller: Caller, namespace: string, name: string): Promise<KubeObject>;
  create?(caller: Caller, namespace: string, obj: KubeObject, opts: WriteOptions): Promise<Write>;
  update?(
    caller: Caller,
    namespace: string,
    obj: KubeObject,
    current: KubeObject,
    subresource: string | undefined,
    opts: WriteOptions,
  ): Promise<Write>;
  delete?(caller: Caller, namespace: string, name: string, opts: WriteOptions): Promise<Write>;
}

/** A package repository as a write's target. */
export const repositoryTarget = (repo: Repository): WriteTarget => ({
  full: repo.full,
  permission: repo.conn.info.permission,
  whoami: repo.whoami,
});

const WRITERS = new Set<Permission>(["write", "maintain", "admin"]);

/**
 * The API's one authorization of a write, in Kubernetes' words: the caller's GitHub permission on the
 * repository the write lands in must let them push (a reader lists, a writer drafts; publishing then
 * decides by the repository's own rules, as `/approve` does). GitHub would refuse the push anyway: this
 * says so before anything is tried.
 */
async function authorize(
  request: { verb: string; group: string; resource: string; namespace: string },
  write: Write,
): Promise<void> {
  const { target, name } = write;
  if (target === undefined || WRITERS.has(target.permission)) return;
  const { group, resource, namespace } = request;
  const verb = write.verb ?? request.verb;
  const who = (await target.whoami())?.login ?? "the token's user";
  throw new ApiError(
    "Forbidden",
    `${resource}.${group} "${name}" is forbidden: User "${who}" cannot ${verb} resource "${resource}" in API group "${group}" in the namespace "${namespace}": ${who} has ${target.permission} permission on ${target.full}${target.keeps ? `, which keeps ${target.keeps}` : ""}, and ${verb} needs write`,
    { name, group, kind: resource },
  );
}

/**
 * The door of a resource's storage: reads pass, each write is planned, authorized, then run; a failure
 * of either is the API's (context.ts). Each write run (not a dry run) is told to `written` once, whether
 * it succeeded or not (one that failed halfway may have pushed), before its answer is read.
 */
export function door(
  group: string,
  resource: string,
  storage: Storage,
  written: WriteNotice = () => {},
): ResourceStore {
  const through = (verb: string, namespace: string, plan: () => Promise<Write>, dryRun?: boolean) =>
    asApiErrors(async () => {
      const write = await plan();
      await authorize({ verb, group, resource, namespace }, write);
      let answer: KubeObject | (() => Promise<KubeObject>);
      try {
        answer = await write.run();
      } finally {
        if (!dryRun) await written(namespace, write.target?.full);
      }
      return typeof answer === "function" ? answer() : answer;
    });
  const { create, update, delete: remove } = storage;
  return {
    ...(storage.dryRun ? { dryRun: true } : {}),
    ...(storage.managedFields ? { managedFields: true } : {}),
    ...(storage.list ? { list: storage.list } : {}),
    get: storage.get,
    ...(create
      ? {
          create: (caller, ns, obj, opts = {}) =>
            through("create", ns, () => create(caller, ns, obj, opts), opts.dryRun),
        }
      : {}),
    ...(update
      ? {
          update: (caller, ns, obj, current, sub, opts = {}) =>
            through("update", ns, () => update(caller, ns, obj, current, sub, opts), opts.dryRun),
        }
      : {}),
    ...(remove
      ? {
          delete: (caller, ns, name, opts = {}) =>
            through("delete", ns, () => remove(caller, ns, name, opts), opts.dryRun),
        }
      : {}),
  };
}
