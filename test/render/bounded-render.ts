import { fork } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** How a file is rendered: with no function, or through `exec: cat`. */
export type RenderMode = "none" | "cat";

/** What porchlight made of a file: its bytes after the render (undefined: deleted), or its refusal. */
export type Rendered = { ok: true; text: string | undefined } | { ok: false; error: string };

/** What render-worker.ts sends: ready once loaded, then each render's outcome as it finishes. */
export type WorkerMessage = { ready: true } | { index: number; mode: RenderMode; outcome: Rendered };

export type BoundedRenders =
  | { kind: "done"; rendered: Record<RenderMode, Rendered[]> }
  | { kind: "hung"; index: number; mode: RenderMode; budgetMs: number };

const WORKER = join(import.meta.dirname, "render-worker.ts");
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/**
 * Renders each of `files` with porchlight in `modes`, in a child process: each render has `budgetMs`
 * to finish (loading the worker has `startMs`), else the child is killed and the answer names the file
 * it was on. A loop in a render can then fail a test, never freeze it.
 */
export function boundedRenders(
  files: readonly string[],
  modes: readonly RenderMode[],
  { budgetMs, startMs }: { budgetMs: number; startMs: number },
): Promise<BoundedRenders> {
  const rendered: Record<RenderMode, Rendered[]> = { none: [], cat: [] };
  const child = fork(WORKER, [], {
    execArgv: ["--import", TSX],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    let next = { index: 0, mode: modes[0] ?? "none" };
    let timer: NodeJS.Timeout | undefined;
    const arm = (ms: number, onTimeout: () => void) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        child.kill("SIGKILL");
        onTimeout();
      }, ms);
    };
    arm(startMs, () => reject(new Error(`the render worker did not start within ${startMs} ms`)));
    child.on("message", (message: WorkerMessage) => {
      if ("ready" in message) {
        child.send({ files, modes });
      } else {
        rendered[message.mode][message.index] = message.outcome;
        const m = modes.indexOf(message.mode) + 1;
        next =
          m < modes.length
            ? { index: message.index, mode: modes[m] as RenderMode }
            : { index: message.index + 1, mode: modes[0] as RenderMode };
      }
      if (next.index >= files.length) return;
      arm(budgetMs, () => resolve({ kind: "hung", ...next, budgetMs }));
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL") return;
      clearTimeout(timer);
      if (next.index >= files.length) resolve({ kind: "done", rendered });
      else reject(new Error(`the render worker ended (${code ?? signal}) before file ${next.index}`));
    });
  });
}
