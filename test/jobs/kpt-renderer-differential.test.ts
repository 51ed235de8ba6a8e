import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultRegistry } from "../../src/fn/registry.js";
import { DEFAULT_RUN_OPTIONS } from "../../src/fn/runtime/types.js";
import { KptRenderer } from "../../src/jobs/kpt-renderer/index.js";
import { RenderJournal } from "../../src/jobs/kpt-renderer/render-journal.js";
import type { RenderResult } from "../../src/jobs/renderer.js";
import { type FileTree, treeFromText, treeToText } from "../../src/kpt/tree.js";
import { ParseCache } from "../../src/kpt/yaml/parse-cache.js";

/**
 * The bot's renderer lives across pushes and remembers (parsed files by blob, trees that rendered to
 * themselves). Whatever it remembers, each push must render to exactly what a renderer that remembers
 * nothing renders: the same bytes in every file, the same findings. Here one renderer follows a draft
 * through a series of pushes, each made on the files the previous render left (as the bot commits
 * them), and every answer is compared with a fresh renderer's.
 */

const KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: shop
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-namespace:v0.4.1
      configMap:
        namespace: shop
    - image: gcr.io/kpt-fn/set-labels:v0.2.0
      configMap:
        team: blue
    - image: gcr.io/kpt-fn/set-annotations:v0.1.4
      configMap:
        owner: shop-team
    - image: gcr.io/kpt-fn/apply-setters:v0.2.0
      configPath: setters.yaml
    - image: gcr.io/kpt-fn/set-image:v0.1.1
      configMap:
        name: registry.example.com/web
        newTag: "2.0"
`;

const SETTERS = `apiVersion: v1
kind: ConfigMap
metadata:
  name: setters
  annotations:
    config.kubernetes.io/local-config: "true"
data:
  replicas: "3"
`;

/** apply-replacements: the api-config ConfigMap's value into an annotation of the web Deployment. */
const REPLACEMENTS = `apiVersion: fn.kpt.dev/v1alpha1
kind: ApplyReplacements
metadata:
  name: replacements
  annotations:
    config.kubernetes.io/local-config: "true"
replacements:
- source:
    kind: ConfigMap
    name: api-config
    fieldPath: data.value
  targets:
  - select:
      kind: Deployment
      name: web
    fieldPaths:
    - spec.template.metadata.annotations.config
    options:
      create: true
`;

const SUB_KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: db
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-labels:v0.2.0
      configMap:
        tier: data
`;

const deployment = (name: string, tag = "1.0") => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name} # the ${name} deployment
spec:
  replicas: 1 # kpt-set: \${replicas}
  template:
    spec:
      containers:
      - name: main
        image: registry.example.com/web:${tag}
        args: ["--port=8080"]
`;

const configMap = (name: string, value: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
data:
  # a comment line: yaml's parser reads this file (the renderer keeps it), the fast reader the others
  value: "${value}"
  note: >
    folded text that
    spans two lines
`;

function draft(): FileTree {
  return treeFromText({
    Kptfile: KPTFILE,
    "setters.yaml": SETTERS,
    "web.yaml": `${deployment("web")}---\n${configMap("web-config", "a")}`,
    "api.yaml": deployment("api"),
    "jobs/cron.yaml": configMap("cron", "nightly"),
    "README.md": "# shop\n",
    "db/Kptfile": SUB_KPTFILE,
    "db/db.yaml": `${deployment("db")}---\n${configMap("db-config", "x")}`,
  });
}

/** A push: its name, the change, and (for some) what its render must show, so the push is known to matter. */
type Edit = [name: string, change: (tree: FileTree) => void, shows?: (result: RenderResult) => void];

const fileHas = (path: string, part: string | RegExp) => (r: RenderResult) =>
  expect(text(r.tree, path)).toMatch(part);
const findingSays = (part: string) => (r: RenderResult) =>
  expect(r.findings.map((f) => f.message)).toContainEqual(expect.stringContaining(part));

const text = (tree: FileTree, path: string): string => tree.get(path)!.toString("utf8");
const put = (tree: FileTree, path: string, body: string): void => {
  tree.set(path, Buffer.from(body));
};

