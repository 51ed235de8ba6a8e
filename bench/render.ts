import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { defaultRegistry } from "../src/fn/registry.js";
import { DEFAULT_RUN_OPTIONS } from "../src/fn/runtime/types.js";
import { render } from "../src/render/render.js";
import { generatePackage } from "./render-package.js";

/** The five functions of the benchmark pipeline, with the config each gets. */
const PIPELINE = [
  { name: "set-namespace", config: "namespace: bench" },
  { name: "set-labels", config: "team: platform\n        tier: web" },
  { name: "set-annotations", config: "owner: bench-team" },
  { name: "apply-setters", config: 'replicas: "3"' },
  { name: "set-image", config: "name: registry.example.com/app\n        newTag: 2.0.0" },
];

export interface RenderBenchRow {
  resources: number;
  floorMs: number;
  renderMs: number;
  kptNoopMs?: number;
}

/**
 * `porchlight fn render` speed: per package size, the render with the five-function pipeline of
 * builtins against the floor (the same package read, parsed and serialised with no function), and
 * against `kpt fn render` of the same package with five no-op exec functions.
 */
export async function benchRender(sizes = [100, 1000, 10000], withKpt = true): Promise<RenderBenchRow[]> {
  const registry = defaultRegistry();
  const present = PIPELINE.filter((f) => registry.find(f.name));
  const missing = PIPELINE.filter((f) => !registry.find(f.name)).map((f) => f.name);
  console.log(`render: pipeline of ${present.map((f) => f.name).join(", ")}`);
  if (missing.length > 0) console.log(`render: builtins missing (left out): ${missing.join(", ")}`);
  const pipeline = `pipeline:\n  mutators:\n${present
    .map((f) => `  - image: gcr.io/kpt-fn/${f.name}:latest\n    configMap:\n        ${f.config}\n`)
    .join("")}`;
  const env = { registry, run: DEFAULT_RUN_OPTIONS, rootDir: "/bench" };
  const rows: RenderBenchRow[] = [];
  for (const n of sizes) {
    const repeats = n >= 10000 ? 3 : 5;
    const [floorMs, renderMs] = await medians(repeats, [
      async () => check(await render(generatePackage(n, ""), "", env)),
      async () => check(await render(generatePackage(n, pipeline), "", env)),
    ]);
    const row: RenderBenchRow = { resources: n, floorMs: floorMs ?? 0, renderMs: renderMs ?? 0 };
    if (withKpt && hasKpt()) row.kptNoopMs = kptNoop(n);
    rows.push(row);
    printRow(row);
  }
  return rows;
}

function check(r: { ok: boolean; error?: { message: string } }): void {
  if (!r.ok) throw new Error(r.error?.message);
}

/**
 * Median time of each run, the runs interleaved (so a busy machine slows all of them alike); generating
 * the package is part of each run, equally, and small next to parsing it.
 */
async function medians(repeats: number, runs: (() => Promise<void>)[]): Promise<number[]> {
  const times: number[][] = runs.map(() => []);
  for (const run of runs) await run(); // warm-up
  for (let i = 0; i < repeats; i++) {
    for (const [j, run] of runs.entries()) {
      const start = performance.now();
      await run();
      times[j]!.push(performance.now() - start);
    }
  }
  return times.map((t) => t.sort((a, b) => a - b)[Math.floor(t.length / 2)]!);
}

function printRow(r: RenderBenchRow): void {
  const per = (ms: number) => `${((ms * 1000) / r.resources).toFixed(1)} µs/resource`;
  let line =
    `render ${String(r.resources).padStart(6)} resources: floor ${r.floorMs.toFixed(0)} ms (${per(r.floorMs)}), ` +
    `5-fn render ${r.renderMs.toFixed(0)} ms (${per(r.renderMs)}), ratio ${(r.renderMs / r.floorMs).toFixed(2)}x floor`;
  if (r.kptNoopMs !== undefined) {
    line += `; kpt (5 no-op exec fns) ${r.kptNoopMs.toFixed(0)} ms, porchlight/kpt ${(r.renderMs / r.kptNoopMs).toFixed(3)}`;
  }
  console.log(line);
}

function hasKpt(): boolean {
  return spawnSync("kpt", ["version"], { stdio: "ignore" }).status === 0;
}

/** kpt fn render of the same package with five `cat` exec functions, timed once, wall clock. */
function kptNoop(n: number): number {
  const dir = mkdtempSync(join(tmpdir(), "porchlight-bench-"));
  try {
    const cat = join(dir, "cat.sh");
    writeFileSync(cat, "#!/bin/sh\ncat\n", { mode: 0o755 });
    const pipeline = `pipeline:\n  mutators:\n${`  - exec: ${cat}\n`.repeat(5)}`;
    const pkg = join(dir, "pkg");
    for (const [path, bytes] of generatePackage(n, pipeline)) {
      mkdirSync(dirname(join(pkg, path)), { recursive: true });
      writeFileSync(join(pkg, path), bytes);
    }
    const start = performance.now();
    const r = spawnSync("kpt", ["fn", "render", pkg, "--allow-exec"], { stdio: "ignore" });
    const ms = performance.now() - start;
    if (r.status !== 0) throw new Error(`kpt fn render failed on the ${n}-resource package`);
    return ms;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
