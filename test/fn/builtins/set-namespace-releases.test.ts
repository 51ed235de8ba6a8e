import { describe, expect, it } from "vitest";
import { type Document, parseDocument } from "yaml";
import { setNamespaceKustomize } from "../../../src/fn/builtins/set-namespace-kustomize.js";
import { setNamespaceSdk } from "../../../src/fn/builtins/set-namespace-sdk.js";
import { goFormatFloat } from "../../../src/fn/builtins/util/go-json-roundtrip.js";
import { defaultRegistry } from "../../../src/fn/registry.js";
import { FunctionExitError } from "../../../src/fn/runtime/errors.js";
import type { BuiltinFunction, ResourceList } from "../../../src/fn/types.js";
import { formatDocuments } from "../../../src/kpt/yaml/format.js";
import { codeBlock } from "../../util/codeblock.js";
import { kptfile, resource, stream } from "../../util/krm.js";
import { parseItems } from "./catalog-harness.js";

/** Runs a builtin as the given release and writes its items as kpt would (the kpt formatter). */
async function run(fn: BuiltinFunction, release: string, resources: string, config?: string) {
  const input: ResourceList = {
    items: parseItems(resources),
    results: [],
    ...(config === undefined ? {} : { functionConfig: parseDocument(config) as unknown as Document }),
  };
  const out = await fn.run(input, { release });
  return { output: formatDocuments(out.items), results: out.results, exitCode: out.exitCode };
}

const cm = (name: string, rest = "") => resource("v1", "ConfigMap", name, rest);
const configMap = (ns: string) => cm("function-input", `data:\n  namespace: ${ns}\n`);
/** `metadata.namespace`, a line to follow `metadata.name`. */
const inNs = (ns: string) => `  namespace: ${ns}\n`;
/** A RoleBinding `rb`; `rest` as resource() takes it. */
const roleBinding = (rest: string) => resource("rbac.authorization.k8s.io/v1", "RoleBinding", "rb", rest);
/** A CustomResourceDefinition `name` whose conversion webhook's service is `service` (its YAML lines). */
const crdOf = (name: string, service: string) =>
  resource(
    "apiextensions.k8s.io/v1",
    "CustomResourceDefinition",
    name,
    `spec:\n  conversion:\n    webhook:\n      clientConfig:\n        service:\n${service.replace(/^/gm, "          ")}\n`,
  );

describe("set-namespace releases: which implementation a tag runs", () => {
  it.each([
    ["gcr.io/kpt-fn/set-namespace:v0.1.3", setNamespaceKustomize, "v0.1.3"],
    ["gcr.io/kpt-fn/set-namespace:v0.1", setNamespaceKustomize, "v0.1.4"],
    ["gcr.io/kpt-fn/set-namespace:v0.2.0", setNamespaceKustomize, "v0.2.0"],
    ["gcr.io/kpt-fn/set-namespace:v0.3", setNamespaceSdk, "v0.3.4"],
    ["gcr.io/kpt-fn/set-namespace:v0.3.0", setNamespaceSdk, "v0.3.0"],
    ["gcr.io/kpt-fn/set-namespace:v0.4", setNamespaceSdk, "v0.4.1"],
  ])("%s runs its release", (image, fn, release) => {
    expect(defaultRegistry().resolve(image)).toEqual({ fn, release });
  });
});