/** Pushes a user might make to the draft, each on the files the bot left after the previous one. */
const EDITS: Edit[] = [
  [
    "changes a value in one file",
    (t) => put(t, "api.yaml", text(t, "api.yaml").replace("--port=8080", "--port=9090")),
  ],
  [
    "adds a document to a file",
    (t) => put(t, "api.yaml", `${text(t, "api.yaml")}---\n${configMap("api-config", "b")}`),
  ],
  ["removes a document from a file", (t) => put(t, "web.yaml", text(t, "web.yaml").split(/^---\n/m)[0]!)],
  [
    "renames a file",
    (t) => {
      put(t, "jobs/nightly.yaml", text(t, "jobs/cron.yaml"));
      t.delete("jobs/cron.yaml");
    },
  ],
  ["adds a file", (t) => put(t, "worker.yaml", deployment("worker", "1.5"))],
  ["deletes a file", (t) => t.delete("worker.yaml")],
  [
    "changes a file of the subpackage",
    (t) => put(t, "db/db.yaml", text(t, "db/db.yaml").replace("replicas: 3", "replicas: 5")),
  ],
  [
    "changes a function's config in the Kptfile",
    (t) =>
      put(
        t,
        "Kptfile",
        text(t, "Kptfile").replace("configMap:\n        team: blue", "configMap:\n        team: red"),
      ),
    fileHas("web.yaml", "team: red"),
  ],
  [
    "changes the function config file",
    (t) => put(t, "setters.yaml", text(t, "setters.yaml").replace('"3"', '"4"')),
  ],
  [
    "removes a function from the pipeline",
    (t) =>
      put(
        t,
        "Kptfile",
        text(t, "Kptfile").replace(
          / {4}- image: gcr.io\/kpt-fn\/set-annotations[^\n]*\n[^\n]*\n[^\n]*\n/,
          "",
        ),
      ),
  ],
  [
    "changes the subpackage's pipeline",
    (t) => put(t, "db/Kptfile", text(t, "db/Kptfile").replace("tier: data", "tier: storage")),
  ],
  [
    "changes a namespace by hand",
    (t) => put(t, "api.yaml", text(t, "api.yaml").replace("namespace: shop", "namespace: other")),
  ],
  // What a renderer that reuses the work of files a push did not change must still get right: facts
  // a function reads across all resources, results that count over all of them, resources that move.
  [
    "adds a Namespace object (set-namespace reads them all)",
    (t) => put(t, "namespace.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: legacy\n"),
    findingSays('namespace "legacy" updated to "shop", 1 value(s) changed'),
  ],
  [
    "removes the Namespace object",
    (t) => t.delete("namespace.yaml"),
    findingSays('all namespaces are already "shop". no value changed'),
  ],
  [
    "puts a setter in a file that had none",
    (t) =>
      put(
        t,
        "jobs/nightly.yaml",
        text(t, "jobs/nightly.yaml").replace("data:\n", `data:\n  count: "1" # kpt-set: \${replicas}\n`),
      ),
    fileHas("jobs/nightly.yaml", `count: "4" # kpt-set: \${replicas}`),
  ],
  [
    "moves a resource from one file to another",
    (t) => {
      const [api, config] = text(t, "api.yaml").split(/^---\n/m);
      put(t, "api.yaml", api!);
      put(t, "jobs/nightly.yaml", `${text(t, "jobs/nightly.yaml")}---\n${config}`);
    },
    fileHas("jobs/nightly.yaml", "name: api-config"),
  ],
  [
    "adds a container, so set-image changes one image more",
    (t) =>
      put(
        t,
        "api.yaml",
        text(t, "api.yaml").replace(
          "      - name: main\n",
          "      - name: side\n        image: registry.example.com/web:0.9\n      - name: main\n",
        ),
      ),
    findingSays("set image from registry.example.com/web:0.9 to registry.example.com/web:2.0"),
  ],
  [
    "copies a file, so two resources have the same id",
    (t) => put(t, "copy.yaml", text(t, "api.yaml")),
    findingSays("duplicate Resource(apiVersion=apps/v1, kind=Deployment, Namespace=shop, Name=api)"),
  ],
  ["removes the copy", (t) => t.delete("copy.yaml")],
  [
    "adds a function that copies a field of one resource into another",
    (t) => {
      put(t, "replacements.yaml", REPLACEMENTS);
      put(
        t,
        "Kptfile",
        `${text(t, "Kptfile").trimEnd()}\n    - image: gcr.io/kpt-fn/apply-replacements:v0.1.1\n      configPath: replacements.yaml\n`,
      );
    },
    fileHas("web.yaml", 'config: "b"'),
  ],
  [
    "changes the replacement's source, in another file than its target",
    (t) => put(t, "jobs/nightly.yaml", text(t, "jobs/nightly.yaml").replace('value: "b"', 'value: "c"')),
    fileHas("web.yaml", 'config: "c"'),
  ],
  ["leaves the files as they are", () => {}],
];

