/**
 * The worker thread that does the bot's package work (bounded.ts): a KptRenderer of its own, built from
 * the operator's environment as the app's would be, and the merge and the variants' mutations. It
 * answers one request at a time; the host stops the whole thread when a request runs past its bound.
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { DEFAULT_RUN_OPTIONS } from "../../fn/runtime/types.js";
import type { FileTree } from "../../kpt/tree.js";
import { mergePackage } from "../../merge/index.js";
import { applyVariantMutations } from "../../variants/index.js";
import { kptRendererFromEnv } from "../operator-env.js";
import type { WorkerSetup, WorkReplies, WorkReply, WorkRequest } from "./protocol.js";
import { toWireError } from "./protocol.js";
import { packChanges, packTree, unpackTree } from "./wire.js";

const port = parentPort;
if (!port) throw new Error("bounded-worker.ts runs as a worker thread (jobs/bounded/bounded.ts starts it)");
const setup = workerData as WorkerSetup;
/** Aborted when the host stops this thread's request: the function processes it started are killed. */
const abort = new AbortController();
const renderer = kptRendererFromEnv(setup.env, {
  allow: setup.allow,
  run: { ...DEFAULT_RUN_OPTIONS, signal: abort.signal },
  ...(setup.journalDir ? { journalDir: setup.journalDir } : {}),
});

/** The answer to one request and the buffers it moves back. */
async function answer(request: WorkRequest): Promise<[WorkReplies[WorkRequest["op"]], ArrayBuffer[]]> {
  switch (request.op) {
    case "render": {
      const input = unpackTree(request.tree);
      const { tree, ...rest } = await renderer.render(input, request.options);
      // a render that changed nothing (most pushes) answers without the tree: the host has it; one
      // that wrote files answers with those alone
      if (sameFiles(tree, input)) return [{ ...rest, tree: null }, []];
      const changes = packChanges(tree, input);
      return [{ ...rest, tree: changes }, [changes.written.bytes]];
    }
    case "committed":
      await renderer.committed(unpackTree(request.tree), request.options);
      return [null, []];
    case "settled": {
      const result = await renderer.settled(unpackTree(request.tree), request.options);
      if (!result) return [null, []];
      const { tree: _same, ...rest } = result;
      return [rest, []];
    }
    case "validate": {
      const tree = unpackTree(request.tree);
      const { tree: _same, ...rest } = await renderer.validate(
        tree,
        request.guardrails,
        request.configs,
        request.options,
      );
      return [rest, []];
    }
    case "merge": {
      const result = mergePackage({
        original: unpackTree(request.original),
        updated: unpackTree(request.updated),
        local: unpackTree(request.local),
        ...(request.strategy ? { strategy: request.strategy } : {}),
        ...(request.lock ? { lock: request.lock } : {}),
      });
      const wire = packTree(result.tree);
      return [{ tree: wire, conflicts: result.conflicts, changes: result.changes }, [wire.bytes]];
    }
    case "mutate":
      return [applyVariantMutations(request.files, request.variant, request.injectable, request.options), []];
  }
}

/** Whether two trees hold the same paths in the same order, each with the same bytes. */
function sameFiles(a: FileTree, b: FileTree): boolean {
  if (a.size !== b.size) return false;
  const other = b.entries();
  for (const [path, bytes] of a) {
    const next = other.next();
    if (next.done || next.value[0] !== path) return false;
    if (next.value[1] !== bytes && !next.value[1].equals(bytes)) return false;
  }
  return true;
}

/**
 * Answers the host's requests, one at a time. An abort (the host gave up on this thread) kills the
 * functions' processes (their own process groups) and ends the thread once the request in flight has
 * seen them exit, so they are reaped, not left as zombies.
 */
function serve(on: MessagePort): void {
  let inFlight: Promise<unknown> | undefined;
  on.on("message", (message: (WorkRequest & { id: number }) | { op: "abort" }) => {
    if (message.op === "abort") {
      abort.abort();
      void (inFlight ?? Promise.resolve()).finally(() => process.exit(0));
      return;
    }
    inFlight = answer(message).then(
      ([value, transfer]) =>
        on.postMessage({ id: message.id, ok: true, value } satisfies WorkReply, transfer),
      (e: unknown) =>
        on.postMessage({ id: message.id, ok: false, error: toWireError(e) } satisfies WorkReply),
    );
  });
}

serve(port);

// loaded: requests may come (the host's bound on each starts now)
port.postMessage({ op: "ready" });
// What earlier renderers kept (a restarted app's journal) is read back now, while the thread is idle,
// not by the first render that comes (a request already posted is answered after it: one thread).
setImmediate(() => renderer.restore());
