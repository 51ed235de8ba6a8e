// Makes the V8 code cache of the CommonJS bundle of `porchlight fn` (dist/bundle/fn.cjs → fn.cjs.cache):
// it renders a small generated package with the bundle, then has V8 write out the bytecode of every
// function that ran. bin/porchlight.js hands the cache to V8 with the bundle's source: V8 compiles
// nothing it finds there. Run by scripts/bundle-cli.mjs, in a process of its own so that nothing else
// is compiled under other flags than a run's (bin/short-run.js).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundle, tuneForShortRun } from "../bin/short-run.js";

const bundle = process.argv[2];
if (!bundle) throw new Error("usage: node scripts/code-cache.mjs BUNDLE.cjs");
tuneForShortRun();
const { exports, script } = loadBundle(bundle);

const work = mkdtempSync(join(tmpdir(), "porchlight-code-cache-"));
try {
  writePackage(work);
  let errors = "";
  const io = {
    stdout: () => {},
    stderr: (text) => {
      errors += text;
    },
    readStdin: async () => "",
    cwd: work,
    env: { ...process.env },
    isTTY: false,
  };
  // Twice: the second run also compiles what a render does only when a file it writes is already there.
  for (let i = 0; i < 2; i++) {
    const code = await exports.main(["fn", "render", work], io);
    if (code !== 0) throw new Error(`the render that makes the code cache failed:\n${errors}`);
  }
  writeFileSync(`${bundle}.cache`, script.createCachedData());
} finally {
  rmSync(work, { recursive: true, force: true });
}

/**
 * A package of the shapes renders meet most: a Kptfile with a subpackage, files of several documents,
 * Deployments, Services and ConfigMaps, comments, block lists and quoted strings.
 */
function writePackage(dir) {
  const kptfile = (name) => `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n`;
  writeFileSync(join(dir, "Kptfile"), kptfile("cache"));
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "sub", "Kptfile"), kptfile("sub"));
  for (let f = 0; f < 6; f++) {
    const docs = [];
    for (let i = f * 6; i < f * 6 + 6; i++) docs.push(resource(i));
    writeFileSync(join(dir, f % 2 ? "sub" : "", `app-${f}.yaml`), `# app ${f}\n${docs.join("---\n")}`);
  }
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
