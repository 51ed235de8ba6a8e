import { createHash } from "node:crypto";
import { asDeleted, historyScope, keyOf, stateOf } from "./history.js";
import type { KubeObject } from "./resources.js";
import { ApiError, statusObject } from "./status.js";
import type { ListOptions } from "./store.js";
import { includeObjectOf, toTable, wantsTable } from "./table.js";
import { listIn, type ObjectRequest } from "./verbs.js";

/**
 * `watch=true`: a stream of ADDED, MODIFIED and DELETED events, one JSON object a line, each object
 * compared by its resourceVersion (its git state), so a change made by a `git push`, a pull request
 * merged on GitHub or the bot shows as one made through the API. A resource whose store tells of changes
 * (`changes`: the index of package revisions, kept by the app's webhooks and the API's writes, or read
 * once per namespace for all watchers every poll where no webhooks come) is read again when told, from
 * what the server knows, and every `watchPollMs` all the same (the caller's access checked again);
 * another resource is read again from GitHub every `watchPollMs`.
 *
 * A watch from a version this server gave (a list's, or an event's: where informers resume) reports what
 * changed since that state, deletions included; from "" or "0", every object as ADDED; from a version it
 * no longer knows, an ERROR event 410 Expired, on which clients list again (as the API server's). With
 * `allowWatchBookmarks=true`, a BOOKMARK every `watchBookmarkMs` names the state the watch has reached
 * (a version a watch may resume from), and with `sendInitialEvents=true` one ends the first events
 * (annotated `k8s.io/initial-events-end`), as the API server's.
 *
 * A watch holds one of the server's slots (watch-slots.ts) while it is open; when its client goes (or
 * the server stops), the request's signal ends it: the read in flight is cancelled with it (the stores
 * pass the signal to every request to GitHub) and no other starts.
 */
type EventType = "ADDED" | "MODIFIED" | "DELETED";

