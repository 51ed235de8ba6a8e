import { describe, expect, it } from "vitest";
import { ensureNameSubstring } from "../../../src/fn/builtins/ensure-name-substring.js";
import { codeBlock } from "../../util/codeblock.js";
import { runBuiltin } from "./catalog-harness.js";

const prepend = (s: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  prepend: ${s}\n`;

describe("ensure-name-substring", () => {
  it("prefixes names and fixes depends-on annotations and role refs that point at renamed resources", async () => {
    const input = codeBlock`
      apiVersion: v1
      kind: Deployment
      metadata:
        annotations:
          config.kubernetes.io/depends-on: /namespaces/default/StatefulSet/wordpress-mysql
        labels:
          app: wordpress
        name: wordpress
        namespace: default
      ---
      apiVersion: v1
      kind: StatefulSet
      metadata:
        labels:
          app: wordpress
        name: wordpress-mysql
        namespace: default
      ---
      apiVersion: v1
      kind: Deployment
      metadata:
        annotations:
          config.kubernetes.io/depends-on: /namespaces/default/StatefulSet/outside-resource
        name: bar
        namespace: default
      ---
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRoleBinding
      metadata:
        annotations:
          config.kubernetes.io/depends-on: rbac.authorization.k8s.io/ClusterRole/secret-reader
        name: read-secrets-global
      roleRef:
        apiGroup: rbac.authorization.k8s.io
        kind: ClusterRole
        name: secret-reader
      subjects:
        - apiGroup: rbac.authorization.k8s.io
          kind: Group
          name: admin
      ---
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRole
      metadata:
        name: secret-reader
    `;
    const { output, results } = await runBuiltin(ensureNameSubstring, input, prepend("prod-"));
    expect(output).toBe(
      input
        .replace("name: wordpress\n", "name: prod-wordpress\n")
        .replace("StatefulSet/wordpress-mysql", "StatefulSet/prod-wordpress-mysql")
        .replace("name: wordpress-mysql\n", "name: prod-wordpress-mysql\n")
        .replace("name: bar\n", "name: prod-bar\n")
        .replace("name: read-secrets-global\n", "name: prod-read-secrets-global\n")
        .replace("ClusterRole/secret-reader", "ClusterRole/prod-secret-reader")
        .replaceAll("name: secret-reader\n", "name: prod-secret-reader\n"),
    );
    expect(results).toEqual([]);
  });

  it("is idempotent, skips Namespaces and CRDs, and fixes config map references in pods of the same namespace", async () => {
    const input = codeBlock`
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: the-map
        namespace: ns
      ---
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: dev-already
        namespace: ns
      ---
      apiVersion: v1
      kind: Namespace
      metadata:
        name: ns
      ---
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: app
        namespace: ns
      spec:
        template:
          spec:
            containers:
              - name: c
                envFrom:
                  - configMapRef:
                      name: the-map
            volumes:
              - name: v
                configMap:
                  name: the-map
              - name: other
                configMap:
                  name: the-map-elsewhere
      ---
      apiVersion: v1
      kind: Pod
      metadata:
        name: dev-pod
        namespace: other
      spec:
        volumes:
          - configMap:
              name: the-map
    `;
    const { output } = await runBuiltin(ensureNameSubstring, input, prepend("dev-"));
    expect(output).toBe(
      input
        .replace("name: the-map\n  namespace: ns", "name: dev-the-map\n  namespace: ns")
        .replace("name: app\n", "name: dev-app\n")
        .replace(
          "configMapRef:\n                name: the-map",
          "configMapRef:\n                name: dev-the-map",
        )
        .replace("configMap:\n            name: the-map\n", "configMap:\n            name: dev-the-map\n"),
    );
  });

  it("appends with the typed config and also edits additionalNameFields", async () => {
    const input = codeBlock`
      apiVersion: example.com/v1
      kind: MyResource
      metadata:
        name: cr
      spec:
        name: foo
    `;
    const cfg = codeBlock`
      apiVersion: fn.kpt.dev/v1alpha1
      kind: EnsureNameSubstring
      metadata:
        name: c
      substring: -prod
      editMode: append
      additionalNameFields:
        - path: spec/name
          kind: MyResource
    `;
    const { output } = await runBuiltin(ensureNameSubstring, input, cfg);
    expect(output).toBe(
      input.replace("name: cr\n", "name: cr-prod\n").replace("name: foo\n", "name: foo-prod\n"),
    );
  });

  const typed = (body: string) =>
    `apiVersion: fn.kpt.dev/v1alpha1\nkind: EnsureNameSubstring\nmetadata:\n  name: c\n${body}`;
  const both = typed("substring: x\nfieldSpecs: []\nadditionalNameFields: []\n");
  it.each([
    [
      "v0.2.0",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  prepend: a\n  append: b\n",
      "failed to load the `functionConfig`: only 1 entry is allowed in the ConfigMap, but got: 2",
    ],
    [
      "v0.2.0",
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  insert: a\n",
      "failed to load the `functionConfig`: unknown editMode: insert, only prepend and append are allowed",
    ],
    [
      "v0.1.0",
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: c\n",
      "function config must be either /v1, Kind=ConfigMap or fn.kpt.dev/v1alpha1, Kind=EnsureNameSubstring, but we got: apps/v1, Kind=Deployment",
    ],
    [
      "v0.1.1",
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: c\n",
      "failed to load the `functionConfig`: function config must be either /v1, Kind=ConfigMap or fn.kpt.dev/v1alpha1, Kind=EnsureNameSubstring, but we got: apps/v1, Kind=Deployment",
    ],
    ["v0.1.0", typed(""), "failed validation: substring must not be empty"],
    ["v0.1.1", typed(""), "failed to load the `functionConfig`: substring must not be empty"],
    ["v0.2.0", typed(""), "failed to load the `functionConfig`: substring must not be empty"],
    [
      "v0.1.1",
      both,
      "failed to load the `functionConfig`: `fieldSpecs` has been deprecated, please rename it to `additionalNameFields`",
    ],
  ])("%s fails on a bad config (%#) with the error alone", async (release, cfg, message) => {
    const input = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n";
    await expect(runBuiltin(ensureNameSubstring, input, cfg, release)).rejects.toThrow(
      expect.objectContaining({ message, results: [] }),
    );
  });

  it.each([
    ["v0.1.1", "name: prod-pkg", "/namespaces/default/Secret/db"],
    ["v0.2.0", "name: pkg", "/namespaces/default/Secret/prod-db"],
  ])("%s: the Kptfile gets %s, the depends-on says %s", async (release, kptfileName, dependsOn) => {
    const input = codeBlock`
      apiVersion: kpt.dev/v1
      kind: Kptfile
      metadata:
        name: pkg
      ---
      apiVersion: v1
      kind: Secret
      metadata:
        name: db
        namespace: default
      ---
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: app
        namespace: default
        annotations:
          config.kubernetes.io/depends-on: /namespaces/default/Secret/db
    `;
    const { output } = await runBuiltin(ensureNameSubstring, input, prepend("prod-"), release);
    expect(output).toContain(`${kptfileName}\n`);
    expect(output).toContain(`config.kubernetes.io/depends-on: ${dependsOn}\n`);
  });

  it.each([
    ["v0.1.0", ["prod-the-map"]],
    ["v0.1.1", ["prod-local", "prod-the-map"]],
  ])("%s leaves %o in the output (v0.1.0 drops local-config resources)", async (release, names) => {
    const input = codeBlock`
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: local
        annotations:
          config.kubernetes.io/local-config: "false"
      ---
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: the-map
    `;
    const { output } = await runBuiltin(ensureNameSubstring, input, prepend("prod-"), release);
    expect([...output.matchAll(/name: (\S+)/g)].map((m) => m[1])).toEqual(names);
  });

  it("v0.1.0 reads fieldSpecs only, v0.1.1 reads additionalNameFields", async () => {
    const input = "apiVersion: v1\nkind: MyResource\nmetadata:\n  name: prod-r\nspec:\n  name: foo\n";
    const cfg = typed("substring: prod-\nadditionalNameFields:\n  - path: spec/name\n    kind: MyResource\n");
    expect((await runBuiltin(ensureNameSubstring, input, cfg, "v0.1.0")).output).toBe(input);
    expect((await runBuiltin(ensureNameSubstring, input, cfg, "v0.1.1")).output).toBe(
      input.replace("name: foo", "name: prod-foo"),
    );
  });
});
