import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { KubeObject } from "./resources.js";

/** A list's objects by namespace and name (keyOf), as a client was told of them. */
export type ListState = ReadonlyMap<string, KubeObject>;

/** How many states the server keeps; a watch from one it no longer has is answered 410 Expired. */
const STATES_KEPT = 1024;
/** And how much of its memory they take at most (their objects as JSON; files of packagerevisionresources add up). */
const BYTES_KEPT = 64 * 1024 * 1024;

/**
 * The states the server told clients of, by the resourceVersion it gave them: a list's version (the
 * state it answered) and each watch event's object version (the state after that event, which is
 * where client-go's and client-node's informers resume a dropped watch). A watch from one of these
 * reports exactly what changed since, deletions included; git keeps no history of what a listing
 * showed, so these are kept in memory, per server, the newest STATES_KEPT of them within BYTES_KEPT.
 *
 * Scoped by caller, resource, namespace and selectors: a version names a state only for the same
 * question asked by the same token.
 */
export class WatchHistory {
  /** Each object's size as JSON, measured once: the same object is in many states. */
  private readonly sizes = new WeakMap<KubeObject, number>();
  private readonly states = new LRUCache<string, ListState>({
    max: STATES_KEPT,
    maxSize: BYTES_KEPT,
    sizeCalculation: (state) => {
      let bytes = 1;
      for (const o of state.values()) bytes += this.sizeOf(o);
      return Math.min(bytes, BYTES_KEPT);
    },
  });

  private sizeOf(o: KubeObject): number {
    let n = this.sizes.get(o);
    if (n === undefined) {
      n = JSON.stringify(o).length;
      this.sizes.set(o, n);
    }
    return n;
  }

  remember(scope: string, version: string, state: ListState): void {
    if (version !== "") this.states.set(`${scope}\n${version}`, state);
  }

  recall(scope: string, version: string): ListState | undefined {
    return this.states.get(`${scope}\n${version}`);
  }
}

/** The scope of a list or watch: who asked what (the token only as its digest). */
export function historyScope(
  token: string,
  resource: string,
  namespace: string,
  opts: { labelSelector?: string | undefined; fieldSelector?: string | undefined },
): string {
  const who = createHash("sha256").update(token).digest("hex").slice(0, 24);
  return [who, resource, namespace, opts.labelSelector ?? "", opts.fieldSelector ?? ""].join("\n");
}

/** An object's key in a state: its namespace and name (a list across namespaces holds the same name twice). */
export const keyOf = (o: KubeObject) => `${String(o.metadata?.namespace ?? "")}/${String(o.metadata?.name)}`;

/** The objects by key. */
export function stateOf(objects: readonly KubeObject[]): Map<string, KubeObject> {
  return new Map(objects.map((o) => [keyOf(o), o]));
}

/**
 * A deleted object as a DELETED event carries it: with a version of its own (the deletion's), so a
 * client resuming from it resumes after the deletion, not before.
 */
export function asDeleted(obj: KubeObject): KubeObject {
  const was = String(obj.metadata?.resourceVersion ?? "");
  const version = createHash("sha1").update(`deleted\n${was}`).digest("hex").slice(0, 16);
  return { ...obj, metadata: { ...obj.metadata, resourceVersion: version } };
}
