import type { KubeObject } from "./resources.js";
import { ApiError, statusObject } from "./status.js";
import type { ListOptions } from "./store.js";
import { includeObjectOf, toTable, wantsTable } from "./table.js";
import { listVersion, type ObjectRequest } from "./verbs.js";

/**
 * `watch=true`: a stream of ADDED, MODIFIED and DELETED events, one JSON object a line. The state is read
 * again every `watchPollMs` and compared by each object's resourceVersion (its git state), so a change
 * made by a `git push`, a pull request merged on GitHub or the bot shows as one made through the API.
 * A watch from the version a list gave starts there; one from another version (a change came between)
 * first reports every object as MODIFIED, so none is missed; from "" or "0", every object as ADDED.
 */
type EventType = "ADDED" | "MODIFIED" | "DELETED";

export async function watchObjects(x: ObjectRequest, ns: string, opts: ListOptions): Promise<void> {
  const params = x.url.searchParams;
  const store = x.store;
  const list = () => (store.list ? store.list(x.caller, ns, opts) : Promise.resolve([]));
  const table = wantsTable(x.req.headers.accept);
  const include = includeObjectOf(params.get("includeObject"));
  let closed = false;
  let wake: (() => void) | undefined;
  const stop = () => {
    closed = true;
    wake?.();
  };
  x.req.on("close", stop);
  const seconds = Number(params.get("timeoutSeconds") ?? "0");
  const timer = seconds > 0 ? setTimeout(stop, seconds * 1000) : undefined;
  const emit = (type: EventType, obj: KubeObject) => {
    const object = table
      ? toTable(x.resource, [obj], { include, resourceVersion: String(obj.metadata?.resourceVersion ?? "") })
      : obj;
    x.res.write(`${JSON.stringify({ type, object })}\n`);
  };
  try {
    let known = byName(await list());
    x.res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
    x.res.flushHeaders();
    const from = params.get("resourceVersion") ?? "";
    if (from === "" || from === "0") for (const o of known.values()) emit("ADDED", o);
    else if (from !== listVersion([...known.values()])) for (const o of known.values()) emit("MODIFIED", o);
    while (!closed) {
      await new Promise<void>((done) => {
        wake = done;
        setTimeout(done, x.opts.watchPollMs);
      });
      if (closed) break;
      const now = byName(await list());
      for (const [name, o] of now) {
        const was = known.get(name);
        if (!was) emit("ADDED", o);
        else if (was.metadata?.resourceVersion !== o.metadata?.resourceVersion) emit("MODIFIED", o);
      }
      for (const [name, o] of known) if (!now.has(name)) emit("DELETED", o);
      known = now;
    }
  } catch (err) {
    if (!x.res.headersSent) throw err;
    const api =
      err instanceof ApiError ? err : new ApiError("InternalError", String((err as Error)?.message ?? err));
    x.res.write(`${JSON.stringify({ type: "ERROR", object: statusObject(api) })}\n`);
  } finally {
    if (timer) clearTimeout(timer);
    x.req.off("close", stop);
    x.res.end();
  }
}

function byName(objects: readonly KubeObject[]): Map<string, KubeObject> {
  return new Map(objects.map((o) => [String(o.metadata?.name), o]));
}