const BUILTIN = { runtimes: ["builtin" as const] };

/** A renderer that remembers nothing and renders every tree whole, never file by file. */
const wholeRenderer = () =>
  new KptRenderer(defaultRegistry(), DEFAULT_RUN_OPTIONS, true, new ParseCache(), null);

/** What a render answered, comparable: every file's text, the findings, the outcome. */
function answer(result: RenderResult) {
  return {
    ok: result.ok,
    error: result.error,
    files: treeToText(result.tree),
    findings: result.findings,
    resources: result.resources,
  };
}

describe("the bot's renderer across a draft's pushes", () => {
  it("renders every push as a renderer that remembers nothing does", async () => {
    const bot = new KptRenderer();
    let tree = draft();
    const first = await bot.render(tree, BUILTIN);
    expect(answer(first)).toEqual(answer(await wholeRenderer().render(tree, BUILTIN)));
    expect(first.ok).toBe(true);
    tree = first.tree;
    for (const [name, change, shows] of EDITS) {
      const pushed: FileTree = new Map(tree);
      change(pushed);
      if (name !== "leaves the files as they are") {
        expect(treeToText(pushed), `${name}: the edit applies`).not.toEqual(treeToText(tree));
      }
      const remembered = await bot.render(pushed, BUILTIN);
      const fresh = await wholeRenderer().render(pushed, BUILTIN);
      expect(answer(remembered), name).toEqual(answer(fresh));
      expect(remembered.ok, name).toBe(true);
      shows?.(remembered);
      // The bot commits the render; rendering that commit again must change nothing.
      const again = await bot.render(remembered.tree, BUILTIN);
      expect(answer(again), `${name}, then its render pushed`).toEqual(
        answer(await wholeRenderer().render(remembered.tree, BUILTIN)),
      );
      expect(treeToText(again.tree), name).toEqual(treeToText(remembered.tree));
      tree = remembered.tree;
    }
  });

  it("changes what each push changed, and only that", async () => {
    const bot = new KptRenderer();
    const rendered = (await bot.render(draft(), BUILTIN)).tree;
    const pushed: FileTree = new Map(rendered);
    put(pushed, "api.yaml", text(rendered, "api.yaml").replace("--port=8080", "--port=9090"));
    const result = await bot.render(pushed, BUILTIN);
    const before = treeToText(rendered);
    const after = treeToText(result.tree);
    const changed = Object.keys(after).filter((p) => after[p] !== before[p]);
    expect(changed).toEqual(["api.yaml"]);
    expect(after["api.yaml"]).toContain("--port=9090");
  });
});

describe("the bot's renderer places a push's findings", () => {
  it("reads only the changed file to place the findings of a one-file push", async () => {
    const bot = new KptRenderer();
    const first = await bot.render(draft(), BUILTIN);
    const pushed: FileTree = new Map(first.tree);
    put(pushed, "api.yaml", `# a header line\n${text(first.tree, "api.yaml")}`);
    const before = bot.stats;
    const result = await bot.render(pushed, BUILTIN);
    const after = bot.stats;
    expect(answer(result)).toEqual(answer(await wholeRenderer().render(pushed, BUILTIN)));
    const named = result.findings.filter((f) => f.file !== undefined);
    const inApi = named.filter((f) => f.file === "api.yaml");
    expect(inApi.length).toBeGreaterThan(0);
    expect(named.length).toBeGreaterThan(inApi.length);
    expect(after.placesFound - before.placesFound).toBe(inApi.length);
    expect(after.placesRemembered - before.placesRemembered).toBe(named.length - inApi.length);
  });
});

