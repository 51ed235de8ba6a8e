import { describe, expect, it } from "vitest";
import { type Document, parseAllDocuments, parseDocument } from "yaml";
import { FunctionExitError } from "../../../src/fn/runtime/errors.js";
import { runStarlark, starlarkFunction } from "../../../src/fn/starlark/index.js";
import { FunctionError, type ResourceList } from "../../../src/fn/types.js";
import { formatDocument } from "../../../src/kpt/yaml/format.js";

function list(items: string, fnConfig: string): ResourceList {
  return {
    items: parseAllDocuments(items) as Document[],
    functionConfig: parseDocument(fnConfig),
    results: [],
  };
}

function print(rl: ResourceList): string {
  return rl.items.map((d) => d.toString().replace(/^---\n/, "")).join("---\n");
}

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(FunctionError);
    const fe = e as FunctionError;
    expect(fe.results).toEqual([{ message: fe.message, severity: "error" }]);
    return fe.message;
  }
  throw new Error("expected the function to fail");
}

const RESOURCES = `apiVersion: v1
kind: ConfigMap
metadata:
  name: my-cm
  annotations:
    config.kubernetes.io/path: cm.yaml
data:
  some-key: some-value # a comment
---
apiVersion: foo.com/v1
kind: Bar
metadata:
  name: my-bar
  annotations:
    config.kubernetes.io/path: bar.yaml
spec:
  # keep me
  featureA: true
`;

