import { performance } from "node:perf_hooks";
import { type Document, parseDocument } from "yaml";
import { setLabels } from "../src/fn/builtins/set-labels.js";
import { starlarkFunction } from "../src/fn/starlark/index.js";
import type { ResourceList } from "../src/fn/types.js";

const N = 1000;

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

/** A 1,000-resource package through a starlark script that sets a label, next to the set-labels builtin. */
export async function benchStarlark(): Promise<{ name: string; ms: number }[]> {
  // warm up both paths once so the numbers compare steady-state code
  await time("warmup", SCRIPT, (rl) => starlarkFunction.run(rl, {}));
  await time("warmup", SET_LABELS, (rl) => setLabels.run(rl, {}));
  return [
    await time(`starlark set label (${N} resources)`, SCRIPT, (rl) => starlarkFunction.run(rl, {})),
    await time(`set-labels builtin (${N} resources)`, SET_LABELS, (rl) => setLabels.run(rl, {})),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchStarlark()) console.log(`${r.name}: ${r.ms} ms`);
}
