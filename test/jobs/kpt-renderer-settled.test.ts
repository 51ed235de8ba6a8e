import { describe, expect, it } from "vitest";
import { builtinPipeline } from "../../bench/render.js";
import { generatePackage } from "../../bench/render-package.js";
import { type Rerun, UNSETTLED } from "../../src/fn/types.js";
import { KptRenderer } from "../../src/jobs/kpt-renderer/index.js";
import { fieldsOverlap, NOT_RUN, SettledShares } from "../../src/jobs/kpt-renderer/settled.js";
import type { RenderOptions } from "../../src/jobs/renderer.js";
import type { FileTree } from "../../src/kpt/tree.js";

const OPTIONS: RenderOptions = { runtimes: ["builtin"] };

function pkg(pipeline: string, files: Record<string, string>): FileTree {
  const tree: FileTree = new Map([
    ["Kptfile", Buffer.from(`apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n${pipeline}`)],
  ]);
  for (const [path, text] of Object.entries(files)) tree.set(path, Buffer.from(text));
  return tree;
}

const setters = (data: string) =>
  `  - image: gcr.io/kpt-fn/apply-setters:v0.2.0\n    configMap:\n${data
    .split("\n")
    .map((l) => `      ${l}`)
    .join("\n")}\n`;

const step = (image: string, config: string) =>
  `pipeline:\n  mutators:\n  - image: gcr.io/kpt-fn/${image}\n    configMap:\n      ${config.replaceAll("\n  ", "\n      ")}\n`;

const RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: read
subjects:
- kind: ServiceAccount
  name: app
  namespace: prod
roleRef:
  kind: ClusterRole
  name: view
  apiGroup: rbac.authorization.k8s.io
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: prod
spec:
  selector:
    matchLabels:
      app: db
  template:
    metadata:
      labels:
        app: db
    spec:
      containers:
      - name: db
        image: nginx:1.0
      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchLabels:
                app: db
  volumeClaimTemplates:
  - metadata:
      name: data
`;

const DEPLOY = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # kpt-set: \${name}-web
  namespace: prod
spec:
  replicas: 1 # kpt-set: \${replicas}
  template:
    spec:
      containers:
      - name: web
        image: nginx:1.0 # kpt-set: nginx:\${tag}
        args: # kpt-set: \${args}
        - a
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast # kpt-set: \${mode}
  untagged: x
`;

/**
 * The bot's render of `tree`, then the render of its output twice over: answered by the steps'
 * declarations (KptRenderer.settled) and by a renderer that keeps nothing, running every function.
 */
async function renderTwice(tree: FileTree) {
  const bot = new KptRenderer();
  const first = await bot.render(tree, OPTIONS);
  expect(first.ok).toBe(true);
  const settled = await bot.settled(first.tree, OPTIONS);
  const real = await new KptRenderer(undefined, undefined, true, undefined, null).render(first.tree, OPTIONS);
  return { first, settled, real };
}

/** The declaration holds: the output renders to itself, reporting what the declarations told. */
function expectDeclared(r: Awaited<ReturnType<typeof renderTwice>>): void {
  expect(r.settled).toBeDefined();
  expect(r.real.ok).toBe(true);
  for (const [path, bytes] of r.first.tree)
    expect(r.real.tree.get(path)?.toString(), path).toBe(bytes.toString());
  expect(r.real.tree.size).toBe(r.first.tree.size);
  expect(r.settled?.findings).toEqual(r.real.findings);
  expect(r.settled?.resources).toBe(r.real.resources);
}