/**
 * A package whose pipelines run builtins by item (configs in the Kptfiles): the bot's renderer renders
 * only the files a push changed and combines each function's results from every resource's share. Each
 * push below either takes that shortcut (the renderer reuses files) or must not (a fact of the whole
 * list decides, or something the shortcut does not cover), and either way answers as a fresh renderer.
 */
const BY_ITEM_KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: shop
  annotations:
    shop.example.com/replicas: "1" # kpt-set: \${replicas}
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-namespace:v0.4.1
      configMap:
        namespace: shop
    - image: gcr.io/kpt-fn/set-labels:v0.2.0
      configMap:
        team: blue
    - image: gcr.io/kpt-fn/set-annotations:v0.1.4
      configMap:
        owner: shop-team
    - image: gcr.io/kpt-fn/apply-setters:v0.2.0
      configMap:
        replicas: "3"
    - image: gcr.io/kpt-fn/set-image:v0.1.1
      configMap:
        name: registry.example.com/web
        newTag: "2.0"
`;

function byItemDraft(): FileTree {
  return treeFromText({
    Kptfile: BY_ITEM_KPTFILE,
    "web.yaml": `${deployment("web")}---\n${configMap("web-config", "a")}`,
    "api.yaml": deployment("api"),
    "jobs/cron.yaml": configMap("cron", "nightly"),
    "local.yaml": SETTERS,
    "README.md": "# shop\n",
    "db/Kptfile": SUB_KPTFILE,
    "db/db.yaml": `${deployment("db")}---\n${configMap("db-config", "x")}`,
  });
}

/** A push to the by-item package: whether the renderer may answer it from the files it kept, and the limit it runs under. */
type ByItemEdit = [
  name: string,
  change: (tree: FileTree) => void,
  /** The renderer answers it file by file (or knows the tree renders to itself). */
  shortcut: boolean,
  shows?: (result: RenderResult) => void,
  maxResources?: number,
];

const BY_ITEM_EDITS: ByItemEdit[] = [
  [
    "changes a value in one file",
    (t) => put(t, "api.yaml", text(t, "api.yaml").replace("--port=8080", "--port=9090")),
    true,
    fileHas("api.yaml", "--port=9090"),
  ],
  [
    "adds a container, so set-image changes one image more",
    (t) =>
      put(
        t,
        "api.yaml",
        text(t, "api.yaml").replace(
          "      - name: main\n",
          "      - name: side\n        image: registry.example.com/web:0.9\n      - name: main\n",
        ),
      ),
    true,
    findingSays("set image from registry.example.com/web:0.9 to registry.example.com/web:2.0"),
  ],
  [
    "adds a Namespace object (set-namespace reports the old namespaces of all resources)",
    (t) => put(t, "namespace.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: legacy\n"),
    true,
    findingSays('namespace "legacy" updated to "shop", 1 value(s) changed'),
  ],
  [
    "removes the Namespace object",
    (t) => t.delete("namespace.yaml"),
    true,
    findingSays('all namespaces are already "shop". no value changed'),
  ],
  [
    "copies a file, so two resources have the same id (set-annotations then fails)",
    (t) => put(t, "copy.yaml", text(t, "api.yaml")),
    false,
    findingSays("duplicate Resource(apiVersion=apps/v1, kind=Deployment, Namespace=shop, Name=api)"),
  ],
  ["removes the copy", (t) => t.delete("copy.yaml"), true],
  [
    "moves web to another namespace and makes api depend on it there (set-namespace rewrites depends-on)",
    (t) => {
      put(t, "web.yaml", text(t, "web.yaml").replace("namespace: shop", "namespace: elsewhere"));
      put(
        t,
        "api.yaml",
        text(t, "api.yaml").replace(
          "  annotations:\n",
          "  annotations:\n    config.kubernetes.io/depends-on: apps/namespaces/elsewhere/Deployment/web\n",
        ),
      );
    },
    false,
    fileHas("api.yaml", "config.kubernetes.io/depends-on: apps/namespaces/shop/Deployment/web"),
  ],
  [
    "removes the depends-on annotation",
    (t) =>
      put(t, "api.yaml", text(t, "api.yaml").replace(/^ {4}config\.kubernetes\.io\/depends-on: .*\n/m, "")),
    true,
  ],
  [
    "changes a function's config in the Kptfile",
    (t) =>
      put(
        t,
        "Kptfile",
        text(t, "Kptfile").replace("configMap:\n        team: blue", "configMap:\n        team: red"),
      ),
    true,
    fileHas("web.yaml", "team: red"),
  ],
  [
    "pins another release of a function (set-labels v0.2.1)",
    (t) => put(t, "Kptfile", text(t, "Kptfile").replace("set-labels:v0.2.0", "set-labels:v0.2.1")),
    true,
  ],
  [
    "pins a release that does not run by item (set-annotations v0.1.3 leaves local config out)",
    (t) => put(t, "Kptfile", text(t, "Kptfile").replace("set-annotations:v0.1.4", "set-annotations:v0.1.3")),
    false,
    (r) => expect(r.tree.has("local.yaml")).toBe(false),
  ],
  [
    "pins the release back",
    (t) => {
      put(t, "Kptfile", text(t, "Kptfile").replace("set-annotations:v0.1.3", "set-annotations:v0.1.4"));
      put(t, "local.yaml", SETTERS);
    },
    true,
  ],
  [
    "swaps the documents of a file",
    (t) => {
      const [first, second] = text(t, "web.yaml").split(/^---\n/m);
      put(t, "web.yaml", `${second}---\n${first}`);
    },
    true,
  ],
  [
    "renames a file",
    (t) => {
      put(t, "jobs/nightly.yaml", text(t, "jobs/cron.yaml"));
      t.delete("jobs/cron.yaml");
    },
    true,
    fileHas("jobs/nightly.yaml", "name: cron"),
  ],
  [
    "moves a resource from one file to another",
    (t) => {
      const [first, second] = text(t, "web.yaml").split(/^---\n/m);
      put(t, "web.yaml", first!);
      put(t, "jobs/nightly.yaml", `${text(t, "jobs/nightly.yaml")}---\n${second}`);
    },
    true,
  ],
  [
    "renames a file whose resources the functions report on (the results name it)",
    (t) => {
      put(t, "jobs/web.yaml", text(t, "jobs/nightly.yaml"));
      t.delete("jobs/nightly.yaml");
    },
    true,
    (r) => expect(r.findings.map((f) => f.file)).toContain("jobs/web.yaml"),
  ],
  [
    "adds local config of the same kustomize id as another (set-annotations then fails)",
    (t) => put(t, "local2.yaml", SETTERS.replace("metadata:\n", "metadata:\n  namespace: default\n")),
    false,
    findingSays("already registered id"),
  ],
  ["removes that local config", (t) => t.delete("local2.yaml"), true],
  ["deletes a file", (t) => t.delete("api.yaml"), true, (r) => expect(r.tree.has("api.yaml")).toBe(false)],
  [
    "adds a subpackage",
    (t) => {
      put(
        t,
        "cache/Kptfile",
        SUB_KPTFILE.replace("name: db", "name: cache").replace("tier: data", "tier: cache"),
      );
      put(t, "cache/cache.yaml", deployment("cache"));
    },
    true,
    fileHas("cache/cache.yaml", "tier: cache"),
  ],
  [
    "makes every resource of a subpackage local config (set-labels finds no input resources there)",
    (t) => {
      put(
        t,
        "cache/Kptfile",
        text(t, "cache/Kptfile").replace(
          "  annotations:\n",
          '  annotations:\n    config.kubernetes.io/local-config: "true"\n',
        ),
      );
      put(t, "cache/cache.yaml", SETTERS.replace("name: setters", "name: cache-values"));
    },
    true,
    findingSays("no input resources"),
  ],
  [
    "adds a function to the subpackage that moves its resources to one file",
    (t) =>
      put(
        t,
        "db/Kptfile",
        `${text(t, "db/Kptfile").trimEnd()}\n    - image: gcr.io/kpt-fn/set-annotations:v0.1.4\n      configMap:\n        internal.config.kubernetes.io/path: all.yaml\n`,
      ),
    false,
    (r) => expect(r.tree.has("db/all.yaml")).toBe(true),
  ],
  [
    "puts the subpackage back as it was",
    (t) => {
      for (const path of [...t.keys()]) if (path.startsWith("db/")) t.delete(path);
      put(t, "db/Kptfile", SUB_KPTFILE);
      put(t, "db/db.yaml", `${deployment("db")}---\n${configMap("db-config", "x")}`);
    },
    true,
  ],
  [
    "adds a file with a bad setter (apply-setters fails)",
    (t) =>
      put(
        t,
        "bad.yaml",
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  ports: # kpt-set: port-\${replicas}\n  - 80\n`,
      ),
    false,
    (r) => expect(r.ok).toBe(false),
  ],
  ["deletes the file with the bad setter", (t) => t.delete("bad.yaml"), true],
  [
    "adds a file past maxResources (the render fails)",
    (t) => put(t, "worker.yaml", `${deployment("worker")}---\n${configMap("worker-config", "w")}`),
    false,
    (r) => expect(r.tooManyResources).toBeDefined(),
    // One resource fewer than the package then holds (the two Kptfiles are not counted).
    8,
  ],
  // kyaml moves a comment at a document's end unless the document is the last item of the list a step
  // is given: the files that may hold a list's last item are rendered on every push, as they stand.
  ["adds a file at the end of the list", (t) => put(t, "zz.yaml", configMap("zz", "after")), true],
  ["removes it", (t) => t.delete("zz.yaml"), true],
  [
    "ends a file in the middle of the list with comment lines",
    (t) => put(t, "jobs/web.yaml", `${text(t, "jobs/web.yaml")}  # indented\n# at the end\n`),
    true,
  ],
  [
    "adds a file at the end of the list ending in a comment line (the list's last item)",
    (t) => put(t, "x.yaml", `${configMap("x", "last")}# the last\n`),
    true,
  ],
  [
    "ends the subpackage's file (its own pipeline's last item) with a comment line",
    (t) => put(t, "db/db.yaml", `${text(t, "db/db.yaml")}# the db's last\n`),
    true,
  ],
  // The renderer knows zz.yaml: it alone may hold the last item now, and x.yaml's render as the list's
  // last must not be taken for x.yaml followed by it.
  [
    "puts the file at the end back, and changes another",
    (t) => {
      put(t, "zz.yaml", configMap("zz", "after"));
      put(t, "local.yaml", text(t, "local.yaml").replace('replicas: "3"', 'replicas: "4"'));
    },
    true,
    fileHas("x.yaml", "  # the last\n# the last\n"),
  ],
  [
    "changes a value in another file while those comments stay",
    (t) => put(t, "local.yaml", text(t, "local.yaml").replace('replicas: "4"', 'replicas: "5"')),
    true,
  ],
  ["adds a file of comments only at the end", (t) => put(t, "zzz.yaml", "# nothing here\n"), true],
  ["removes the file of comments", (t) => t.delete("zzz.yaml"), true],
  ["removes the file at the end", (t) => t.delete("zz.yaml"), true],
  [
    "moves the commented file to the end of the list",
    (t) => {
      put(t, "zz/web.yaml", text(t, "jobs/web.yaml"));
      t.delete("jobs/web.yaml");
    },
    true,
  ],
  ["leaves the files as they are", () => {}, true],
];

