import { beforeAll, describe, expect, it } from "vitest";
import { testSize } from "../util/test-size.js";
import { classify, explain } from "./gen/compare.js";
import { DEVIATIONS, OPEN } from "./gen/open.js";
import { describeCase, generateCase } from "./gen/triples.js";
import { generateTriple } from "./generate.js";
import { type CaseOutcome, kptAvailable, runBatch, runBoth, type Triple } from "./kpt-oracle.js";

const HAVE_KPT = kptAvailable();

const DEPLOY = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
  labels:
    app: web
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: web
        image: nginx:1.0
        ports:
        - containerPort: 80
`;

const SVC = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
    - port: 80
`;

const edit = (file: string, f: (s: string) => string) => (m: Map<string, string>) => {
  const out = new Map(m);
  out.set(file, f(out.get(file) ?? ""));
  return out;
};

const HAND: Record<string, Triple> = {
  "upstream and local edit different fields, lists merge by key": {
    original: { "deploy.yaml": `${DEPLOY}---\n${SVC}`, "README.md": "hello\n" },
    updated: {
      "deploy.yaml": `${DEPLOY.replace("image: nginx:1.0", "image: nginx:2.0\n        env:\n        - name: A\n          value: a").replace("replicas: 1", "replicas: 1\n  strategy:\n    type: Recreate")}---\n${SVC}    - port: 443\n`,
      "README.md": "hello\nworld\n",
      "new.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new\ndata:\n  x: y\n",
    },
    edit: edit("deploy.yaml", (s) =>
      s
        .replace("replicas: 1", "replicas: 3 # mine")
        .replace("    app: web\n", "    app: web\n    team: a\n")
        .replace(
          "        - containerPort: 80\n",
          "        - containerPort: 80\n        - containerPort: 9090\n",
        )
        .replace("      - name: web\n", "      - name: web\n        args: [x]\n"),
    ),
  },
  "resource removed upstream, one changed locally": {
    original: { "a.yaml": SVC, "b.yaml": SVC.replace(/web/g, "b"), "c.yaml": SVC.replace(/web/g, "c") },
    updated: { "a.yaml": SVC },
    edit: edit("b.yaml", (s) => s.replace("port: 80", "port: 81")),
  },
  "container removed upstream and added locally": {
    original: { "d.yaml": `${DEPLOY}      - name: side\n        image: side:1\n` },
    updated: { "d.yaml": DEPLOY },
    edit: edit("d.yaml", (s) => `${s}      - name: mine\n        image: mine:1\n`),
  },
  "resource renamed locally with a prefix": {
    original: { "d.yaml": DEPLOY },
    updated: { "d.yaml": DEPLOY.replace("nginx:1.0", "nginx:1.1") },
    edit: edit("d.yaml", (s) =>
      s.replace("  name: web\n  namespace: prod", "  name: dev-web\n  namespace: dev"),
    ),
  },
  "subpackage changed on both sides": {
    original: {
      Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: up\ninfo:\n  description: d\n",
      "sub/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub\n",
      "sub/cm.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: "1"\n',
    },
    updated: {
      Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: up\ninfo:\n  description: d2\n",
      "sub/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub\n",
      "sub/cm.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: "2"\n',
      "sub2/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub2\n",
    },
    edit: edit("sub/cm.yaml", (s) => `${s}  b: "3"\n`),
  },
  "Kptfile pipelines merge by function, configMap values keep their types": {
    original: {
      Kptfile:
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: up\npipeline:\n  mutators:\n  - image: gcr.io/kpt-fn/set-labels:v0.1\n    configMap:\n      app: x\n      on: 'true'\n",
      "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: '010'\n  b: yes\n",
    },
    updated: {
      Kptfile:
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: up\npipeline:\n  mutators:\n  - image: gcr.io/kpt-fn/set-labels:v0.2\n    configMap:\n      app: x\n      on: 'true'\n  validators:\n  - image: gcr.io/kpt-fn/kubeval:v0.3\n",
      "cm.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: '010'\n  b: yes\n  c: 1.10\n",
    },
    edit: (m) =>
      edit("Kptfile", (s) => s.replace("        app: x\n", '        app: x\n        n: "5"\n'))(
        edit("cm.yaml", (s) => s.replace("b: yes", "b: no # mine"))(m),
      ),
  },
  "YAML 1.1 booleans kept from local are quoted, values set on a local field take its style": {
    original: {
      "cm.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n    l1: yes\n    l2: yes\ndata:\n  a: yes\n  b: yes\n  c: yes\n  g: x\n  h: x\n  i: x\n  j: yes\n",
      "same.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: same\ndata:\n  a: on\n  b: 'no'\n",
      "w.yaml":
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  flag: yes\n  other: yes\n  args:\n  - bar\n",
    },
    updated: {
      "cm.yaml":
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n    l1: yes\n    l2: off\ndata:\n  a: yes\n  b: yes\n  c: no\n  e: off\n  g: y\n  h: "z"\n  i: on\n  j: "yes"\n',
      "same.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: same\ndata:\n  a: on\n  b: 'no'\n",
      "w.yaml":
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  flag: yes\n  other: no\n  args:\n  - bar\n",
    },
    edit: (m) =>
      edit("cm.yaml", (s) =>
        s
          .replace("  b: yes", "  b: no")
          .replace("  c: yes", '  c: "yes"')
          .replace("  g: x", "  g: 'x'")
          .replace("    l1: yes", "    l1: no")
          .replace("  j: yes", "  j: yes\n  d: on"),
      )(
        edit("w.yaml", (s) => s.replace("  flag: yes", "  flag: no").replace("  - bar", "  - bar\n  - on"))(
          m,
        ),
      ),
  },
  "documents equal on all sides: nulls, empty lists and booleans as kpt leaves them": {
    original: {
      "two.yaml":
        "# head\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: null\n  y:\n  z: on\n--- # sep\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  items: []\n  more: {}\n  list:\n  - a\n",
      "plain.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\ndata:\n  k: v\n",
    },
    updated: {
      "two.yaml":
        "# head\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: null\n  y:\n  z: on\n--- # sep\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  items: []\n  more: {}\n  list:\n  - a\n",
      "plain.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\ndata:\n  k: v2\n",
    },
    edit: (m) => m,
  },
};