describe("the render of the bot's commit, told by the functions' declarations", () => {
  it("apply-setters: sets every tagged field again to the same value and reports the same", async () => {
    const tree = pkg(
      `pipeline:\n  mutators:\n${setters('name: shop\nreplicas: "3"\ntag: "1.2"\nargs: "[x, y]"\nmode: slow')}`,
      {
        "deploy.yaml": DEPLOY,
        "more/cm.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\ndata:\n  k: v # kpt-set: \${mode}\n`,
      },
    );
    const r = await renderTwice(tree);
    expect(r.first.findings.length).toBeGreaterThan(3);
    expectDeclared(r);
  });

  it("apply-setters with a setter the config does not give: the field's own value fills it again", async () => {
    const tree = pkg(`pipeline:\n  mutators:\n${setters('tag: "2.0"')}`, {
      "deploy.yaml": DEPLOY.replace(`nginx:\${tag}`, `\${repo}:\${tag}`),
    });
    expectDeclared(await renderTwice(tree));
  });

  it("set-namespace (v0.4): every namespace field holds the new one, none changed again", async () => {
    const tree = pkg(step("set-namespace:v0.4.1", "namespace: shop"), {
      "deploy.yaml": DEPLOY,
      "rbac.yaml": RBAC,
      "ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: prod\n",
    });
    const r = await renderTwice(tree);
    expect(r.first.findings.map((f) => f.message).join()).toContain("updated to");
    expectDeclared(r);
  });

  it("set-labels: each label set again, counted again", async () => {
    const tree = pkg(step("set-labels:v0.2.0", "team: web\n  tier: front"), {
      "deploy.yaml": DEPLOY,
      "rbac.yaml": RBAC,
      "svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n",
      "np.yaml":
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: np\nspec:\n  podSelector:\n    matchLabels:\n      app: web\n  ingress:\n  - from:\n    - podSelector:\n        matchLabels:\n          app: x\n",
    });
    expectDeclared(await renderTwice(tree));
  });

  it("set-annotations (v0.1.4): each annotation set again, in the maps the first run added", async () => {
    const tree = pkg(step("set-annotations:v0.1.4", 'owner: team-a\n  note: "yes"'), {
      "deploy.yaml": DEPLOY,
      "bare.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bare\nspec:\n  replicas: 1\n",
      "cron.yaml": "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: c\nspec:\n  schedule: x\n",
    });
    expectDeclared(await renderTwice(tree));
  });

  it("set-image: an image renamed is not matched again; one retagged is set again to itself", async () => {
    for (const config of [
      "name: nginx\n  newName: bitnami/nginx\n  newTag: 1.21.4",
      'name: nginx\n  newTag: "2.0"',
    ]) {
      const tree = pkg(step("set-image:v0.1.1", config), { "deploy.yaml": DEPLOY, "rbac.yaml": RBAC });
      const r = await renderTwice(tree);
      expect(r.first.findings.map((f) => f.message).join()).toContain("set image from nginx:1.0");
      expectDeclared(r);
    }
  });

  it("the bench's pipeline of five builtins over a generated package: told, as a second render says", async () => {
    const r = await renderTwice(generatePackage(60, builtinPipeline()));
    expectDeclared(r);
  });

  it("set-labels then set-annotations, where the annotations add a template the labels would be set in: rendered, never told", async () => {
    const tree = pkg(
      `${step("set-labels:v0.2.0", "team: web")}${step("set-annotations:v0.1.4", "owner: a").replace("pipeline:\n  mutators:\n", "")}`,
      {
        "bare.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bare\nspec:\n  replicas: 1\n",
      },
    );
    const r = await renderTwice(tree);
    expect(r.settled).toBeUndefined();
    // what it would have got wrong: the second render sets the label in the template the first added
    expect(r.real.tree.get("bare.yaml")?.toString()).not.toBe(r.first.tree.get("bare.yaml")?.toString());
  });

  it("a pipeline of declared steps that do not meet: told, as a second render says", async () => {
    const tree = pkg(
      `pipeline:\n  mutators:\n${setters('replicas: "3"')}${setters('tag: "1.2"\nmode: slow')}`,
      { "deploy.yaml": DEPLOY },
    );
    expectDeclared(await renderTwice(tree));
  });

  it("a pipeline with a step that declares nothing is rendered, never told", async () => {
    const tree = pkg(
      `pipeline:\n  mutators:\n${setters('replicas: "3"')}  - image: gcr.io/kpt-fn/ensure-name-substring:v0.2.0\n    configMap:\n      prepend: x-\n`,
      { "deploy.yaml": DEPLOY },
    );
    const r = await renderTwice(tree);
    expect(r.settled).toBeUndefined();
  });

  it("tells nothing of a tree that is not the last render's output", async () => {
    const tree = pkg(`pipeline:\n  mutators:\n${setters('replicas: "3"')}`, { "deploy.yaml": DEPLOY });
    const bot = new KptRenderer();
    const first = await bot.render(tree, OPTIONS);
    const other = new Map(first.tree);
    other.set("extra.yaml", Buffer.from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"));
    expect(await bot.settled(other, OPTIONS)).toBeUndefined();
    expect(await bot.settled(first.tree, { ...OPTIONS, runtimes: ["builtin", "exec"] })).toBeUndefined();
  });
});

describe("a pipeline's steps told together", () => {
  const step = (reads: string[][], writes: string[][], again: (s: unknown) => unknown = (s) => s): Rerun => ({
    again,
    reads: () => reads,
    writes: () => writes,
  });

  it("tells each step's second share where no later step writes what an earlier one looks at", () => {
    const shares = new SettledShares().again(
      [
        step([["metadata", "namespace"]], [["metadata", "namespace"]], () => 0),
        step([], [["spec", "replicas"]]),
      ],
      [5, "r"],
    );
    expect(shares).toEqual([0, "r"]);
  });

  it("tells nothing where a later step writes a field an earlier one reads or writes", () => {
    const settled = new SettledShares();
    const ns = step([["metadata", "name"]], [["**", "namespace"]]);
    expect(settled.again([ns, step([], [["subjects", "0", "namespace"]])], [1, 2])).toBeUndefined();
    expect(settled.again([ns, step([], [["metadata", "name"]])], [1, 2])).toBeUndefined();
    // the other way round is no meeting: the earlier step's writes are what the later one starts from
    expect(settled.again([step([], [["metadata", "name"]]), ns], [1, 2])).toEqual([1, 2]);
  });

  it("tells nothing for a step without a declaration, or an item a step may change", () => {
    const settled = new SettledShares();
    expect(settled.again([undefined], [1])).toBeUndefined();
    expect(settled.again([step([], [], () => UNSETTLED)], [1])).toBeUndefined();
    expect(settled.again([undefined, step([], [])], [NOT_RUN, 1])).toEqual([NOT_RUN, 1]);
  });

  it("meets fields by key, a sequence's elements by `*`, any run of keys by `**`", () => {
    expect(fieldsOverlap(["spec", "replicas"], ["spec", "replicas"])).toBe(true);
    expect(fieldsOverlap(["spec", "replicas"], ["spec", "paused"])).toBe(false);
    expect(fieldsOverlap(["spec", "containers", "*", "image"], ["spec", "containers", "0", "image"])).toBe(
      true,
    );
    expect(fieldsOverlap(["**", "namespace"], ["subjects", "1", "namespace"])).toBe(true);
    expect(fieldsOverlap(["**", "namespace"], ["spec", "replicas"])).toBe(false);
    expect(fieldsOverlap(["spec", "args", "**"], ["spec", "args", "0"])).toBe(true);
    expect(fieldsOverlap(["spec", "args", "**"], ["spec", "args"])).toBe(true);
    expect(fieldsOverlap(["spec", "*", "image"], ["spec", "template", "image"])).toBe(false);
    // a field holds no other (fields are leaves)
    expect(fieldsOverlap(["spec"], ["spec", "replicas"])).toBe(false);
  });
});
