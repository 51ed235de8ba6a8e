/**
 * A child process (bounded-render.ts starts it, through tsx) that renders files with porchlight, off
 * the test's thread so that a render that never returns can be stopped: it gets `{ files }`, renders
 * each file alone in a package — with no function, then through `exec: cat` — and sends one message
 * per render as it finishes, so the parent knows which file a render that passes its budget was on.
 *
 * `exec: cat` runs in-process: the exec runner's own path with the process left out (its input list
 * written as a process gets it, read back by processResult as a process's stdout), as `cat` would hand
 * it back, so thousands of files take seconds, not a process each.
 */
import { defaultRegistry } from "../../src/fn/registry.js";
import { processResult } from "../../src/fn/runtime/exec.js";
import { DEFAULT_RUN_OPTIONS, type FunctionRunner } from "../../src/fn/runtime/types.js";
import { writeResourceList } from "../../src/fn/runtime/wire.js";
import { treeFromText, treeToText } from "../../src/kpt/tree.js";
import { render } from "../../src/render/render.js";
import type { RenderMode, WorkerMessage } from "./bounded-render.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n";
const CAT_KPTFILE = `${KPTFILE}pipeline:\n  mutators:\n  - exec: cat\n`;

const registry = defaultRegistry();
const cat: FunctionRunner = {
  kind: "exec",
  run: async (fn, input) =>
    processResult(fn.exec ?? "cat", { stdout: writeResourceList(input), stderr: "", exitCode: 0 }),
};

async function renderOne(text: string, mode: RenderMode) {
  const tree = treeFromText({ Kptfile: mode === "none" ? KPTFILE : CAT_KPTFILE, "f.yaml": text });
  const out = await render(tree, "", {
    registry,
    run: DEFAULT_RUN_OPTIONS,
    allowExec: true,
    rootDir: "/porchlight-property/p",
    runners: { exec: cat },
  });
  if (!out.ok) return { ok: false as const, error: out.error?.message ?? "failed" };
  // a file the render deleted reads as undefined
  return { ok: true as const, text: treeToText(out.tree)["f.yaml"] };
}

function send(message: WorkerMessage): Promise<void> {
  return new Promise((resolve, reject) =>
    process.send?.(message, undefined, {}, (e) => (e ? reject(e) : resolve())),
  );
}

process.on("message", async (message: { files: string[]; modes: RenderMode[] }) => {
  for (const [index, text] of message.files.entries()) {
    for (const mode of message.modes) {
      const outcome = await renderOne(text, mode).catch((e: unknown) => ({
        ok: false as const,
        error: `threw: ${e instanceof Error ? e.stack : String(e)}`,
      }));
      await send({ index, mode, outcome });
    }
  }
  process.disconnect();
});

await send({ ready: true });
