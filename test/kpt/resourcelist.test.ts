import { describe, expect, it } from "vitest";
import { nameOf } from "../../src/kpt/resource.js";
import { formatResourceList, parseResourceList } from "../../src/kpt/resourcelist.js";
import { codeBlock } from "../util/codeblock.js";

describe("ResourceList", () => {
  const text = codeBlock`
    apiVersion: config.kubernetes.io/v1
    kind: ResourceList
    items:
    - apiVersion: apps/v1
      kind: Deployment
      # the web server
      metadata:
        name: web
      spec:
        replicas: 3 # three
    - apiVersion: v1
      kind: Service
      metadata:
        name: web
    functionConfig:
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: fn
      data:
        namespace: prod
    results:
    - message: namespace updated
      severity: info
      resourceRef:
        apiVersion: apps/v1
        kind: Deployment
        name: web
      file:
        path: deploy.yaml
        index: 0
  `;

  it("reads items, functionConfig and results", () => {
    const rl = parseResourceList(text);
    expect(rl.items.map(nameOf)).toEqual(["web", "web"]);
    expect(rl.functionConfig?.getIn(["data", "namespace"])).toBe("prod");
    expect(rl.results).toEqual([
      {
        message: "namespace updated",
        severity: "info",
        resourceRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        file: { path: "deploy.yaml", index: 0 },
      },
    ]);
  });

  it("writes back what it read, comments included", () => {
    expect(formatResourceList(parseResourceList(text))).toBe(text);
  });

  it("rejects a document that is not a ResourceList", () => {
    expect(() => parseResourceList("apiVersion: v1\nkind: ConfigMap\n", "stdout")).toThrow(
      "stdout (field kind): expected kind ResourceList of apiVersion config.kubernetes.io/v1, found ConfigMap of v1",
    );
  });
});

describe("a function's results, as kpt reads them", () => {
  const withResults = (results: string) =>
    `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nresults:\n${results}`;

  it("reads a scalar as its text, a missing message as empty, a null object as none", () => {
    const rl = parseResourceList(
      withResults("- message: 5\n  tags: {on: true}\n- severity: warning\n  resourceRef: null\n- null\n"),
    );
    expect(rl.results).toEqual([
      { message: "5", tags: { on: "true" } },
      { message: "", severity: "warning" },
      { message: "" },
    ]);
  });

  it("leaves an empty message out when it writes results back, as kpt does", () => {
    const text = withResults("- severity: warning\n");
    expect(formatResourceList(parseResourceList(text))).toBe(text);
  });

  it("reads a severity the function specification does not name as none, as kpt goes on with it", () => {
    const list = parseResourceList(
      withResults("- message: m\n  severity: Error\n- message: n\n  severity: 5\n"),
      "stdout",
    );
    expect(list.results).toEqual([{ message: "m" }, { message: "n" }]);
  });

  it.each([
    ["- hello\n", 'stdout:5:3 (field results[0]): expected a mapping, got "hello"'],
    ["- message: [a]\n", "stdout:5:12 (field results[0].message): expected text, got a list"],
    [
      "- message: m\n  file: {path: a.yaml, index: first}\n",
      'stdout:6:31 (field results[0].file.index): expected a whole number, got "first"',
    ],
    [
      "- message: m\n  tags: {a: {b: c}}\n",
      "stdout:6:13 (field results[0].tags.a): expected text, got a mapping",
    ],
  ])("refuses what kpt's decoder refuses, naming the field: %j", (results, message) => {
    expect(() => parseResourceList(withResults(results), "stdout")).toThrow(message);
  });
});

describe("ResourceList item comments, as kyaml reads and writes them", () => {
  const list = codeBlock`
    apiVersion: config.kubernetes.io/v1
    kind: ResourceList
    items:
    # license
    #
    # of a
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: a
    - # key comment of b
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: b
    # head of c
    - # key of c
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: c
  `;

  it("reads a comment above `- ` as the item's own and one after it as its first key's", () => {
    const [a, b, c] = parseResourceList(list).items;
    expect(a?.contents?.commentBefore).toBe(" license\n \n of a");
    expect(b?.contents?.commentBefore).toBeFalsy();
    const keyOf = (d: typeof a) =>
      (d!.contents as unknown as { items: { key: { commentBefore?: string } }[] }).items[0]!.key;
    expect(keyOf(b).commentBefore).toBe(" key comment of b");
    expect(c?.contents?.commentBefore).toBe(" head of c");
    expect(keyOf(c).commentBefore).toBe(" key of c");
  });

  it("writes each back where it was, so a trip through a function changes nothing", () => {
    const once = formatResourceList(parseResourceList(list));
    expect(once).toBe(list);
    expect(formatResourceList(parseResourceList(once))).toBe(list);
  });
});