describe("kpt starlark function", () => {
  it("sets the namespace on every resource, keeping comments and field order (catalog example 'simple')", () => {
    const out = runStarlark(
      list(
        RESOURCES,
        `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: set-namespace-to-prod
source: |
  # set the namespace on all resources
  def setnamespace(resources, namespace):
    for resource in resources:
      # mutate the resource
      resource["metadata"]["namespace"] = namespace
  setnamespace(ctx.resource_list["items"], "prod")
`,
      ),
    );
    expect(print(out)).toBe(`apiVersion: v1
kind: ConfigMap
metadata:
  name: my-cm
  annotations:
    config.kubernetes.io/path: cm.yaml
  namespace: prod
data:
  some-key: some-value # a comment
---
apiVersion: foo.com/v1
kind: Bar
metadata:
  name: my-bar
  annotations:
    config.kubernetes.io/path: bar.yaml
  namespace: prod
spec:
  # keep me
  featureA: true
`);
  });

  it.each([
    [
      "fails a validator with the fail() message as the catalog's 'validation' example shows",
      `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  private-key: abc
`,
      `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: no-private-key
source: |
  def contains_private_key(r):
    return r["apiVersion"] == "v1" and r["kind"] == "ConfigMap" and r["data"]["private-key"]
  def ensure_no_private_key(resource_list):
    for resource in resource_list["items"]:
      if contains_private_key(resource):
        fail("it is prohibited to have private key in a configmap")
  ensure_no_private_key(ctx.resource_list)
`,
      "fail: it is prohibited to have private key in a configmap",
    ],
    [
      "reports syntax errors at script line and column, named after the function config",
      RESOURCES,
      `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: broken
source: |
  def f(resources):
    for r in resources:
      r["metadata"]["labels"] = 
  f(ctx.resource_list["items"])
`,
      "broken:4:1: got newline, want primary expression",
    ],
    [
      "rejects other function config kinds with the catalog's message",
      RESOURCES,
      "apiVersion: example.com/v1\nkind: Foo\nmetadata:\n  name: x\n",
      "`functionConfig` must be either /v1, Kind=ConfigMap or fn.kpt.dev/v1alpha1, Kind=StarlarkRun, but we got: example.com/v1, Kind=Foo",
    ],
    [
      "rejects an empty source",
      RESOURCES,
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: x\n",
      "`source` must not be empty",
    ],
  ])("%s", (_name, items, config, message) => {
    expect(errorOf(() => runStarlark(list(items, config)))).toBe(message);
  });

  it("generates a resource with sorted keys and no annotations (kpt files it), and deletes one dropped from the list", () => {
    const out = runStarlark(
      list(
        RESOURCES,
        `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: gen
params:
  replicas: 3
source: |
  items = ctx.resource_list["items"]
  keep = [r for r in items if r["kind"] != "Bar"]
  keep.append({
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web"},
    "spec": {"replicas": ctx.resource_list["functionConfig"]["params"]["replicas"]},
  })
  ctx.resource_list["items"] = keep
`,
      ),
    );
    expect(out.items).toHaveLength(2);
    expect(out.items[1]!.toString()).toBe(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
`);
  });

  it("accepts a ConfigMap function config with data.source and parameters in data", async () => {
    const out = (await starlarkFunction.run(
      list(
        RESOURCES,
        `apiVersion: v1
kind: ConfigMap
metadata:
  name: set-replicas
data:
  owner: team-a
  source: |
    def label(resources, owner):
      for r in resources:
        r["metadata"].setdefault("labels", {})["owner"] = owner
    label(ctx.resource_list["items"], ctx.resource_list["functionConfig"]["data"]["owner"])
`,
      ),
      {},
    )) as ResourceList;
    expect(out.items.map((d) => d.getIn(["metadata", "labels", "owner"]))).toEqual(["team-a", "team-a"]);
  });

  it("loads encoding/json.star and the krmfn module", () => {
    const out = runStarlark(
      list(
        RESOURCES,
        `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: json
source: |
  load("encoding/json.star", "json")
  load("krmfn.star", "krmfn")
  for r in ctx.resource_list["items"]:
    if krmfn.match_gvk(r, "v1", "ConfigMap") and krmfn.match_name(r, "my-cm"):
      r["data"]["copy"] = json.encode(json.decode('{"b": [1, 2.5, null], "a": true}'))
`,
      ),
    );
    expect(out.items[0]!.getIn(["data", "copy"])).toBe('{"a":true,"b":[1,2.5,null]}');
  });

  it.each([
    [
      "ends a runaway script with a step-limit error",
      `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: spin
source: |
  while True:
    pass
`,
      { maxSteps: 10_000 },
      "Starlark computation cancelled: too many steps (limit 10000)",
    ],
    [
      "ends a script that allocates too much with a memory-limit error",
      `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: hog
source: |
  x = ["a"] * 1000000
`,
      { maxCells: 100_000 },
      "Starlark computation cancelled: memory limit exceeded (limit 100000 values)",
    ],
  ])("%s", (_name, config, limits, message) => {
    expect(() => runStarlark(list(RESOURCES, config), { limits })).toThrow(message);
  });

  it("keeps comments and key order but writes styles as Go's yaml.Marshal does (as kpt shows the output)", () => {
    const out = runStarlark(
      list(
        `# head comment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: 'web' # the name
  labels: {zeta: z, alpha: a}
spec:
  # replicas comment
  replicas: 3
  template:
    spec:
      containers:
        - name: "c" # container
          image: "nginx"
          args: ["a", "b"]
`,
        `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: ns
source: |
  for r in ctx.resource_list["items"]:
    r["metadata"]["namespace"] = "prod"
    r["spec"]["zzz"] = 1
`,
      ),
    );
    // What kpt v1.0.0-beta.56 writes for an exec function that returns the same resource with sorted keys,
    // block style and no comments, as the catalog function does.
    expect(formatDocument(out.items[0]!, "wide")).toBe(`# head comment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the name
  labels:
    zeta: z
    alpha: a
  namespace: prod
spec:
  # replicas comment
  replicas: 3
  template:
    spec:
      containers:
        - name: c # container
          image: nginx
          args:
            - a
            - b
  zzz: 1
`);
  });

  it("keeps a changed value's comment, needed quotes, and drops deleted keys", () => {
    const out = runStarlark(
      list(
        `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  a: "1" # quoted on purpose
  b: old # the b value
  c: gone
`,
        `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: edit
source: |
  d = ctx.resource_list["items"][0]["data"]
  d["b"] = "new"
  d.pop("c")
  d["z"] = 2
  d["m"] = True
`,
      ),
    );
    expect(print(out)).toBe(`apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  a: "1" # quoted on purpose
  b: new # the b value
  m: true
  z: 2
`);
  });
});

describe("kpt starlark function: values back to YAML as the catalog's Go round trip", () => {
  const run = (
    body: string,
    items = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  name: héllo\n",
  ) =>
    runStarlark(
      list(
        items,
        `apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: v\nsource: |\n${body
          .split("\n")
          .map((l) => `  ${l}`)
          .join("\n")}\n`,
      ),
    );

  it("writes floats as yaml.v3 does (%g, .inf), ints and non-string keys as scalars", () => {
    const out = run(
      'd = ctx.resource_list["items"][0]["data"]\nd["f"] = [1.0, 1e6, 0.5, 1e-5, float("inf")]\nd["k"] = {1: "one", True: "x"}',
    );
    expect(formatDocument(out.items[0]!)).toBe(`apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  name: héllo
  f:
  - 1
  - 1e+06
  - 0.5
  - 1e-05
  - .inf
  k:
    1: one
    true: x
`);
  });

  it("sees YAML strings as UTF-8 bytes and writes them back as text", () => {
    const out = run(
      'd = ctx.resource_list["items"][0]["data"]\nd["len"] = len(d["name"])\nd["first"] = d["name"][:2]',
    );
    expect(out.items[0]!.toJSON()).toMatchObject({ data: { name: "héllo", len: 6, first: "h\ufffd" } });
  });

  it("fails on values YAML cannot hold with starlib's message", () => {
    expect(errorOf(() => run('ctx.resource_list["items"][0]["data"]["s"] = set([1])'))).toBe(
      "unmarshaling starlark value: unmarshaling starlark value: unmarshaling starlark value: sets aren't yet supported",
    );
    expect(errorOf(() => run('def f(): pass\nctx.resource_list["items"][0]["f"] = [f]'))).toBe(
      "unmarshaling starlark value: unmarshaling starlark value: unrecognized starlark type: function",
    );
  });
});

describe("kpt starlark function: shared values become separate nodes", () => {
  it("gives a generated resource its own copy of a dict it shares with an input", () => {
    const out = runStarlark(
      list(
        RESOURCES,
        `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: share
source: |
  cm = ctx.resource_list["items"][0]
  ctx.resource_list["items"].append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "copy"}, "data": cm["data"]})
  ctx.resource_list["items"].append(cm)
`,
      ),
    );
    expect(out.items).toHaveLength(4);
    const [orig, , copy, twice] = out.items;
    expect(copy!.get("data")).not.toBe(orig!.get("data"));
    expect(twice).not.toBe(orig);
    expect(twice!.get("metadata")).not.toBe(orig!.get("metadata"));
    orig!.setIn(["data", "some-key"], "changed");
    expect(copy!.getIn(["data", "some-key"])).toBe("some-value");
    expect(twice!.getIn(["data", "some-key"])).toBe("some-value");
    // the input resource keeps its comment; the copies are new documents
    expect(orig!.toString()).toContain("# a comment");
  });

  it("yaml.dumps of a resource sorts keys and leaves the resource as it was", () => {
    const out = runStarlark(
      list(
        RESOURCES,
        `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: dump
source: |
  load("encoding/yaml.star", "yaml")
  cm = ctx.resource_list["items"][0]
  cm["data"]["dump"] = yaml.dumps(cm["metadata"])
`,
      ),
    );
    expect(out.items[0]!.getIn(["data", "dump"])).toBe(
      "annotations:\n  config.kubernetes.io/path: cm.yaml\nname: my-cm\n",
    );
    expect(print({ ...out, items: [out.items[0]!] })).toContain("metadata:\n  name: my-cm\n  annotations:");
  });
});

describe("kpt starlark function: a failing output changes nothing", () => {
  it("leaves every input document untouched when a later item cannot be written", () => {
    const rl = list(
      RESOURCES,
      `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: partial
source: |
  items = ctx.resource_list["items"]
  items[0]["metadata"]["namespace"] = "changed"
  items[1]["spec"]["self"] = items[1]["spec"]
`,
    );
    const before = print(rl);
    expect(errorOf(() => runStarlark(rl))).toBe(
      "unmarshaling starlark value: unmarshaling starlark value: unmarshaling starlark value: dict contains itself",
    );
    expect(print(rl)).toBe(before);
  });
});

describe("kpt starlark function by release", () => {
  const fc = (source: string, name = "p") =>
    `apiVersion: fn.kpt.dev/v1alpha1\nkind: StarlarkRun\nmetadata:\n  name: ${name}\nsource: |\n${source
      .split("\n")
      .map((l) => `  ${l}`)
      .join("\n")}\n`;
  const failed = (f: () => unknown): FunctionExitError => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(FunctionExitError);
      return e as FunctionExitError;
    }
    throw new Error("expected the function to fail");
  };

  it("writes print() output to stderr, as kpt shows a container's, with no result", () => {
    const out = runStarlark(
      list(RESOURCES, fc('print("items:", len(ctx.resource_list["items"]))\nprint("a\\nb")')),
      {
        release: "v0.2.1",
      },
    );
    expect([out.stderr, out.results]).toEqual(["items: 2\na\nb", []]);
  });

  it.each([
    // kyaml's framework before v0.4.0 writes the Result as its error; the functions SDK a fixed line.
    ["v0.2.1", "items: 2\n[error] : fail: nope"],
    ["v0.3.0", "items: 2\n[error] : fail: nope"],
    ["v0.4.2", "items: 2"],
    ["v0.4.3", "items: 2\nfailed to evaluate function: error: function failure"],
    ["v0.5.1", "items: 2\nfailed to evaluate function: error: function failure"],
  ])("at %s a failing script exits 1 with the error result and stderr %j", (release, stderr) => {
    const e = failed(() =>
      runStarlark(list(RESOURCES, fc('print("items:", len(ctx.resource_list["items"]))\nfail("nope")')), {
        release,
      }),
    );
    expect([e.exitCode, e.stderr, e.results]).toEqual([
      1,
      stderr,
      [{ message: "fail: nope", severity: "error" }],
    ]);
  });

  it.each([
    ["v0.2.1", fc(""), "`source` in `StarlarkRun` must not be empty"],
    [
      "v0.3.0",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n",
      "`data.source` must not be empty in `ConfigMap`",
    ],
    ["v0.4.0", fc(""), "`source` must not be empty"],
    [
      "v0.4.3",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n",
      "`source` must not be empty",
    ],
    [
      "v0.4.3",
      "apiVersion: fn.kpt.dev/v1beta1\nkind: StarlarkRun\nmetadata:\n  name: x\nsource: pass\n",
      "`functionConfig` must be either /v1, Kind=ConfigMap or fn.kpt.dev/v1alpha1, Kind=StarlarkRun, but we got: fn.kpt.dev/v1beta1, Kind=StarlarkRun",
    ],
  ])("at %s rejects a config with the release's message", (release, config, message) => {
    expect(failed(() => runStarlark(list(RESOURCES, config), { release })).message).toBe(message);
  });

  it("names a missing config from v0.4.3, and matches StarlarkRun by group and kind from v0.5.1", () => {
    const none = { items: parseAllDocuments(RESOURCES) as Document[], results: [] };
    expect(failed(() => runStarlark(none, { release: "v0.4.3" })).message).toBe(
      "FunctionConfig is missing. Expect `ConfigMap` or `StarlarkRun`",
    );
    const v1beta1 =
      "apiVersion: fn.kpt.dev/v1beta1\nkind: StarlarkRun\nmetadata:\n  name: x\nsource: |\n  print('ran')\n";
    expect(runStarlark(list(RESOURCES, v1beta1), { release: "v0.5.1" }).stderr).toBe("ran");
  });

  it.each([
    ["v0.2.2", "p:1:5: this Starlark dialect does not support set"],
    ["v0.3.0", undefined],
  ])("at %s set() and a top-level for loop fail with %j", (release, error) => {
    const run = () =>
      runStarlark(list(RESOURCES, fc('s = set([1])\nfor r in ctx.resource_list["items"]:\n  pass')), {
        release,
      });
    if (error) expect(failed(run).message).toBe(error);
    else expect(run().items).toHaveLength(2);
  });

  it.each([
    ["v0.2.1", "cannot load encoding/json.star: load not implemented by this application"],
    ["v0.4.0", "load: name krmfn not found in module krmfn.star"],
  ])("at %s load() fails with %j", (release, message) => {
    const src = 'load("encoding/json.star", "json")\nload("krmfn.star", "krmfn")';
    expect(failed(() => runStarlark(list(RESOURCES, fc(src)), { release })).message).toBe(message);
  });

  it.each([
    ["v0.5.0", 'stalark-function-run:1:5: unexpected input character "$"'],
    ["v0.5.1", 'starlark-function-run:1:5: unexpected input character "$"'],
  ])("at %s a config with no name runs as %j", (release, message) => {
    const config = "apiVersion: v1\nkind: ConfigMap\ndata:\n  source: 'x = $'\n";
    expect(failed(() => runStarlark(list(RESOURCES, config), { release })).message).toBe(message);
  });

  it("writes a generated resource with every map's keys sorted, as the Go round trip does", () => {
    const out = runStarlark(
      list(
        RESOURCES,
        `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: pdb
params:
  pdb:
    kind: PodDisruptionBudget
    apiVersion: policy/v1
    metadata:
      name: nginx-pdb
    spec:
      selector: {matchLabels: {app: nginx}}
      minAvailable: 1
source: |
  ctx.resource_list["items"].append(ctx.resource_list["functionConfig"]["params"]["pdb"])
`,
      ),
      { release: "v0.4.3" },
    );
    expect(out.items[2]!.toString()).toBe(`apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: nginx-pdb
spec:
  minAvailable: 1
  selector:
    matchLabels:
      app: nginx
`);
  });
});

describe("kpt starlark function: the krmfn module by release", () => {
  const items = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
`;
  const script = `apiVersion: fn.kpt.dev/v1alpha1
kind: StarlarkRun
metadata:
  name: m
source: |
  load("krmfn.star", "krmfn")
  for r in ctx.resource_list["items"]:
    print(r["kind"], krmfn.match_gvk(r, "apps/v1", "Deployment"), krmfn.match_gvk(r, "v1", "ConfigMap"), krmfn.match_name(r, "web"), krmfn.match_namespace(r, "prod"))
`;
  it.each([
    // v0.4.x: KubeObject.IsGVK compares the apiVersion as written.
    ["v0.4.3", "Deployment True False True True\nConfigMap False True False False"],
    // v0.5.1: IsGroupVersionKind with group "": only a core-group resource matches.
    ["v0.5.1", "Deployment False False True True\nConfigMap False True False False"],
  ])("at %s match_gvk, match_name and match_namespace answer %j", (release, printed) => {
    expect(runStarlark(list(items, script), { release }).stderr).toBe(printed);
  });
});