export async function watchObjects(x: ObjectRequest, ns: string, opts: ListOptions): Promise<void> {
  const params = x.url.searchParams;
  // one namespace's watch is woken by its store's changes; one across all of them lists again
  const changes = ns === "" ? undefined : x.store.changes;
  const list = async (known: boolean) => stateOf(await listIn(x, ns, known ? { ...opts, known } : opts));
  const scope = historyScope(x.caller.token, x.resource.resource, ns, opts);
  const table = wantsTable(x.req.headers.accept);
  const include = includeObjectOf(params.get("includeObject"));
  const bookmarks = params.get("allowWatchBookmarks") === "true" && !table;
  const release = x.watches.take(x.caller.token);
  const gone = x.caller.signal;
  let closed = false;
  let told = false;
  let wake: (() => void) | undefined;
  const stop = () => {
    closed = true;
    wake?.();
  };
  gone.addEventListener("abort", stop);
  const unsubscribe = changes?.(x.caller, ns, () => {
    told = true;
    wake?.();
  });
  const seconds = Number(params.get("timeoutSeconds") ?? "0");
  const timer = seconds > 0 ? setTimeout(stop, seconds * 1000) : undefined;
  const write = (type: EventType | "ERROR" | "BOOKMARK", object: unknown) =>
    x.res.write(`${JSON.stringify({ type, object })}\n`);
  let known = new Map<string, KubeObject>();
  // each event is remembered as the state after it: a client resuming from its version misses nothing
  const emit = (type: EventType, obj: KubeObject) => {
    const name = keyOf(obj);
    if (type === "DELETED") known.delete(name);
    else known.set(name, obj);
    const version = String(obj.metadata?.resourceVersion ?? "");
    x.history.remember(scope, version, new Map(known));
    write(type, table ? toTable(x.resource, [obj], { include, resourceVersion: version }) : obj);
  };
  const bookmark = (initialEnd = false) => {
    const version = stateVersion(known);
    x.history.remember(scope, version, new Map(known));
    write("BOOKMARK", {
      kind: x.resource.kind,
      apiVersion: `${x.resource.group}/${x.resource.version}`,
      metadata: {
        resourceVersion: version,
        ...(initialEnd ? { annotations: { "k8s.io/initial-events-end": "true" } } : {}),
      },
    });
  };
  const report = (now: ReadonlyMap<string, KubeObject>) => {
    for (const [name, o] of now) {
      const was = known.get(name);
      if (!was) emit("ADDED", o);
      else if (was.metadata?.resourceVersion !== o.metadata?.resourceVersion) emit("MODIFIED", o);
    }
    for (const [name, o] of [...known]) if (!now.has(name)) emit("DELETED", asDeleted(o));
  };
  try {
    if (gone.aborted) return;
    checkResourceVersion(params.get("resourceVersion") ?? "");
    const first = await list(false);
    x.res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
    x.res.flushHeaders();
    const from = params.get("resourceVersion") ?? "";
    const initial = params.get("sendInitialEvents") === "true";
    const was =
      from === "" || from === "0" || initial
        ? new Map()
        : (x.history.recall(scope, from) ?? (from === stateVersion(first) ? first : undefined));
    if (!was) {
      write("ERROR", statusObject(expired(from)));
      return;
    }
    known = new Map(was);
    report(first);
    if (bookmarks && initial) bookmark(true);
    let nextBookmark = Date.now() + x.opts.watchBookmarkMs;
    while (!closed) {
      if (!told) {
        const waitMs = Math.max(
          0,
          Math.min(x.opts.watchPollMs, bookmarks ? nextBookmark - Date.now() : Number.POSITIVE_INFINITY),
        );
        await new Promise<void>((done) => {
          const poll = setTimeout(done, waitMs);
          wake = () => {
            clearTimeout(poll);
            done();
          };
        });
        wake = undefined;
      }
      if (closed) break;
      if (bookmarks && Date.now() >= nextBookmark) {
        bookmark();
        nextBookmark = Date.now() + x.opts.watchBookmarkMs;
      }
      told = false;
      // told of a change, or its time come: what the server knows, the caller's access checked again
      const now = await list(changes !== undefined);
      if (closed) break;
      report(now);
    }
  } catch (err) {
    // the client went, or the server stops: nothing is left to tell
    if (gone.aborted || closed) return;
    if (!x.res.headersSent) throw err;
    const api =
      err instanceof ApiError ? err : new ApiError("InternalError", String((err as Error)?.message ?? err));
    write("ERROR", statusObject(api));
  } finally {
    unsubscribe?.();
    if (timer) clearTimeout(timer);
    gone.removeEventListener("abort", stop);
    release();
    // a watch refused before its stream began is answered by the handler, with its Status
    if (x.res.headersSent) x.res.end();
  }
}

/** A state's version: its objects' names and versions, as a list's (a watch may resume from it). */
function stateVersion(state: ReadonlyMap<string, KubeObject>): string {
  const h = createHash("sha1");
  for (const [key, o] of [...state].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    h.update(`${key}@${String(o.metadata?.resourceVersion ?? "")}\n`);
  return h.digest("hex").slice(0, 16);
}

/**
 * A watch's `resourceVersion`: none, `0`, or one this server can have given (a list's or a watch's
 * state: 16 hex digits, stateVersion). Anything else is a malformed version, refused 400 as the
 * apiserver refuses one before it watches; a well-formed one the server does not know is 410 (expired).
 */
function checkResourceVersion(from: string): void {
  if (from === "" || from === "0" || /^[0-9a-f]{16}$/.test(from)) return;
  throw new ApiError(
    "BadRequest",
    `resourceVersion ${JSON.stringify(from.slice(0, 64))} is not one this server gives (16 hexadecimal digits, or 0): watch from the resourceVersion of a list`,
  );
}

function expired(from: string): ApiError {
  return new ApiError(
    "Expired",
    `too old resource version: ${from} (this server does not know that state: it keeps the states it answered since it started, the newest 1024; list again and watch from the list's version)`,
  );
}
