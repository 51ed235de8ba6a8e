// Makes the V8 code cache of the CommonJS bundle of `porchlight fn` (dist/bundle/fn.cjs → fn.cjs.cache):
// it renders a small generated package with the bundle, then has V8 write out the bytecode of every
// function that ran. bin/porchlight.js hands the cache to V8 with the bundle's source: V8 compiles
// nothing it finds there. Run by scripts/bundle-cli.mjs, in a process of its own so that nothing else
// is compiled under other flags than a run's (bin/short-run.js).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundle, tuneForShortRun } from "../bin/short-run.js";
import { runForCache } from "./cache-run.mjs";

/** The builtins most pipelines run, with a config each. */
const PIPELINE = `pipeline:
  mutators:
  - image: gcr.io/kpt-fn/set-namespace:latest
    configMap:
      namespace: cache
  - image: gcr.io/kpt-fn/set-labels:latest
    configMap:
      team: platform
  - image: gcr.io/kpt-fn/set-annotations:latest
    configMap:
      owner: cache-team
  - image: gcr.io/kpt-fn/apply-setters:latest
    configMap:
      replicas: "3"
  - image: gcr.io/kpt-fn/set-image:latest
    configMap:
      name: registry.example.com/app
      newTag: 2.0.0
`;

const bundle = process.argv[2];
if (!bundle) throw new Error("usage: node scripts/code-cache.mjs BUNDLE.cjs");
tuneForShortRun();
const { exports, script } = loadBundle(bundle);

const work = mkdtempSync(join(tmpdir(), "porchlight-code-cache-"));
try {
  writePackage(work);
  // Without a function, then with the builtins most pipelines run; each twice: the second run also
  // compiles what a render does only when a file it writes is already there. Caching the builtins'
  // code costs a render without functions nothing measurable (0.38 s CPU at 1,000 resources either
  // way) and saves the benchmark's 5-builtin render some 0.05 s of its 0.8.
  for (const pipeline of ["", PIPELINE]) {
    writeFileSync(join(work, "Kptfile"), kptfile("cache", pipeline));
    for (let i = 0; i < 2; i++) {
      await runForCache(exports.main, ["fn", "render", work], work, { ...process.env });
    }
  }
  writeFileSync(`${bundle}.cache`, script.createCachedData());
} finally {
  rmSync(work, { recursive: true, force: true });
}

/**
 * A package of the shapes renders meet most (its root Kptfile is written for each render): a subpackage,
 * files of several documents, Deployments, Services and ConfigMaps, comments, block lists and quoted
 * strings.
 */
function writePackage(dir) {
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "sub", "Kptfile"), kptfile("sub"));
  for (let f = 0; f < 6; f++) {
    const docs = [];
    for (let i = f * 6; i < f * 6 + 6; i++) docs.push(resource(i));
    writeFileSync(join(dir, f % 2 ? "sub" : "", `app-${f}.yaml`), `# app ${f}\n${docs.join("---\n")}`);
  }
}

function kptfile(name, pipeline = "") {
  return `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${pipeline}`;
}

function resource(i) {
  const name = `app-${i}`;
  if (i % 3 === 0) {
    return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  labels:
    app: ${name}
spec:
  replicas: 2 # kpt-set: \${replicas}
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      containers:
      - name: app
        image: "registry.example.com/app:1.${i}"
        args: ["--port", "8080"]
        ports:
        - containerPort: 8080
        env:
        - name: MODE
          value: 'production'
`;
  }
  if (i % 3 === 1) {
    return `apiVersion: v1
kind: Service
metadata:
  name: ${name}
spec:
  selector:
    app: ${name}
  ports:
  - port: 80
    targetPort: 8080
`;
  }
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
data:
  key: value-${i}
  multi: |
    line one
    line two
`;
}