describe("the bot's renderer over a package whose functions run by item", () => {
  it("renders each push as a renderer that remembers nothing does, reusing the files it did not change", async () => {
    const bot = new KptRenderer();
    let tree = byItemDraft();
    const first = await bot.render(tree, BUILTIN);
    expect(answer(first)).toEqual(answer(await wholeRenderer().render(tree, BUILTIN)));
    expect(first.ok).toBe(true);
    tree = (await bot.render(first.tree, BUILTIN)).tree;
    for (const [name, change, shortcut, shows, maxResources] of BY_ITEM_EDITS) {
      const options = maxResources === undefined ? BUILTIN : { ...BUILTIN, maxResources };
      const pushed: FileTree = new Map(tree);
      change(pushed);
      if (name !== "leaves the files as they are") {
        expect(treeToText(pushed), `${name}: the edit applies`).not.toEqual(treeToText(tree));
      }
      const before = bot.stats;
      const remembered = await bot.render(pushed, options);
      const fresh = await wholeRenderer().render(pushed, options);
      expect(answer(remembered), name).toEqual(answer(fresh));
      // Answered file by file, or the whole tree known to render to itself (a state it was in before).
      const after = bot.stats;
      const byFile =
        after.filesReused + after.filesRendered > before.filesReused + before.filesRendered ||
        after.unchanged > before.unchanged;
      expect(byFile, `${name}: answered file by file`).toBe(shortcut);
      expect(remembered.ok, `${name}: ok`).toBe(!name.includes("fails"));
      shows?.(remembered);
      if (!remembered.ok) {
        tree = pushed;
        continue;
      }
      // The bot commits the render and renders that commit (which keeps the files of the next push).
      const again = await bot.render(remembered.tree, options);
      expect(answer(again), `${name}, then its render pushed`).toEqual(
        answer(await wholeRenderer().render(remembered.tree, options)),
      );
      tree = again.tree;
    }
  });

  // The bot's commit of a render holds exactly the render's output, but rendering that output is not
  // the render again: set-namespace reports on its own output that no value changed. What a file's
  // render keeps (its output and its resources' shares of the results) is its own input's, never taken
  // over from the render that wrote it.
  it("renders the bot's commit of a first push anew, though a function reports otherwise on its own output", async () => {
    const bot = new KptRenderer();
    const tree = byItemDraft();
    const first = await bot.render(tree, BUILTIN);
    await bot.committed(first.tree, BUILTIN);
    // Every step declares its run over its own output: the bot's commit is told (settled()), so the
    // placer handed none of its documents on (committed() read the files itself).
    expect(bot.stats.filesHandedOver).toBe(0);
    const commit = await bot.render(first.tree, BUILTIN);
    const says = (r: RenderResult) =>
      r.findings.filter((f) => f.function.includes("set-namespace")).map((f) => f.message);
    // The function's second run differs from its first: the case checks something.
    expect(says(first).join("\n")).toMatch(/value\(s\) changed/);
    expect(says(commit)).not.toEqual(says(first));
    expect(answer(commit)).toEqual(answer(await wholeRenderer().render(first.tree, BUILTIN)));
    const pushed: FileTree = new Map(first.tree);
    put(pushed, "local.yaml", text(first.tree, "local.yaml").replace('replicas: "3"', 'replicas: "4"'));
    const edited = await bot.render(pushed, BUILTIN);
    expect(answer(edited)).toEqual(answer(await wholeRenderer().render(pushed, BUILTIN)));
  });

  it("reads and renders only the changed file of a one-file push", async () => {
    const bot = new KptRenderer();
    const rendered = (await bot.render(byItemDraft(), BUILTIN)).tree;
    await bot.render(rendered, BUILTIN);
    const pushed: FileTree = new Map(rendered);
    put(pushed, "api.yaml", text(rendered, "api.yaml").replace("--port=8080", "--port=9090"));
    const before = bot.stats;
    const result = await bot.render(pushed, BUILTIN);
    const after = bot.stats;
    expect(answer(result)).toEqual(answer(await wholeRenderer().render(pushed, BUILTIN)));
    // Five resource files: web, api, jobs/cron, local and db/db.
    expect(after.filesReused - before.filesReused).toBe(4);
    expect(after.filesRead + after.filesParsed - before.filesRead - before.filesParsed).toBe(1);
  });
});