describe("set-namespace v0.1–v0.2 (kustomize's namespace transformer)", () => {
  it("gives the Kptfile and every resource not known to be cluster-scoped the namespace, and renames the Namespace", async () => {
    const reader = resource("rbac.authorization.k8s.io/v1", "ClusterRole", "reader");
    const input = stream(kptfile("app"), cm("cm"), reader, resource("v1", "Namespace", "old"));
    const { output, results } = await run(setNamespaceKustomize, "v0.1.3", input, configMap("prod"));
    expect(output).toBe(
      stream(
        kptfile("app", inNs("prod")),
        cm("cm", inNs("prod")),
        reader,
        resource("v1", "Namespace", "prod"),
      ),
    );
    expect(results).toEqual([]);
  });

  const localConfig = stream(
    cm("setters", '  annotations:\n    config.kubernetes.io/local-config: "true"\n'),
    cm("cm"),
  );
  it.each([
    ["v0.1.3", "drops it (kpt then deletes the file)", ["cm"]],
    ["v0.1.4", "keeps it, with the namespace", ["setters", "cm"]],
  ])("a local-config resource: %s %s", async (release, _what, names) => {
    const { output } = await run(setNamespaceKustomize, release, localConfig, configMap("prod"));
    const docs = parseItems(output);
    expect(docs.map((d) => d.getIn(["metadata", "name"]))).toEqual(names);
    expect(docs.map((d) => d.getIn(["metadata", "namespace"]))).toEqual(names.map(() => "prod"));
  });

  const binding = stream(
    roleBinding(codeBlock`
          namespace: old
        subjects:
          - kind: ServiceAccount
            name: default
          - kind: ServiceAccount
            name: app
            namespace: old
          - kind: User
            name: jane
      `),
    resource("v1", "ServiceAccount", "app"),
  );
  it.each([
    ["v0.1.4", ["prod", "old", undefined]],
    ["v0.2.0", ["prod", "prod", undefined]],
  ])(
    "binding subjects at %s: `default`, and from v0.2.0 a ServiceAccount of the package",
    async (release, want) => {
      const { output } = await run(setNamespaceKustomize, release, binding, configMap("prod"));
      const subjects = parseItems(output)[0]!.toJS().subjects as { namespace?: string }[];
      expect(subjects.map((s) => s.namespace)).toEqual(want);
    },
  );

  it.each([
    ["v0.1.3", "", "function config must be a ConfigMap or SetNamespaceConfig", "[error] /// : "],
    ["v0.1.3", configMap('""'), "input namespace cannot be empty", "[error] /// : "],
    ["v0.1.2", configMap('""'), "input namespace cannot be empty", ""],
    ["v0.1.4", "", "`functionConfig` must be a `ConfigMap` or `SetNamespace`", "[error] : "],
    [
      "v0.1.3",
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetNamespace\nmetadata:\n  name: c\nnamespace: prod\n",
      "function config must be a ConfigMap or SetNamespaceConfig",
      "[error] /// : ",
    ],
    [
      "v0.2.0",
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetNamespace\nmetadata:\n  name: c\nnamespace: prod\nfieldSpecs: []\nadditionalNamespaceFields: []\n",
      "`fieldSpecs` has been deprecated, please rename it to `additionalLabelFields`",
      "[error] : ",
    ],
  ])("%s fails on config %j: %s", async (release, config, message, stderrPrefix) => {
    const error = await run(setNamespaceKustomize, release, "", config === "" ? undefined : config).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FunctionExitError);
    const e = error as FunctionExitError;
    expect(e.results).toEqual([{ message: `failed to configure function: ${message}`, severity: "error" }]);
    expect(e.stderr).toBe(`${stderrPrefix}failed to configure function: ${message}`);
    expect(e.exitCode).toBe(1);
  });

  it.each([
    ["v0.1.3", "SetNamespaceConfig", "fieldSpecs"],
    ["v0.1.4", "SetNamespace", "additionalNamespaceFields"],
  ])("%s sets the namespace at the config's own field specs (%s, %s)", async (release, kind, key) => {
    const config = resource(
      "fn.kpt.dev/v1alpha1",
      kind,
      "c",
      `namespace: prod\n${key}:\n  - group: example.com\n    kind: Db\n    path: spec/ref/namespace\n    create: true\n`,
    );
    const db = (rest: string) => resource("example.com/v1", "Db", "db", rest);
    const { output } = await run(setNamespaceKustomize, release, db("spec:\n  size: 1\n"), config);
    expect(output).toBe(db(`${inNs("prod")}spec:\n  size: 1\n  ref:\n    namespace: prod\n`));
  });

  it.each([
    ["v0.1.3", "old", "svc"],
    ["v0.1.4", "prod", "svc"],
  ])("a CRD's conversion webhook service at %s: namespace %s", async (release, want) => {
    const crd = crdOf("dbs.example.com", "name: svc\nnamespace: old");
    const { output } = await run(setNamespaceKustomize, release, crd, configMap("prod"));
    expect(
      parseItems(output)[0]!.getIn(["spec", "conversion", "webhook", "clientConfig", "service", "namespace"]),
    ).toBe(want);
  });

  const styled = cm(
    "cm # the name",
    "data:\n  quoted: 'text'\n  answer: yes\n  big: 1000000\n  whole: 1.0\n  list: [a, b]\n  empty:\n",
  );
  /** The styled ConfigMap as `release` writes it back, its `answer` and `big` as given. */
  const styledOut = (answer: string, big: string) =>
    cm(
      "cm # the name",
      `${inNs("prod")}data:\n  quoted: text\n  answer: ${answer}\n  big: ${big}\n  whole: 1\n  list:\n  - a\n  - b\n  empty: null\n`,
    );
  it.each([
    ["v0.1.3", styledOut("true", "1000000")],
    ["v0.1.4", styledOut('"yes"', "1e+06")],
  ])("%s writes every value as its trip through Go maps leaves it", async (release, want) => {
    const { output } = await run(setNamespaceKustomize, release, styled, configMap("prod"));
    expect(output).toBe(want);
  });

  // Both Go YAML libraries read numbers with strconv.ParseInt(s, 0, 64) after dropping underscores, so a
  // leading zero is octal (yaml.v3's resolve.go keeps 1.1's `0777` "for compatibility") and `1_000` is
  // a number; JavaScript's YAML 1.2 reader takes them for 17 and a string.
  const numbers = (octal: string, grouped: string, meta = "") =>
    cm("cm", `${meta}data:\n  octal: ${octal}\n  grouped: ${grouped}\n  infinite: .inf\n`);
  it.each([
    ["v0.1.3", "15", "1000"],
    ["v0.1.4", "15", "1000"],
  ])("%s reads numbers as Go's YAML libraries do", async (release, octal, grouped) => {
    const { output } = await run(setNamespaceKustomize, release, numbers("017", "1_000"), configMap("prod"));
    expect(output).toBe(numbers(octal, grouped, inNs("prod")));
  });
});

