import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { WorkerStopped, WorkTookTooLong } from "./errors.js";
import type { WorkerSetup, WorkReplies, WorkReply, WorkRequest } from "./protocol.js";
import { fromWireError } from "./protocol.js";

/** How the app bounds its package work (PORCHLIGHT_RENDER_*): see packageWorkFromEnv. */
export interface PackageWorkSettings {
  /** A request running longer is stopped: its worker thread is ended, a new one takes the next. */
  timeoutMs: number;
  /** Worker threads: requests of different packages run at once up to this many. */
  workers: number;
  /** A worker's JavaScript heap, in MiB: past it the worker ends (out of memory), not the app. */
  memoryMb: number;
}

/** How long a new thread may take to load its modules (the bundle: a fraction of a second). */
const START_TIMEOUT_MS = 60_000;
/** How long a thread past its bound has to kill its functions' processes before it is ended. */
const ABORT_GRACE_MS = 2000;

export const DEFAULT_PACKAGE_WORK: PackageWorkSettings = { timeoutMs: 300_000, workers: 2, memoryMb: 4096 };

/** A worker thread, and when it has loaded its modules and takes requests (it says so). */
interface Thread {
  worker: Worker;
  ready: Promise<void>;
}

interface Slot {
  thread?: Thread;
  busy: boolean;
  /** The last request's key: a package's next request goes to the thread that keeps its caches. */
  key?: string;
}

/**
 * Package work (renders, guardrails, merges, variants' mutations) done in worker threads, each request
 * within a deadline: past it the thread is ended — terminate() stops JavaScript in any loop — and the
 * request fails with WorkTookTooLong, while the app's own thread goes on serving. A thread that runs
 * out of memory or crashes fails its request with WorkerStopped. Threads start when first needed and do
 * not keep the process alive while idle; requests wait for a free thread, preferring the one that
 * served the same key last (its renderer keeps that package's parses and renders).
 */
export class BoundedWork {
  private readonly slots: Slot[];
  private readonly waiting: { key: string | undefined; take: (slot: Slot) => void }[] = [];
  private nextId = 0;
  private closed = false;

  /**
   * `script`: the worker module (default: porchlight's own, bounded-worker); another speaks the same
   * protocol, as a test's thread that never answers does.
   */
  constructor(
    private readonly settings: PackageWorkSettings,
    private readonly setup: WorkerSetup,
    private readonly script: WorkerScript = workerScript(),
  ) {
    this.slots = Array.from({ length: Math.max(1, settings.workers) }, () => ({ busy: false }));
  }

  get timeoutMs(): number {
    return this.settings.timeoutMs;
  }

  /** Runs one request on a worker thread; `what` names it in a WorkTookTooLong ("rendering the package"). */
  async run<Op extends WorkRequest["op"]>(
    request: Extract<WorkRequest, { op: Op }>,
    transfer: ArrayBuffer[],
    what: string,
    key?: string,
  ): Promise<WorkReplies[Op]> {
    const slot = await this.acquire(key);
    try {
      return (await this.runOn(slot, request, transfer, what)) as WorkReplies[Op];
    } finally {
      this.release(slot, key);
    }
  }

