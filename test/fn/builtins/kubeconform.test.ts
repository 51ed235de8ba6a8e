import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { typeSchema } from "../../../src/fn/builtins/kubeconform/json-schema.js";
import { loadBundle } from "../../../src/fn/builtins/kubeconform/schema-bundle.js";
import { jsonType } from "../../../src/fn/builtins/kubeconform/validator.js";
import { kubeconform } from "../../../src/fn/builtins/kubeconform.js";
import type { FunctionResult, ResourceList } from "../../../src/fn/types.js";
import { codeBlock } from "../../util/codeblock.js";

async function validate(input: string, config?: string): Promise<FunctionResult[]> {
  const rl: ResourceList = {
    items: input.split(/^---\n/m).map((text) => parseDocument(text)),
    results: [],
  };
  if (config !== undefined) rl.functionConfig = parseDocument(config);
  return (await kubeconform.run(rl, {})).results;
}

const deployment = (spec: string) => codeBlock`
  apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    namespace: prod
    annotations:
      config.kubernetes.io/path: web.yaml
      config.kubernetes.io/index: "1"
  spec:
${spec}
`;

const ref = { apiVersion: "apps/v1", kind: "Deployment", name: "web", namespace: "prod" };
const file = { path: "web.yaml", index: 1 };

const validSpec = `    replicas: 2
    selector:
      matchLabels: {app: web}
    template:
      metadata:
        labels: {app: web}
        creationTimestamp: null
      spec:
        containers:
          - name: web
            image: nginx:1.27
            ports:
              - containerPort: 80
            resources:
              limits: {cpu: 1, memory: 512Mi}
              requests: {cpu: "250m"}
            livenessProbe:
              httpGet: {path: /, port: http}`;

describe("kubeconform", () => {
  it("accepts a valid Deployment: quantities and int-or-string in either form, nulls allowed", async () => {
    expect(await validate(deployment(validSpec))).toEqual([]);
  });

  it("reports each violation with its message, field path, resource and file", async () => {
    const spec = validSpec
      .replace("replicas: 2", 'replicas: "2"')
      .replace("labels: {app: web}", "labels: {app: web, tier: 1}")
      .replace("- name: web\n            image:", "- image:")
      .replace("port: http", "port: true");
    expect(await validate(deployment(spec))).toEqual(
      [
        { message: "got string, want null or integer", field: { path: "spec.replicas" } },
        {
          message: "got number, want null or string",
          field: { path: "spec.template.metadata.labels.tier" },
        },
        { message: "missing property 'name'", field: { path: "spec.template.spec.containers.0" } },
        {
          message: "got boolean, want null or integer or string",
          field: { path: "spec.template.spec.containers.0.livenessProbe.httpGet.port" },
        },
      ].map((r) => ({ ...r, severity: "error", resourceRef: ref, file })),
    );
  });

  it("rejects unknown fields only in strict mode, naming them together", async () => {
    const spec = validSpec.replace(
      "image: nginx:1.27",
      "image: nginx:1.27\n            imagePolicy: Always\n            debug: true",
    );
    expect(await validate(deployment(spec), "data:\n  strict: 'false'\n")).toEqual([]);
    expect(await validate(deployment(spec), "data:\n  strict: 'true'\n")).toEqual([
      {
        message: "additional properties 'imagePolicy', 'debug' not allowed",
        severity: "error",
        resourceRef: ref,
        file,
        field: { path: "spec.template.spec.containers.0" },
      },
    ]);
  });

  it("reports a missing required field of a core kind", async () => {
    const pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  restartPolicy: Never\n";
    expect(await validate(pod)).toEqual([
      {
        message: "missing property 'containers'",
        severity: "error",
        resourceRef: { apiVersion: "v1", kind: "Pod", name: "p" },
        field: { path: "spec" },
      },
    ]);
  });

  describe("kinds without a schema", () => {
    const widget = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n";

    it("are errors by default", async () => {
      const results = await validate(widget);
      expect(results).toHaveLength(1);
      expect(results[0]?.severity).toBe("error");
      expect(results[0]?.resourceRef).toEqual({ apiVersion: "example.com/v1", kind: "Widget", name: "w" });
      expect(results[0]?.message).toBe(
        "Validating arbitrary CRDs not supported. Consider setting ignore_missing_schemas or skip_kinds in FunctionConfig:\ncould not find schema for Widget (example.com/v1) in the built-in Kubernetes 1.36 schemas",
      );
    });

    it.each([
      ["ignore_missing_schemas in data", "data:\n  ignore_missing_schemas: 'true'\n"],
      [
        "ignore_missing_schemas at the top level",
        "apiVersion: fn.kpt.dev/v1alpha1\nkind: Kubeconform\nignore_missing_schemas: true\n",
      ],
      ["the kind in skip_kinds", "data:\n  skip_kinds: Gadget, Widget\n"],
      ["apiVersion/kind in skip_kinds", "data:\n  skip_kinds: example.com/v1/Widget\n"],
    ])("are skipped with %s", async (_name, config) => {
      expect(await validate(widget, config)).toEqual([]);
    });
  });

  it("skips built-in kinds listed in skip_kinds", async () => {
    expect(await validate(deployment('    replicas: "x"'), "data:\n  skip_kinds: Deployment\n")).toEqual([]);
  });

  it("warns about settings it cannot honour", async () => {
    const config =
      "data:\n  schema_location: https://example.com/{{ .ResourceKind }}.json\n  kubernetes_version: 1.19.8\n";
    const results = await validate(deployment(validSpec), config);
    expect(results.map((r) => r.severity)).toEqual(["warning", "warning"]);
    expect(results[1]?.message).toBe(
      "kubernetes_version 1.19.8 is validated with the built-in Kubernetes 1.36 schemas",
    );
  });
});

describe("the schema bundle", () => {
  const bundle = loadBundle();

  it("maps built-in kinds of every group to their models", () => {
    expect(bundle.kinds["apps/v1/Deployment"]).toBe("V1Deployment");
    expect(bundle.kinds["v1/Event"]).toBe("CoreV1Event");
    expect(bundle.kinds["events.k8s.io/v1/Event"]).toBe("EventsV1Event");
    expect(bundle.kinds["rbac.authorization.k8s.io/v1/ClusterRole"]).toBe("V1ClusterRole");
    expect(bundle.models.V1Container?.required).toEqual(["name"]);
  });

  it.each([
    ["number|int32", { type: ["integer", "null"] }],
    ["number|double", { type: ["number", "null"] }],
    ["Array<string>", { type: ["array", "null"], items: { type: ["string", "null"] } }],
    ["Array<number>|int64", { type: ["array", "null"], items: { type: ["integer", "null"] } }],
    [
      "{ [key: string]: Quantity; }",
      {
        type: ["object", "null"],
        additionalProperties: { oneOf: [{ type: ["string", "null"] }, { type: ["number", "null"] }] },
      },
    ],
    ["V1PodSpec", { $ref: "#/definitions/V1PodSpec" }],
    ["any", {}],
  ])("types %s", (type, schema) => {
    expect(typeSchema(type, bundle.models)).toEqual(schema);
  });

  it.each([
    [null, "null"],
    [1, "number"],
    [1.5, "number"],
    ["x", "string"],
    [[], "array"],
    [{}, "object"],
    [true, "boolean"],
  ])("names the JSON type of %j %s", (value, name) => {
    expect(jsonType(value)).toBe(name);
  });
});
