import { describe, expect, it } from "vitest";
import { PlaceMemo, placeResults, resultPlacer } from "../../src/jobs/kpt-renderer/locate.js";
import { treeFromText } from "../../src/kpt/tree.js";
import { codeBlock } from "../util/codeblock.js";

const place = resultPlacer(
  treeFromText({
    "deploy.yaml": codeBlock`
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: other
      ---
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
      spec:
        template:
          spec:
            containers:
              - name: nginx
                image: nginx:latest
    `,
  }),
);
const web = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };

describe("resultPlacer", () => {
  it.each([
    ["a field by index, at the field's line", "spec.template.spec.containers[0].image", 15],
    [
      "a field behind a [name=x] selector, at the list",
      "spec.template.spec.containers[name=nginx].image",
      14,
    ],
    ["a missing field, at the deepest part that exists", "spec.replicas", 11],
    ["a field that is not there at all, at the resource's first line", "status.phase", 6],
  ])("places %s", (_name, path, line) => {
    expect(place({ message: "m", resourceRef: web, field: { path } })).toEqual({ file: "deploy.yaml", line });
  });

  it("places a result by file and index when it names them", () => {
    expect(place({ message: "m", file: { path: "deploy.yaml", index: 0 } })).toEqual({
      file: "deploy.yaml",
      line: 1,
    });
  });
});

describe("resultPlacer: files of subpackages", () => {
  // kpt names a result's file relative to its resource's own package (kpt v1.0.0-beta.56: the root's
  // pipeline sees sub0's resources as `app-1.yaml`, package-path sub0).
  const tree = treeFromText({
    Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: root\n",
    "app-1.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: root-cm\n",
    "sub0/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub0\n",
    "sub0/app-1.yaml": codeBlock`
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: one
      ---
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: two
      data:
        a: b
    `,
    "sub0/deep/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: deep\n",
    "sub0/deep/only.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n",
  });
  const placeIn = resultPlacer(tree);
  const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", name });

  it("places a root pipeline's result on a subpackage's resource in the subpackage's file", () => {
    expect(placeIn({ message: "m", resourceRef: cm("two"), file: { path: "app-1.yaml", index: 1 } })).toEqual(
      {
        file: "sub0/app-1.yaml",
        line: 6,
      },
    );
    expect(
      placeIn({
        message: "m",
        resourceRef: cm("two"),
        file: { path: "app-1.yaml", index: 1 },
        field: { path: "data.a" },
      }),
    ).toEqual({ file: "sub0/app-1.yaml", line: 11 });
    // Index 0 is left out of results.yaml: the resource reference finds the document.
    expect(placeIn({ message: "m", resourceRef: cm("one"), file: { path: "app-1.yaml" } })).toEqual({
      file: "sub0/app-1.yaml",
      line: 1,
    });
  });

  it("keeps the pipeline's own package's file when it holds the resource, or when no resource is named", () => {
    expect(placeIn({ message: "m", resourceRef: cm("root-cm"), file: { path: "app-1.yaml" } })).toEqual({
      file: "app-1.yaml",
      line: 1,
    });
    expect(placeIn({ message: "m", file: { path: "app-1.yaml" } })).toEqual({ file: "app-1.yaml", line: 1 });
  });

  it("looks in nested subpackages, and in the package whose pipeline ran", () => {
    const secret = { apiVersion: "v1", kind: "Secret", name: "s" };
    expect(placeIn({ message: "m", resourceRef: secret, file: { path: "only.yaml" } })).toEqual({
      file: "sub0/deep/only.yaml",
      line: 1,
    });
    expect(
      placeIn({ message: "m", resourceRef: cm("two"), file: { path: "app-1.yaml", index: 1 } }, "sub0"),
    ).toEqual({ file: "sub0/app-1.yaml", line: 6 });
    // A subpackage's pipeline does not see its parent's resources.
    expect(placeIn({ message: "m", file: { path: "Kptfile" } }, "sub0/deep")).toEqual({
      file: "sub0/deep/Kptfile",
      line: 1,
    });
  });
});

