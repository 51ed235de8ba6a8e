import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { kubeval } from "../../../src/fn/builtins/kubeval.js";
import { defaultRegistry } from "../../../src/fn/registry.js";
import { FunctionError, type FunctionResult, type ResourceList } from "../../../src/fn/types.js";

async function validate(
  input: string,
  data: Record<string, string> = {},
  release = "v0.3.0",
): Promise<FunctionResult[]> {
  const rl: ResourceList = {
    items: input.split(/^---\n/m).map((text) => parseDocument(text)),
    results: [],
    functionConfig: parseDocument(
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fc\ndata: ${JSON.stringify(data)}\n`,
    ),
  };
  return (await kubeval.run(rl, { release })).results;
}

const rc = `apiVersion: v1
kind: ReplicationController
metadata:
  name: bob
  annotations:
    config.kubernetes.io/path: app.yaml
spec:
  replicas: "3"
  templates: {}
  template:
    spec:
      containers:
        - image: nginx
          resources: {limits: {cpu: 1}}
`;
const at = { apiVersion: "v1", kind: "ReplicationController", name: "bob" };

describe("kubeval", () => {
  it.each(["v0.1.1", "v0.2.0", "v0.3.0"])(
    "at %s reports kubeval's messages at the property or field",
    async (release) => {
      const results = await validate(rc, { strict: "true" }, release);
      expect(results.map((r) => [r.field?.path, r.message])).toEqual([
        ["templates", "Additional property templates is not allowed"],
        ["spec.replicas", "Invalid type. Expected: [integer,null], given: string"],
        ["name", "name is required"],
        [
          "spec.template.spec.containers.0.resources.limits.cpu",
          "Invalid type. Expected: [string,null], given: integer",
        ],
      ]);
      expect(results[0]).toMatchObject({ severity: "error", resourceRef: at, file: { path: "app.yaml" } });
    },
  );

  it("allows unknown properties unless strict", async () => {
    const results = await validate(rc);
    expect(results.map((r) => r.message)).not.toContain("Additional property templates is not allowed");
  });

  it.each([
    [{ strict: "true" }, "/tmp/master-standalone-strict/custom-custom-v1.json"],
    [{}, "/tmp/master-standalone/custom-custom-v1.json"],
  ])("fails a kind with no schema naming the schema file kubeval looked for (%j)", async (data, file) => {
    const results = await validate("apiVersion: custom.io/v1\nkind: Custom\nmetadata:\n  name: c\n", data);
    expect(results.map((r) => r.message)).toEqual([
      "Validating arbitrary CRDs is not supported yet. You can skip them by setting ignore_missing_schemas or skip_kinds in the function config:\n" +
        `ERR  - stdin: Failed initializing schema file://${file}: open ${file}: no such file or directory\n`,
    ]);
  });

  it.each<Record<string, string>>([{ ignore_missing_schemas: "true" }, { skip_kinds: "Other,Custom" }])(
    "skips a kind with no schema given %j",
    async (data) => {
      expect(await validate("apiVersion: custom.io/v1\nkind: Custom\nmetadata:\n  name: c\n", data)).toEqual(
        [],
      );
    },
  );

  it("validates against the public Kubernetes schema mirror offline, and refuses other schema locations", async () => {
    const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\n";
    expect(await validate(cm, { schema_location: "https://kubernetesjsonschema.dev" })).toEqual([]);
    await expect(validate(cm, { schema_location: "file:///schema-dir" })).rejects.toThrow(FunctionError);
    await expect(validate(cm, { schema_location: "file:///schema-dir" })).rejects.toThrow(
      /cannot fetch schemas from file:\/\/\/schema-dir/,
    );
  });

  it("runs for the releases it reproduces and refuses ts/kubeval v0.1.0", () => {
    const registry = defaultRegistry();
    expect(registry.find("gcr.io/kpt-fn/kubeval:v0.3")?.release).toBe("v0.3.0");
    expect(registry.find("gcr.io/kpt-fn/kubeval:v0.1.1")?.release).toBe("v0.1.1");
    expect(registry.find("gcr.io/kpt-fn/kubeval:v0.1.0")).toBeUndefined();
  });
});
