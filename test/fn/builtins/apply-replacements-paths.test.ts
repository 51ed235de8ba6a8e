import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import {
  lookupPath,
  matchPath,
  PathError,
  type Slot,
  splitFieldPath,
} from "../../../src/fn/builtins/util/replacement-path.js";
import { formatResId, isSelectedBy, type ResId } from "../../../src/fn/builtins/util/replacement-resid.js";

describe("replacement field paths", () => {
  it.each([
    ["spec.template.spec", ["spec", "template", "spec"]],
    ["spec.containers.[name=com.acme.app].image", ["spec", "containers", "[name=com.acme.app]", "image"]],
    [
      "metadata.annotations.[config.kubernetes.io/local-config]",
      ["metadata", "annotations", "config.kubernetes.io/local-config"],
    ],
    ["metadata.labels.app\\.kubernetes\\.io/name", ["metadata", "labels", "app.kubernetes.io/name"]],
    ["metadata.labels.[single]", ["metadata", "labels", "[single]"]],
    [".spec.replicas", ["spec", "replicas"]],
  ])("splits %s", (path, parts) => {
    expect(splitFieldPath(path)).toEqual(parts);
  });

  const doc = parseDocument(
    "spec:\n  containers:\n    - name: app\n      image: a\n    - name: app-sidecar\n      image: b\n    - name: other\n      image: c\n",
  );
  const root: Slot = { node: doc.contents, replace: () => undefined };
  const images = (path: string) =>
    matchPath(root, splitFieldPath(path)).map((s) => String((s.node as { value: unknown }).value));

  it("matches list items by an unanchored regular expression, as kyaml's PathMatcher does", () => {
    expect(images("spec.containers.[name=app].image")).toEqual(["a", "b"]);
    expect(images("spec.containers.[name=^app$].image")).toEqual(["a"]);
    expect(images("spec.containers.*.image")).toEqual(["a", "b", "c"]);
    expect(images("spec.missing.*.image")).toEqual([]);
  });

  it("looks a source up by exact value", () => {
    const node = lookupPath(doc.contents, splitFieldPath("spec.containers.[name=app].image"));
    expect(String((node as { value: unknown }).value)).toBe("a");
    expect(() => lookupPath(doc.contents, ["spec", "containers", "*"])).toThrow(
      new PathError("wildcard is not supported in PathGetter"),
    );
  });

  it("refuses an index past the end of a target list", () => {
    expect(() => images("spec.containers.5.image")).toThrow("index 5 specified but only 3 elements found");
  });
});

describe("resource selection", () => {
  const id = (over: Partial<ResId>): ResId => ({
    group: "",
    version: "",
    kind: "",
    name: "",
    namespace: "",
    ...over,
  });

  it("treats the default namespace and no namespace alike", () => {
    expect(
      isSelectedBy(id({ kind: "ConfigMap", version: "v1", name: "a" }), id({ namespace: "default" })),
    ).toBe(true);
    expect(
      isSelectedBy(id({ kind: "ConfigMap", version: "v1", namespace: "x" }), id({ namespace: "default" })),
    ).toBe(false);
  });

  it("never matches a cluster-scoped kind by namespace", () => {
    expect(
      isSelectedBy(id({ kind: "Namespace", version: "v1", name: "a" }), id({ namespace: "default" })),
    ).toBe(false);
  });

  it("prints ids as kustomize does", () => {
    expect(
      formatResId(id({ kind: "Deployment", group: "apps", version: "v1", name: "web", namespace: "prod" })),
    ).toBe("Deployment.v1.apps/web.prod");
  });
});