  /**
   * Starts every worker thread now, idle, rather than at the first requests: each loads its modules
   * and reads back the renderers' journal while nothing waits on it (a server's start, after it
   * listens). A thread that fails to start fails the request that waits on it, as one started then.
   */
  start(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (slot.thread) continue;
      const thread = this.spawn();
      // the request that takes this thread awaits `ready` and says why it did not start
      thread.ready.catch(() => undefined);
      slot.thread = thread;
    }
  }

  /**
   * Ends every worker thread; later requests fail, and a request still running fails with
   * WorkerStopped (a stop that abandoned its jobs). Each thread is first told to abort: it kills its
   * functions' processes (their process groups), so none outlives the app, and ends; one that has not
   * ended within ABORT_GRACE_MS is terminated.
   */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.slots.map(async (s) => {
        const thread = s.thread;
        if (!thread) return;
        const exited = new Promise<void>((resolve) => thread.worker.once("exit", () => resolve()));
        thread.worker.postMessage({ op: "abort" });
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          exited,
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, ABORT_GRACE_MS);
          }),
        ]);
        clearTimeout(timer);
        await thread.worker.terminate();
      }),
    );
    for (const s of this.slots) s.thread = undefined;
  }

  private acquire(key: string | undefined): Promise<Slot> {
    if (this.closed) return Promise.reject(new Error("package work: the app is shutting down"));
    const free = this.slots.filter((s) => !s.busy);
    const slot = free.find((s) => key !== undefined && s.key === key) ?? free.find((s) => !s.key) ?? free[0];
    if (slot) {
      slot.busy = true;
      return Promise.resolve(slot);
    }
    return new Promise((take) => this.waiting.push({ key, take }));
  }

  private release(slot: Slot, key: string | undefined): void {
    slot.key = key;
    const i = Math.max(
      0,
      this.waiting.findIndex((w) => w.key !== undefined && w.key === key),
    );
    const next = this.waiting.splice(i, 1)[0];
    if (next) next.take(slot);
    else slot.busy = false;
  }

  private async runOn(
    slot: Slot,
    request: WorkRequest,
    transfer: ArrayBuffer[],
    what: string,
  ): Promise<unknown> {
    slot.thread ??= this.spawn();
    const thread = slot.thread;
    try {
      // the bound is the request's own: a thread's start (loading its modules) is not counted
      await thread.ready;
    } catch (e) {
      if (slot.thread === thread) slot.thread = undefined;
      void thread.worker.terminate();
      throw new WorkerStopped(
        what,
        `its worker thread did not start: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    const { worker } = thread;
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const forget = () => {
        if (slot.thread === thread) slot.thread = undefined;
      };
      const lost = (error: Error) => {
        done();
        forget();
        void worker.terminate();
        reject(error);
      };
      const late = () => {
        done();
        forget();
        // A thread waiting on a function's process kills it and ends; one stuck in a loop is ended.
        worker.postMessage({ op: "abort" });
        setTimeout(() => void worker.terminate(), ABORT_GRACE_MS).unref();
        reject(new WorkTookTooLong(what, this.settings.timeoutMs));
      };
      const timer = setTimeout(late, this.settings.timeoutMs);
      const onMessage = (reply: WorkReply) => {
        if (reply.id !== id) return;
        done();
        if (reply.ok) resolve(reply.value);
        else reject(fromWireError(reply.error));
      };
      const onError = (e: Error) =>
        lost(
          new WorkerStopped(
            what,
            "code" in e && e.code === "ERR_WORKER_OUT_OF_MEMORY"
              ? `it used more than ${this.settings.memoryMb} MiB (PORCHLIGHT_RENDER_MEMORY_MB)`
              : e.message,
          ),
        );
      const onExit = (code: number) =>
        lost(new WorkerStopped(what, `its worker thread exited (code ${code})`));
      const done = () => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
      };
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
      worker.postMessage({ ...request, id }, transfer);
    });
  }

  private spawn(): Thread {
    const options = {
      workerData: this.setup,
      resourceLimits: { maxOldGenerationSizeMb: this.settings.memoryMb },
    };
    const script = this.script;
    const worker =
      script.kind === "built"
        ? new Worker(script.url, options)
        : new Worker(script.boot, { ...options, eval: true });
    worker.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => stop(new Error(`not ready after ${START_TIMEOUT_MS / 1000} s`)),
        START_TIMEOUT_MS,
      );
      const onMessage = (m: unknown) => {
        if (typeof m === "object" && m !== null && "op" in m && m.op === "ready") stop();
      };
      const onError = (e: Error) => stop(e);
      const onExit = (code: number) => stop(new Error(`it exited (code ${code})`));
      const stop = (e?: Error) => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        if (e) reject(e);
        else resolve();
      };
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
    });
    return { worker, ready };
  }
}

/**
 * The worker's script: built, it is beside this module (tsc's dist/jobs/bounded/) or in the command
 * line's bundle (dist/bundle/bounded-worker.js, scripts/bundle-cli.mjs); from the sources (the tests,
 * tsx), the TypeScript file, loaded through tsx's loader.
 */
type WorkerScript = { kind: "built"; url: URL } | { kind: "source"; boot: string };

function workerScript(): WorkerScript {
  const built = new URL("./bounded-worker.js", import.meta.url);
  if (existsSync(fileURLToPath(built))) return { kind: "built", url: built };
  const source = new URL("./bounded-worker.ts", import.meta.url);
  const tsx = import.meta.resolve("tsx/esm/api");
  return {
    kind: "source",
    boot: `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(source.href)}); });`,
  };
}