describe("set-namespace v0.3 (the first SDK releases)", () => {
  it("replaces the namespace the namespaced resources share, and writes every visited field back", async () => {
    const svc = (ns: string) => resource("v1", "Service", "svc", inNs(ns));
    const crd = resource("apiextensions.k8s.io/v1", "CustomResourceDefinition", "dbs.example.com");
    const input = stream(svc("'old'"), crd, cm("cm"));
    const { output, results, exitCode } = await run(setNamespaceSdk, "v0.3.4", input, configMap("prod"));
    expect(output).toBe(stream(svc("prod"), crdOf("dbs.example.com", 'namespace: ""'), cm("cm")));
    expect(results).toEqual([
      { message: 'namespace "old" updated to "prod", 1 values changed', severity: "info" },
    ]);
    expect(exitCode).toBe(0);
  });

  const twoNamespaces = stream(cm("a", inNs("x")), cm("b", inNs("y")));
  it.each([
    ["v0.3.1", "x,y"],
    ["v0.3.4", '"x,y"'],
  ])(
    "%s reports resources in different namespaces as an error result and still succeeds",
    async (release, list) => {
      const { results, exitCode, output } = await run(
        setNamespaceSdk,
        release,
        twoNamespaces,
        configMap("prod"),
      );
      expect(results).toEqual([
        {
          message: `all input namespace-scoped resources should be under the same namespace but found different namespaces: ${list} `,
          severity: "error",
        },
      ]);
      expect(exitCode).toBe(0);
      expect(output).toBe(twoNamespaces);
    },
  );

  it("v0.3.2 fails on an index out of range when no resource has a namespace; v0.3.3 says so", async () => {
    const input = cm("a");
    const error = await run(setNamespaceSdk, "v0.3.2", input, configMap("prod")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FunctionExitError);
    expect((error as FunctionExitError).results).toEqual([
      { message: "panic with runtime error: index out of range [0] with length 0", severity: "error" },
    ]);
    const { results } = await run(setNamespaceSdk, "v0.3.3", input, configMap("prod"));
    expect(results[0]?.message).toMatch(/^could not find any namespace fields to update\./);
  });

  it.each([
    ["v0.3.1", "old"],
    ["v0.3.2", "prod"],
  ])("RoleBinding subjects at %s: %s", async (release, want) => {
    const input = roleBinding(
      `${inNs("old")}subjects:\n  - kind: ServiceAccount\n    name: app\n    namespace: old\n`,
    );
    const { output } = await run(setNamespaceSdk, release, input, configMap("prod"));
    expect(parseItems(output)[0]!.getIn(["subjects", 0, "namespace"])).toBe(want);
  });

  it("v0.3.3 alone adds its stray `set image` result", async () => {
    const input = cm("a", inNs("old"));
    const { results } = await run(setNamespaceSdk, "v0.3.3", input, configMap("prod"));
    expect(results[1]).toEqual({
      message: "set image from old to prod",
      severity: "info",
      field: { path: "", currentValue: "old", proposedValue: "prod" },
      file: { path: "test" },
    });
    expect((await run(setNamespaceSdk, "v0.3.4", input, configMap("prod"))).results).toHaveLength(1);
  });

  it("reports a bad config as an error result and succeeds", async () => {
    const { results, exitCode } = await run(setNamespaceSdk, "v0.3.4", "", configMap('""'));
    expect(results).toEqual([
      {
        message: "`data.namespace` should not be empty",
        severity: "error",
        resourceRef: { apiVersion: "v1", kind: "ConfigMap", name: "function-input" },
      },
    ]);
    expect(exitCode).toBe(0);
  });
});

