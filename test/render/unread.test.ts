import { describe, expect, it } from "vitest";
import { DEFAULT_RUN_OPTIONS } from "../../src/fn/runtime/types.js";
import { treeFromText, treeToText } from "../../src/kpt/tree.js";
import { render } from "../../src/render/render.js";
import { testRegistry } from "./harness.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n";
const env = { registry: testRegistry(), run: DEFAULT_RUN_OPTIONS, attribution: true };

/** A resource file already as kpt writes it. */
const IN_FORM = `# Copyright the authors

apiVersion: apps/v1
kind: Deployment
metadata: # kpt-merge: /web
  name: web
  annotations:
    team: a # the owner
spec:
  template:
    spec:
      containers:
      - name: app
        args: ["--port", '8080']
        command: |
          run
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  a: "1"
`;

describe("a render that runs no function", () => {
  it("writes a file already in kpt's form back unread, and one it formats unread as formatted", async () => {
    const tree = treeFromText({
      Kptfile: KPTFILE,
      "in-form.yaml": IN_FORM,
      "sub/Kptfile": KPTFILE,
      "sub/indented.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n    name: x\n",
    });
    const out = await render(tree, "", env);
    expect(out.ok, out.error?.message).toBe(true);
    expect(treeToText(out.tree)).toEqual({
      ...treeToText(tree),
      "sub/indented.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    });
    expect(out.tree.get("in-form.yaml")).toBe(tree.get("in-form.yaml"));
    // Three documents: the Kptfiles are not counted.
    expect(out.resourceCount).toBe(3);
    expect(out.resourceFiles.sort()).toEqual(["Kptfile", "in-form.yaml", "sub/Kptfile", "sub/indented.yaml"]);
    expect(out.root?.resourceFiles[0]?.kptForm?.docs).toHaveLength(2);
    expect(out.root?.subpackages[0]?.resourceFiles[0]?.kptForm?.text).toBe(
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    );
    // Read when asked, as any other file.
    expect(out.root?.resourceFiles[0]?.docs.map((d) => d.getIn(["metadata", "name"]))).toEqual(["web", "cm"]);
  });

  it("writes a file to format unread as the render that reads it writes it", async () => {
    // Four spaces a level, sequences at their key's column and two further, `-` and three spaces, empty
    // lines, comment lines at the column of what follows them, spaces at line ends.
    const text = `
# Copyright the authors


# Licensed.

apiVersion: apps/v1
kind: Deployment
metadata:
    name: web   # the name

    # about labels
    labels:
        app: web
spec:
    template:
        spec:
            containers:
            # the main one
            -   name: app
                args:
                    -   "--port"
                    -   '8080'
                command: |
                    run
                      --now

            -   name: side
---

apiVersion: v1
kind: ConfigMap
metadata:
    name: cm
data:
    a: "1"
    # about b
    b: two 
`;
    const files = { Kptfile: KPTFILE, "app.yaml": text };
    const unread = await render(treeFromText(files), "", env);
    expect(unread.ok, unread.error?.message).toBe(true);
    expect(unread.root?.resourceFiles[0]?.kptForm?.docs).toHaveLength(2);
    const read = await render(
      treeFromText({ ...files, Kptfile: `${KPTFILE}pipeline:\n  mutators: []\n` }),
      "",
      env,
    );
    expect(read.root?.resourceFiles[0]?.kptForm).toBeUndefined();
    const written = treeToText(unread.tree)["app.yaml"];
    expect(written).toBe(treeToText(read.tree)["app.yaml"]);
    expect(written).toBe(`# Copyright the authors

# Licensed.

apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the name
  # about labels
  labels:
    app: web
spec:
  template:
    spec:
      containers:
      # the main one
      - name: app
        args:
        - "--port"
        - '8080'
        command: |
          run
            --now
      - name: side
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  a: "1"
  # about b
  b: two
`);
  });

  it("reads, and changes as kpt does, a file in kpt's form that the render changes", async () => {
    const tree = treeFromText({
      Kptfile: KPTFILE,
      "transient.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    config.kubernetes.io/index: '5'\n    keep: x\n",
      "empty.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  annotations: {}\n",
      "cnrm.yaml":
        "apiVersion: storage.cnrm.cloud.google.com/v1beta1\nkind: StorageBucket\nmetadata:\n  name: c\n",
    });
    const out = await render(tree, "", env);
    expect(out.ok, out.error?.message).toBe(true);
    const files = treeToText(out.tree);
    expect(files["transient.yaml"]).toBe(
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    keep: x\n",
    );
    expect(files["empty.yaml"]).toBe("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n");
    expect(files["cnrm.yaml"]).toBe(
      "apiVersion: storage.cnrm.cloud.google.com/v1beta1\nkind: StorageBucket\nmetadata:\n  name: c\n  annotations:\n    cnrm.cloud.google.com/blueprint: 'kpt-fn'\n",
    );
    expect(out.root?.resourceFiles.map((f) => f.kptForm === undefined)).toEqual([false, false, false]);
  });

  it("fails on a resource without a name, and keeps a key written twice, in kpt's form otherwise", async () => {
    const nameless = await render(
      treeFromText({
        Kptfile: KPTFILE,
        "a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels:\n    a: b\n",
      }),
      "",
      env,
    );
    expect(nameless.error?.message).toBe(
      "input resource list must contain only KRM resources: a.yaml: resource must have `metadata.name`",
    );
    const twice = await render(
      treeFromText({
        Kptfile: KPTFILE,
        "a.yaml": "apiVersion: v1\nkind: ConfigMap\nkind: Secret\nmetadata:\n  name: a\n",
      }),
      "",
      env,
    );
    // kpt reads resources as nodes and keeps both entries (it refuses a key twice only in a Kptfile)
    expect(twice.ok).toBe(true);
    expect(twice.tree.get("a.yaml")?.toString()).toBe(
      "apiVersion: v1\nkind: ConfigMap\nkind: Secret\nmetadata:\n  name: a\n",
    );
  });

  it("reads every file when a Kptfile has a pipeline or the render hands items back", async () => {
    const withPipeline = treeFromText({
      Kptfile: `${KPTFILE}pipeline:\n  mutators: []\n`,
      "in-form.yaml": IN_FORM,
    });
    const piped = await render(withPipeline, "", env);
    expect(piped.ok, piped.error?.message).toBe(true);
    expect(piped.tree.get("in-form.yaml")?.toString()).toBe(IN_FORM);
    expect(piped.root?.resourceFiles[0]?.kptForm).toBeUndefined();
    const items = await render(treeFromText({ Kptfile: KPTFILE, "in-form.yaml": IN_FORM }), "", {
      ...env,
      writeFiles: false,
    });
    expect(items.items.map((d) => d.getIn(["metadata", "name"]))).toEqual(["app", "web", "cm"]);
  });
});