describe.skipIf(!HAVE_KPT)("differential: porchlight pkg get/update equals kpt", () => {
  for (const [name, t] of Object.entries(HAND)) {
    it(name, async () => {
      const r = await runBoth(t);
      expect(r.gotPorchlight).toEqual(r.gotKpt);
      expect(r.porchlight).toEqual(r.kpt);
    });
  }
});

/**
 * Seeded generated triples (test/merge/gen), all through one kpt get + update and one porchlight get
 * + update (runBatch). A case passes when porchlight's files equal kpt's byte for byte, or differ only
 * in how src/kpt's reader/writer prints the same merge (compare.ts, "format": that engineer's area).
 * OPEN lists the seeds still different from kpt, by cause: each must stay different (fix one, then
 * remove it here). `npm test` runs the first 40 seeds and every seed OPEN and DEVIATIONS list (each
 * seed is a triple of its own, and the others of the first 200 took 20 s of CPU more for no kind of
 * case the 40 lack); `npm run test:full` (or PORCHLIGHT_DIFF_CASES=200) the first 200 as before. The
 * large run: `npm run diff:update`.
 */
const GENERATED = testSize("PORCHLIGHT_DIFF_CASES", 40, 200);
const OLD_GENERATOR = 20;
const LISTED = [...Object.keys(OPEN), ...Object.keys(DEVIATIONS)].map(Number);

describe.skipIf(!HAVE_KPT)("differential: generated triples against kpt (batched)", () => {
  const seeds = [...new Set([...Array.from({ length: GENERATED }, (_, i) => i + 1), ...LISTED])].sort(
    (a, b) => a - b,
  );
  let results: CaseOutcome[] = [];
  beforeAll(async () => {
    const old = Array.from({ length: OLD_GENERATOR }, (_, i) => generateTriple(i + 1));
    results = await runBatch([...seeds.map(generateCase), ...old]);
  }, 600_000);

  seeds.forEach((seed, at) => {
    it(`seed ${seed}`, () => {
      const r = results[at]!;
      const verdict = classify(r);
      const open = OPEN[seed] ?? DEVIATIONS[seed];
      const detail = `seed ${seed}: ${verdict}\n${r.error ?? explain(r.kpt, r.porchlight)}\n\n${describeCase(seed)}`;
      if (open)
        expect(verdict, `seed ${seed} (open: ${open}) now matches kpt: remove it from OPEN`).toBe(
          "different",
        );
      else expect(["identical", "format"], detail).toContain(verdict);
    });
  });
  it("the older generator's triples (Deployments, Services, ConfigMaps, CRs) all match", () => {
    const old = results.slice(seeds.length);
    const bad = old.flatMap((r, i) =>
      classify(r) === "identical" ? [] : [`${i + 1}: ${explain(r.kpt, r.porchlight)}`],
    );
    expect(bad).toEqual([]);
  });
});