describe("placeResults: many results, placed file by file", () => {
  const tree = treeFromText({
    Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: root\n",
    "app-1.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: root-cm\n",
    "web.yaml":
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n# b\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  k: v\n",
    "sub0/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub0\n",
    "sub0/app-1.yaml":
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n",
  });
  const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", name });
  // Each file named by several results, in turn (as a pipeline's steps name them), one that may be in
  // two files, one in a subpackage's pipeline, one naming no file, one naming a file that is not there.
  const results = [
    {
      result: {
        message: "m",
        resourceRef: cm("b"),
        file: { path: "web.yaml", index: 1 },
        field: { path: "data.k" },
      },
    },
    { result: { message: "m", resourceRef: cm("two"), file: { path: "app-1.yaml", index: 1 } } },
    { result: { message: "m", file: { path: "web.yaml", index: 0 } } },
    { result: { message: "m", resourceRef: cm("root-cm"), file: { path: "app-1.yaml" } } },
    { result: { message: "m", resourceRef: cm("b"), file: { path: "web.yaml", index: 1 } } },
    {
      result: { message: "m", resourceRef: cm("two"), file: { path: "app-1.yaml", index: 1 } },
      packageDir: "sub0",
    },
    { result: { message: "m", resourceRef: cm("a") } },
    { result: { message: "m", file: { path: "gone.yaml" } } },
  ];

  it("places each result where resultPlacer places it, in the order given", () => {
    const one = resultPlacer(tree);
    const expected = results.map(({ result, packageDir }) => one(result, packageDir));
    expect(expected[0]).toEqual({ file: "web.yaml", line: 12 });
    expect(placeResults(tree, results)).toEqual(expected);
  });

  it("remembers each place as resultPlacer does, and answers from what either remembered", () => {
    const memo = new PlaceMemo();
    const placed = placeResults(tree, results, memo);
    const one = resultPlacer(tree, memo);
    const before = memo.found;
    expect(results.map(({ result, packageDir }) => one(result, packageDir))).toEqual(placed);
    // Every result naming a file was remembered: none is worked out again.
    expect(memo.found).toBe(before);
    expect(placeResults(tree, results, memo)).toEqual(placed);
    expect(memo.found).toBe(before);
  });
});

describe("resultPlacer: places remembered across renders", () => {
  const deploy = (head: string) =>
    `${head}apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n`;
  const result = {
    message: "m",
    resourceRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
    file: { path: "deploy.yaml" },
    field: { path: "spec.replicas" },
  };
  const other = { message: "m", file: { path: "other.yaml", index: 0 } };
  const tree = (head: string) =>
    treeFromText({
      "deploy.yaml": deploy(head),
      "other.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
    });

  it("answers from the memo where the files did not change, and reads a file that changed", () => {
    const memo = new PlaceMemo();
    expect(resultPlacer(tree(""), memo)(result)).toEqual({ file: "deploy.yaml", line: 6 });
    expect(resultPlacer(tree(""), memo)(other)).toEqual({ file: "other.yaml", line: 1 });
    expect(memo).toMatchObject({ found: 2, remembered: 0 });

    // Two lines more at the top of deploy.yaml: its result moves, other.yaml's is remembered.
    const edited = tree("# a header\n# of two lines\n");
    const placeEdited = resultPlacer(edited, memo);
    expect(placeEdited(result)).toEqual({ file: "deploy.yaml", line: 8 });
    expect(placeEdited(other)).toEqual({ file: "other.yaml", line: 1 });
    expect(memo).toMatchObject({ found: 3, remembered: 1 });
    expect(placeEdited(result)).toEqual(resultPlacer(edited)(result));
  });

  it("keeps a place per package: the same file name in a subpackage is another file", () => {
    const memo = new PlaceMemo();
    const t = treeFromText({
      Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: root\n",
      "deploy.yaml": deploy(""),
      "sub/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: sub\n",
      "sub/deploy.yaml": deploy("# sub\n"),
    });
    const place = resultPlacer(t, memo);
    expect(place(result)).toEqual({ file: "deploy.yaml", line: 6 });
    expect(place(result, "sub")).toEqual({ file: "sub/deploy.yaml", line: 7 });
  });

  it("forgets the least recently used places past its bound", () => {
    const memo = new PlaceMemo(1);
    const place = resultPlacer(tree(""), memo);
    place(result);
    place(other);
    place(result);
    expect(memo).toMatchObject({ found: 3, remembered: 0, size: 1 });
  });
});
