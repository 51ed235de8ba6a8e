import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Rendered, RenderMode } from "./bounded-render.js";

const KPTFILE = (name: string) => `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n`;
const PREFIX: Record<RenderMode, string> = { none: "n", cat: "c" };

/** One file rendered in one mode. */
export interface Job {
  index: number;
  mode: RenderMode;
}

/** The key of a job in kptRenders' answer: its subpackage's name. */
export function jobKey({ index, mode }: Job): string {
  return `${PREFIX[mode]}${index}`;
}

/** `kpt fn render DIR --allow-exec`: its exit code and stderr (stdout, a line per package, is not kept). */
function kptRender(dir: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("kpt", ["fn", "render", dir, "--allow-exec"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

/**
 * What kpt makes of each job: every file a subpackage of one root (`n<i>` with no function, `c<i>`
 * through `exec: cat`, the executable `cat`), rendered by one `kpt fn render`. kpt stops at the first
 * package it refuses and writes nothing, naming the package: that one is counted refused, taken out, and
 * the rest rendered again (a refusal that names no package splits the jobs in halves).
 */
export async function kptRenders(
  files: readonly string[],
  jobs: readonly Job[],
  dir: string,
  cat: string,
): Promise<Map<string, Rendered>> {
  const out = new Map<string, Rendered>();
  const run = async (batch: readonly Job[], at: string): Promise<void> => {
    if (batch.length === 0) return;
    mkdirSync(at, { recursive: true });
    writeFileSync(join(at, "Kptfile"), KPTFILE("root"));
    for (const job of batch) {
      const sub = join(at, jobKey(job));
      mkdirSync(sub);
      const pipeline = job.mode === "cat" ? `pipeline:\n  mutators:\n  - exec: ${cat}\n` : "";
      writeFileSync(join(sub, "Kptfile"), KPTFILE(jobKey(job)) + pipeline);
      writeFileSync(join(sub, "f.yaml"), files[job.index] as string);
    }
    let left = [...batch];
    while (left.length > 0) {
      const r = await kptRender(at);
      if (r.code === 0) break;
      const named = new Set([...r.stderr.matchAll(/\/([nc]\d+)\/(?:f\.yaml|Kptfile)\b/g)].map((m) => m[1]));
      const refused = left.length === 1 ? left : left.filter((j) => named.has(jobKey(j)));
      if (refused.length === 0) {
        rmSync(at, { recursive: true, force: true });
        const half = Math.ceil(left.length / 2);
        await run(left.slice(0, half), `${at}a`);
        await run(left.slice(half), `${at}b`);
        return;
      }
      const error = r.stderr.trim().split("\n").pop() ?? "";
      for (const job of refused) {
        out.set(jobKey(job), { ok: false, error });
        rmSync(join(at, jobKey(job)), { recursive: true, force: true });
      }
      left = left.filter((j) => !refused.includes(j));
    }
    for (const job of left) {
      let text: string | undefined;
      try {
        text = readFileSync(join(at, jobKey(job), "f.yaml"), "utf8");
      } catch {
        text = undefined; // kpt deleted the file
      }
      out.set(jobKey(job), { ok: true, text });
    }
    rmSync(at, { recursive: true, force: true });
  };
  await run(jobs, dir);
  return out;
}
