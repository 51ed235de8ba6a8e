import { describe, expect, it } from "vitest";
import { setNamespace } from "../../../src/fn/builtins/set-namespace.js";
import { codeBlock } from "../../util/codeblock.js";
import { runBuiltin } from "./catalog-harness.js";

const config = (ns: string, extra = "") => codeBlock`
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: function-input
  data:
    namespace: ${ns}
  ${extra}
`;

describe("set-namespace", () => {
  it("replaces every namespace field of a package cloned from one upstream namespace", async () => {
    const input = codeBlock`
      apiVersion: v1
      kind: Namespace
      metadata:
        name: example1
        annotations:
          internal.kpt.dev/upstream-identifier: "|Namespace|~C|example"
      ---
      apiVersion: v1
      kind: Service
      metadata:
        name: the-service
        namespace: example2 # keep this comment
        annotations:
          internal.kpt.dev/upstream-identifier: "|Service|example|the-service"
      ---
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata:
        name: crd
        annotations:
          internal.kpt.dev/upstream-identifier: "apiextensions.k8s.io|CustomResourceDefinition|~C|crd"
      spec:
        conversion:
          strategy: Webhook
          webhook:
            clientConfig:
              service:
                name: crd-svc
                namespace: example3
      ---
      apiVersion: apiregistration.k8s.io/v1
      kind: APIService
      metadata:
        name: api
        annotations:
          internal.kpt.dev/upstream-identifier: "apiregistration.k8s.io|APIService|~C|api"
      spec:
        service:
          name: api-svc
          namespace: example4
      ---
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRoleBinding
      metadata:
        name: crb
        annotations:
          internal.kpt.dev/upstream-identifier: "rbac.authorization.k8s.io|ClusterRoleBinding|~C|crb"
      subjects:
        - kind: ServiceAccount
          name: default
          namespace: example5
    `;
    const { output, results } = await runBuiltin(setNamespace, input, config("new-ns"));
    expect(output).toBe(input.replace(/example[1-5]\b/g, "new-ns"));
    expect(results).toEqual([
      {
        message:
          'namespace [example1 example2 example3 example4 example5] updated to "new-ns", 5 value(s) changed',
        severity: "info",
      },
      { message: "all `depends-on` annotations are up-to-date. no `namespace` changed", severity: "info" },
    ]);
  });

  it("adds the namespace to namespaced and unknown kinds, not to cluster-scoped ones, and warns of missing origins", async () => {
    const input = codeBlock`
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: app
      ---
      apiVersion: example.com/v1
      kind: Widget
      metadata:
        name: w
      ---
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRole
      metadata:
        name: reader
    `;
    const { output, results } = await runBuiltin(setNamespace, input, config("prod"));
    expect(output).toBe(codeBlock`
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: app
        namespace: prod
      ---
      apiVersion: example.com/v1
      kind: Widget
      metadata:
        name: w
        namespace: prod
      ---
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRole
      metadata:
        name: reader
    `);
    expect(results.map((r) => `${r.severity}: ${r.message}`)).toEqual([
      "warning: Resource(apiVersion=apps/v1, kind=Deployment, namespace=, name=app) does not have upstream origin.",
      "warning: Resource(apiVersion=example.com/v1, kind=Widget, namespace=, name=w) does not have upstream origin.",
      "warning: Resource(apiVersion=rbac.authorization.k8s.io/v1, kind=ClusterRole, namespace=, name=reader) does not have upstream origin.",
      'info: namespace [default] updated to "prod", 2 value(s) changed',
      "info: all `depends-on` annotations are up-to-date. no `namespace` changed",
    ]);
  });

  it("leaves local-config resources and the Kptfile alone", async () => {
    const input = codeBlock`
      apiVersion: kpt.dev/v1
      kind: Kptfile
      metadata:
        name: pkg
      ---
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: setters
        annotations:
          config.kubernetes.io/local-config: "true"
      data:
        a: b
    `;
    const { output, results } = await runBuiltin(setNamespace, input, config("prod"));
    expect(output).toBe(input);
    expect(results.map((r) => r.message)).toEqual([
      'all matching namespaces are already "prod". no value changed',
      "all `depends-on` annotations are up-to-date. no `namespace` changed",
    ]);
  });

  it("updates depends-on annotations that point at a resource whose namespace changed", async () => {
    const input = codeBlock`
      apiVersion: v1
      kind: ServiceAccount
      metadata:
        name: sa
        namespace: old
        annotations:
          internal.kpt.dev/upstream-identifier: "|ServiceAccount|old|sa"
      ---
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: app
        namespace: old
        annotations:
          internal.kpt.dev/upstream-identifier: "apps|Deployment|old|app"
          config.kubernetes.io/depends-on: /namespaces/old/ServiceAccount/sa
      ---
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: other
        namespace: old
        annotations:
          internal.kpt.dev/upstream-identifier: "apps|Deployment|old|other"
          config.kubernetes.io/depends-on: /namespaces/old/ServiceAccount/elsewhere
    `;
    const { output, results } = await runBuiltin(setNamespace, input, config("new"));
    expect(output).toContain("config.kubernetes.io/depends-on: /namespaces/new/ServiceAccount/sa\n");
    expect(output).toContain("config.kubernetes.io/depends-on: /namespaces/old/ServiceAccount/elsewhere\n");
    expect(results.map((r) => r.message)).toEqual([
      'namespace [old] updated to "new", 3 value(s) changed',
      '`depends-on` annotation namespace [old] updated to "new", 1 value(s) changed',
    ]);
  });

  it("updates RoleBinding subjects with a namespace, and the binding's own namespace", async () => {
    const input = codeBlock`
      apiVersion: rbac.authorization.k8s.io/v1
      kind: RoleBinding
      metadata:
        name: rb
        namespace: old
        annotations:
          internal.kpt.dev/upstream-identifier: "rbac.authorization.k8s.io|RoleBinding|old|rb"
      subjects:
        - kind: ServiceAccount
          name: sa
          namespace: old
        - kind: User
          name: jane
    `;
    const { output } = await runBuiltin(setNamespace, input, config("new"));
    expect(output).toBe(input.replaceAll("namespace: old", "namespace: new"));
  });

  it("with namespaceMatcher, changes only the matching namespace", async () => {
    const input = codeBlock`
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: a
        namespace: one
      ---
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: b
        namespace: two
    `;
    const { output, results } = await runBuiltin(
      setNamespace,
      input,
      config("three", "  namespaceMatcher: one"),
    );
    expect(output).toBe(input.replace("namespace: one", "namespace: three"));
    expect(results.slice(2).map((r) => r.message)).toEqual([
      "[Resource(apiVersion=v1, kind=ConfigMap, namespace=one, name=a)] has matching origin one",
      'namespace [one] updated to "three", 1 value(s) changed',
      "all `depends-on` annotations are up-to-date. no `namespace` changed",
    ]);
  });

  it("fails when namespaced resources come from different upstream namespaces", async () => {
    const input = codeBlock`
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: a
        namespace: one
        annotations:
          internal.kpt.dev/upstream-identifier: "|ConfigMap|one|a"
      ---
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: b
        namespace: two
        annotations:
          internal.kpt.dev/upstream-identifier: "|ConfigMap|two|b"
    `;
    const { output, results } = await runBuiltin(setNamespace, input, config("x"));
    expect(output).toBe(input);
    expect(results).toEqual([
      {
        message:
          "unable to use origin `namespace` to match. expect a single upstream namespace, found [one two]. please switch to use `namespaceMatcher`to specify the namespace value you want to change",
        severity: "error",
      },
    ]);
  });

  it("accepts the typed SetNamespace config and the package-context ConfigMap", async () => {
    const input = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: a\n";
    const typed = "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetNamespace\nmetadata:\n  name: x\nnamespace: b\n";
    expect((await runBuiltin(setNamespace, input, typed)).output).toContain("namespace: b\n");
    const context = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\ndata:\n  name: c\n";
    expect((await runBuiltin(setNamespace, input, context)).output).toContain("namespace: c\n");
  });

  it.each([
    [undefined, "FunctionConfig is missing. Expect `ConfigMap.v1` or `SetNamespace.v1alpha1.fn.kpt.dev`"],
    [
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata: {}\n",
      "`data.namespace` should not be empty",
    ],
    [
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n",
      "`data.name` should not be empty",
    ],
    [
      "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetNamespace\nmetadata:\n  name: x\n",
      "`namespace` should not be empty",
    ],
    [
      "apiVersion: v2\nkind: Thing\nmetadata:\n  name: x\n",
      "unknown functionConfig Kind=Thing ApiVersion=v2, expect `ConfigMap.v1` or `SetNamespace.v1alpha1.fn.kpt.dev`",
    ],
  ])("reports a bad function config as an error result (%#)", async (cfg, message) => {
    const input = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: a\n";
    const { output, results } = await runBuiltin(setNamespace, input, cfg);
    expect(output).toBe(input);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ message, severity: "error" });
  });
});