describe("the bot's renderer after a restart (its kept work journaled in the cache directory)", () => {
  /** The app's renderer journaling in `dir`; `slack`: how far the journals grow before written whole. */
  const journaled = (dir: string, slack?: number) =>
    new KptRenderer(
      undefined,
      undefined,
      true,
      undefined,
      undefined,
      undefined,
      new RenderJournal(dir, slack),
    );
  const editApi = (tree: FileTree, port: string): FileTree => {
    const pushed: FileTree = new Map(tree);
    put(pushed, "api.yaml", text(tree, "api.yaml").replace(/--port=\d+/, `--port=${port}`));
    return pushed;
  };

  /** A renderer journaling in a new directory that rendered the draft and the bot's commit of it. */
  const afterFirstPush = async () => {
    const dir = mkdtempSync(join(tmpdir(), "porchlight-journal-"));
    const before = journaled(dir);
    const rendered = (await before.render(byItemDraft(), BUILTIN)).tree;
    await before.render(rendered, BUILTIN);
    return { dir, before, rendered };
  };

  it("renders a one-file push from what the renderer before the restart kept: that file read, the same answer", async () => {
    const { dir, before, rendered } = await afterFirstPush();
    try {
      // The app restarts: a renderer that remembers nothing in memory, the same directory.
      const after = journaled(dir);
      const pushed = editApi(rendered, "9090");
      const result = await after.render(pushed, BUILTIN);
      expect(answer(result)).toEqual(answer(await wholeRenderer().render(pushed, BUILTIN)));
      expect(after.stats.journalBytesRead).toBeGreaterThan(0);
      // Five resource files: the four unchanged ones kept, the changed one read and rendered.
      expect(after.stats.filesReused).toBe(4);
      expect(after.stats.filesRead + after.stats.filesParsed).toBe(1);
      expect(after.stats.placesFound).toBeLessThan(before.stats.placesFound);
      // And restarted again: the journals before serve the third, which (no slack) writes what it holds
      // as one journal and lets go of the older ones.
      const journals = () => readdirSync(dir).filter((n) => n.endsWith(".journal"));
      expect(journals()).toHaveLength(2);
      const third = journaled(dir, 0);
      const again = editApi(result.tree, "7070");
      expect(answer(await third.render(again, BUILTIN))).toEqual(
        answer(await wholeRenderer().render(again, BUILTIN)),
      );
      expect(third.stats.filesReused).toBe(4);
      expect(journals()).toHaveLength(1);
      const fourth = journaled(dir);
      const last = editApi(again, "6060");
      expect(answer(await fourth.render(last, BUILTIN))).toEqual(
        answer(await wholeRenderer().render(last, BUILTIN)),
      );
      expect(fourth.stats.filesReused).toBe(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads the journal back when told to (a thread started idle), so that the first push after a restart reads nothing more of it", async () => {
    const { dir, rendered } = await afterFirstPush();
    try {
      const after = journaled(dir);
      after.restore();
      const read = after.stats.journalBytesRead;
      expect(read).toBeGreaterThan(0);
      const pushed = editApi(rendered, "9090");
      const result = await after.render(pushed, BUILTIN);
      expect(answer(result)).toEqual(answer(await wholeRenderer().render(pushed, BUILTIN)));
      expect(after.stats.journalBytesRead).toBe(read);
      expect(after.stats.filesReused).toBe(4);
      expect(after.stats.filesRead + after.stats.filesParsed).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("renders the second push after a restart as any push: the journal read once, that push's file alone read", async () => {
    const { dir, rendered } = await afterFirstPush();
    try {
      const after = journaled(dir);
      const first = editApi(rendered, "9090");
      const one = await after.render(first, BUILTIN);
      expect(answer(one)).toEqual(answer(await wholeRenderer().render(first, BUILTIN)));
      const read = after.stats;
      const second = editApi(one.tree, "7070");
      const two = await after.render(second, BUILTIN);
      expect(answer(two)).toEqual(answer(await wholeRenderer().render(second, BUILTIN)));
      const now = after.stats;
      expect(now.journalBytesRead).toBe(read.journalBytesRead);
      expect(now.filesReused - read.filesReused).toBe(4);
      expect(now.filesRead + now.filesParsed - read.filesRead - read.filesParsed).toBe(1);
      // as the first push after the restart: the places of the changed file's findings alone worked out
      expect(now.placesFound - read.placesFound).toBeLessThanOrEqual(read.placesFound);
      expect(now.placesRemembered - read.placesRemembered).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("renders as before from a journal cut short by a crash, or from none it can read", async () => {
    const { dir, before, rendered } = await afterFirstPush();
    try {
      await before.render(editApi(rendered, "8181"), BUILTIN);
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        writeFileSync(path, readFileSync(path).subarray(0, readFileSync(path).length - 7));
      }
      const pushed = editApi(rendered, "9090");
      const whole = answer(await wholeRenderer().render(pushed, BUILTIN));
      expect(answer(await journaled(dir).render(pushed, BUILTIN))).toEqual(whole);
      writeFileSync(join(dir, "garbage.journal"), "not a journal");
      expect(answer(await journaled(dir).render(pushed, BUILTIN))).toEqual(whole);
      // A directory that cannot be made (a file stands there): memory only, the same answer.
      writeFileSync(join(dir, "file"), "");
      expect(answer(await journaled(join(dir, "file", "renders")).render(pushed, BUILTIN))).toEqual(whole);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