describe("set-namespace v0.4 (every namespace field gets the new namespace)", () => {
  it("replaces every other namespace and fills an unset one of a namespace-scoped kind", async () => {
    const input = stream(
      kptfile("app"),
      cm("a", inNs("x")),
      cm("b", inNs("y")),
      resource("apps/v1", "Deployment", "c"),
      resource("example.com/v1", "Db", "d"),
    );
    const { output, results, exitCode } = await run(setNamespaceSdk, "v0.4.1", input, configMap("prod"));
    const docs = parseItems(output);
    expect(docs.map((d) => d.getIn(["metadata", "namespace"]))).toEqual([
      undefined,
      "prod",
      "prod",
      "prod",
      undefined,
    ]);
    expect(results).toEqual([
      { message: 'namespace "","x","y" updated to "prod", 3 value(s) changed', severity: "info" },
    ]);
    expect(exitCode).toBe(0);
  });

  it.each([
    ["reports two resources with the same id as an error result and succeeds", stream(cm("a"), cm("a"))],
    [
      "tells duplicates by the ids the resources have after the pass (two namespaces made one)",
      stream(cm("a", inNs("x")), cm("a", inNs("y"))),
    ],
  ])("%s", async (_name, input) => {
    const { results, exitCode } = await run(setNamespaceSdk, "v0.4.1", input, configMap("prod"));
    expect(results).toEqual([
      {
        message: "duplicate Resource(apiVersion=v1, kind=ConfigMap, Namespace=prod, Name=a)",
        severity: "error",
      },
    ]);
    expect(exitCode).toBe(0);
  });

  it("v0.4.0 reports a missing config as a result and succeeds; v0.4.1 fails", async () => {
    const v040 = await run(setNamespaceSdk, "v0.4.0", "");
    expect(v040.results).toEqual([
      {
        message: "unknown functionConfig Kind= ApiVersion=, expect `SetNamespace` or `ConfigMap`",
        severity: "error",
      },
    ]);
    expect(v040.exitCode).toBe(0);
    const error = await run(setNamespaceSdk, "v0.4.1", "").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FunctionExitError);
    const e = error as FunctionExitError;
    expect(e.results).toEqual([
      { message: "FunctionConfig is missing. Expect `ConfigMap` or `SetNamespace`", severity: "error" },
    ]);
    expect(e.stderr).toBe("failed to evaluate function: error: function failure");
  });
});

describe("Go's %g for float64", () => {
  it.each([
    [3, "3"],
    [100000, "100000"],
    [1000000, "1e+06"],
    [1234567, "1.234567e+06"],
    [0.5, "0.5"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [-2.5e-7, "-2.5e-07"],
  ])("%s → %s", (f, want) => {
    expect(goFormatFloat(f)).toBe(want);
  });
});
