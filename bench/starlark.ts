import { performance } from "node:perf_hooks";
import { type Document, parseDocument } from "yaml";
import { setLabels } from "../src/fn/builtins/set-labels.js";
import { starlarkFunction } from "../src/fn/starlark/index.js";
import type { ResourceList } from "../src/fn/types.js";

const N = 1000;
const RUNS = 5;

const SCRIPT = `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: set-label
params:
  key: app.kubernetes.io/part-of
  value: bench
source: |
  params = ctx.resource_list["functionConfig"]["params"]
  for r in ctx.resource_list["items"]:
    md = r["metadata"]
    if "labels" not in md:
      md["labels"] = {}
    md["labels"][params["key"]] = params["value"]
`;

const SET_LABELS = `apiVersion: fn.kpt.dev/v1alpha1
kind: SetLabels
metadata:
  name: set-label
labels:
  app.kubernetes.io/part-of: bench
`;

function resources(): Document[] {
  const docs: Document[] = [];
  for (let i = 0; i < N; i++) {
    docs.push(
      parseDocument(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-${i} # the app
  annotations:
    config.kubernetes.io/path: app-${i}.yaml
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: app
          image: registry.example.com/app:${i}
          ports:
            - containerPort: 8080
`),
    );
  }
  return docs;
}

async function time(
  name: string,
  fnConfig: string,
  run: (rl: ResourceList) => unknown,
): Promise<{ name: string; ms: number }> {
  const rl: ResourceList = { items: resources(), functionConfig: parseDocument(fnConfig), results: [] };
  const start = performance.now();
  await run(rl);
  return { name, ms: Math.round((performance.now() - start) * 10) / 10 };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function measure(name: string, fnConfig: string, run: (rl: ResourceList) => unknown): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) runs.push((await time(name, fnConfig, run)).ms);
  return median(runs);
}

export interface StarlarkBenchRow {
  name: string;
  ms: number;
  /** Time relative to the set-labels builtin on the same input. */
  ratio: number;
}

/**
 * A 1,000-resource package through a starlark script that sets a label, next to the set-labels builtin
 * (median of RUNS runs each, after a warm-up); the last row is the ratio starlark / set-labels.
 */
export async function benchStarlark(): Promise<StarlarkBenchRow[]> {
  // warm up both paths once so the numbers compare steady-state code
  await time("warmup", SCRIPT, (rl) => starlarkFunction.run(rl, {}));
  await time("warmup", SET_LABELS, (rl) => setLabels.run(rl, {}));
  const star = await measure("starlark", SCRIPT, (rl) => starlarkFunction.run(rl, {}));
  const builtin = await measure("set-labels", SET_LABELS, (rl) => setLabels.run(rl, {}));
  const ratio = Math.round((star / builtin) * 100) / 100;
  return [
    { name: `starlark set label (${N} resources)`, ms: star, ratio },
    { name: `set-labels builtin (${N} resources)`, ms: builtin, ratio: 1 },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await benchStarlark();
  for (const r of rows) console.log(`${r.name}: ${r.ms} ms`);
  console.log(`ratio starlark / set-labels: ${rows[0]!.ratio}x`);
}
