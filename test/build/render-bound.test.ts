import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
/** A function that does not end within the bound (it sleeps): the command line stops the render. */
const KPTFILE =
  "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: spin\npipeline:\n  mutators:\n  - exec: sleep 20\n";
const CM = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  v: ${"a".repeat(44)}!\n`;

describe("the render bound of the installed command line and app", () => {
  it("fn render past PORCHLIGHT_RENDER_TIMEOUT_MS: the process ends saying why, and no file is written", () => {
    const dir = mkdtempSync(join(tmpdir(), "porchlight-bound-"));
    writeFileSync(join(dir, "Kptfile"), KPTFILE);
    writeFileSync(join(dir, "cm.yaml"), CM);
    const out = spawnSync(
      process.execPath,
      [join(ROOT, "bin", "porchlight.js"), "fn", "render", dir, "--allow-exec"],
      {
        env: { ...process.env, PORCHLIGHT_RENDER_TIMEOUT_MS: "1500" },
        encoding: "utf8",
        timeout: 120_000,
      },
    );
    expect(out.signal).toBe("SIGKILL");
    expect(out.stderr).toContain(
      "porchlight fn render: stopped after 1.5 s: the render took longer than PORCHLIGHT_RENDER_TIMEOUT_MS allows (1500; default 300000), so nothing was written.",
    );
    expect(readFileSync(join(dir, "Kptfile"), "utf8")).toBe(KPTFILE);
    expect(readFileSync(join(dir, "cm.yaml"), "utf8")).toBe(CM);
  });

  it("a bad PORCHLIGHT_RENDER_TIMEOUT_MS is refused, naming it", () => {
    const dir = mkdtempSync(join(tmpdir(), "porchlight-bound-"));
    mkdirSync(join(dir, "p"));
    writeFileSync(join(dir, "p", "Kptfile"), "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n");
    const out = spawnSync(
      process.execPath,
      [join(ROOT, "bin", "porchlight.js"), "fn", "render", join(dir, "p")],
      {
        env: { ...process.env, PORCHLIGHT_RENDER_TIMEOUT_MS: "5s" },
        encoding: "utf8",
      },
    );
    expect(out.status).toBe(2);
    expect(out.stderr).toContain(
      'porchlight fn render: PORCHLIGHT_RENDER_TIMEOUT_MS must be a whole number of milliseconds above 0 (default 300000), not "5s"',
    );
  });

  it("the bundle holds the app's worker thread, beside the chunk that starts it, and it renders", async () => {
    const worker = new Worker(join(ROOT, "dist", "bundle", "bounded-worker.js"), {
      workerData: { env: {}, allow: [] },
    });
    try {
      const messages: unknown[] = [];
      const reply = new Promise<{ ok: boolean; value?: { ok: boolean } }>((resolve, reject) => {
        worker.on("message", (m: { op?: string; id?: number; ok: boolean; value?: { ok: boolean } }) => {
          messages.push(m.op ?? m.id);
          if (m.op === "ready") {
            const kptfile = Buffer.from("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n");
            const tree = {
              paths: ["Kptfile"],
              ends: [kptfile.length],
              bytes: new ArrayBuffer(kptfile.length),
            };
            new Uint8Array(tree.bytes).set(kptfile);
            worker.postMessage({ op: "render", id: 1, tree, options: { runtimes: ["builtin"] } });
          } else if (m.id === 1) resolve(m);
        });
        worker.on("error", reject);
      });
      const answered = await reply;
      expect(messages).toEqual(["ready", 1]);
      expect(answered.ok).toBe(true);
      expect(answered.value?.ok).toBe(true);
    } finally {
      await worker.terminate();
    }
  });
});
