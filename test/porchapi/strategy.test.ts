import { describe, expect, it } from "vitest";
import { protobufAsJson } from "../../src/porchapi/protobuf.js";
import { API_RESOURCES, type KubeObject } from "../../src/porchapi/resources.js";
import { ApiError } from "../../src/porchapi/status.js";
import { checkUpdate } from "../../src/porchapi/strategy.js";

const revisions = API_RESOURCES.find((r) => r.resource === "packagerevisions");
if (!revisions) throw new Error("packagerevisions is served");

const published: KubeObject = {
  metadata: {
    name: "blueprints.hello.v1",
    resourceVersion: "7",
    labels: { "kpt.dev/latest-revision": "true" },
  },
  spec: {
    packageName: "hello",
    workspaceName: "v1",
    repository: "blueprints",
    revision: 1,
    lifecycle: "Published",
    tasks: [{ type: "init", init: { description: "hello" } }],
  },
};
const withSpec = (spec: Record<string, unknown>): KubeObject => ({
  ...published,
  spec: { ...(published.spec as object), ...spec },
});
const refusal = (obj: KubeObject) => {
  try {
    checkUpdate(revisions, obj, published, undefined);
    return undefined;
  } catch (e) {
    return e instanceof ApiError ? `${e.code} ${e.message}` : String(e);
  }
};

/** Porch's strategy: a published revision's spec compared as Go compares structs, its lifecycle aside. */
describe("the update checks of a published revision", () => {
  it.each([
    ["the same spec", withSpec({})],
    ["its lifecycle moved to DeletionProposed", withSpec({ lifecycle: "DeletionProposed" })],
    ["zero values left out or written", withSpec({ readinessGates: [], upstreamLock: null, parent: {} })],
  ])("lets through %s", (_, obj) => {
    expect(refusal(obj)).toBeUndefined();
  });

  it.each([
    ["its tasks changed", withSpec({ tasks: [] }), "spec: Invalid value: spec.tasks:"],
    [
      "its readiness gates changed",
      withSpec({ readinessGates: [{ conditionType: "x" }] }),
      "spec.readinessGates",
    ],
    ["moved back to Draft", withSpec({ lifecycle: "Draft" }), "spec: Invalid value: spec.lifecycle:"],
    [
      "its latest-revision label taken off",
      { ...published, metadata: { ...published.metadata, labels: {} } },
      "metadata.labels.kpt.dev/latest-revision: Forbidden",
    ],
    [
      "no resourceVersion",
      { ...published, metadata: { ...published.metadata, resourceVersion: "" } },
      'metadata.resourceVersion: Invalid value: "": resourceVersion must be specified for an update',
    ],
  ])("refuses %s with 422", (_, obj, words) => {
    const text = refusal(obj);
    expect(text).toMatch(/^422 PackageRevision\.porch\.kpt\.dev "blueprints\.hello\.v1" is invalid: /);
    expect(text).toContain(words);
  });
});

/** A varint-length field of a protobuf message. */
const field = (n: number, bytes: Buffer) => Buffer.concat([Buffer.from([n * 8 + 2, bytes.length]), bytes]);
const s = (n: number, text: string) => field(n, Buffer.from(text));

describe("a protobuf body from kubectl auth can-i", () => {
  it("reads a SelfSubjectAccessReview's resource attributes as JSON", () => {
    const attributes = Buffer.concat([
      s(1, "acme"),
      s(2, "create"),
      s(3, "porch.kpt.dev"),
      s(5, "packagerevisions"),
    ]);
    const raw = Buffer.concat([field(1, Buffer.alloc(0)), field(2, field(1, attributes))]);
    const typeMeta = Buffer.concat([s(1, "authorization.k8s.io/v1"), s(2, "SelfSubjectAccessReview")]);
    const body = Buffer.concat([Buffer.from("k8s\0", "latin1"), field(1, typeMeta), field(2, raw)]);
    expect(JSON.parse(protobufAsJson(body))).toEqual({
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      metadata: {},
      spec: {
        resourceAttributes: {
          namespace: "acme",
          verb: "create",
          group: "porch.kpt.dev",
          resource: "packagerevisions",
        },
      },
    });
  });

  it.each([
    ["no magic", Buffer.from("{}"), 400],
    [
      "a length past the end",
      Buffer.concat([Buffer.from("k8s\0", "latin1"), Buffer.from([0x0a, 0x7f, 1])]),
      400,
    ],
    [
      "a kind it does not read",
      Buffer.concat([
        Buffer.from("k8s\0", "latin1"),
        field(1, Buffer.concat([s(1, "v1"), s(2, "Pod")])),
        field(2, Buffer.alloc(0)),
      ]),
      415,
    ],
  ])("refuses %s", (_, body, code) => {
    expect(() => protobufAsJson(body)).toThrow(expect.objectContaining({ code }));
  });
});
