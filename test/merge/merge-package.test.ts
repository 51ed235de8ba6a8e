import { describe, expect, it } from "vitest";
import { treeFromText, treeToText } from "../../src/kpt/tree.js";
import { MergeError, mergePackage, type UpdateStrategy } from "../../src/merge/index.js";
import { codeBlock } from "../util/codeblock.js";

const KF = codeBlock`
  apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: pkg
`;

function deploy(
  opts: { replicas?: string; image?: string; extra?: string; name?: string; comment?: string } = {},
) {
  return codeBlock`
    apiVersion: apps/v1
    kind: Deployment
    metadata: # kpt-merge: /web
      name: ${opts.name ?? "web"}
      annotations:
        internal.kpt.dev/upstream-identifier: 'apps|Deployment|default|web'
    spec:
      replicas: ${opts.replicas ?? "1"}${opts.comment ?? ""}
      template:
        spec:
          containers:
          - name: web
            image: ${opts.image ?? "nginx:1"}
  ${opts.extra ?? ""}`;
}

function run(
  o: Record<string, string>,
  u: Record<string, string>,
  l: Record<string, string>,
  strategy?: UpdateStrategy,
) {
  const r = mergePackage({
    original: treeFromText({ Kptfile: KF, ...o }),
    updated: treeFromText({ Kptfile: KF, ...u }),
    local: treeFromText({ Kptfile: KF, ...l }),
    strategy,
  });
  return { files: treeToText(r.tree), conflicts: r.conflicts, changes: r.changes };
}

describe("resource-merge: field-level rules", () => {
  const cases: { name: string; o: string; u: string; l: string; expect: string }[] = [
    {
      name: "a field changed only upstream takes the upstream value",
      o: deploy(),
      u: deploy({ image: "nginx:2" }),
      l: deploy(),
      expect: deploy({ image: "nginx:2" }),
    },
    {
      name: "a field changed only locally keeps the local value",
      o: deploy(),
      u: deploy(),
      l: deploy({ replicas: "5" }),
      expect: deploy({ replicas: "5" }),
    },
    {
      name: "changes on different fields both land",
      o: deploy(),
      u: deploy({ image: "nginx:2" }),
      l: deploy({ replicas: "5" }),
      expect: deploy({ image: "nginx:2", replicas: "5" }),
    },
    {
      name: "local comments survive an upstream change",
      o: deploy(),
      u: deploy({ image: "nginx:2" }),
      l: deploy({ comment: " # scaled by hand" }),
      expect: deploy({ image: "nginx:2", comment: " # scaled by hand" }),
    },
    {
      name: "a resource renamed locally still matches through its kpt-merge comment",
      o: deploy(),
      u: deploy({ image: "nginx:2" }),
      l: deploy({ name: "prod-web" }),
      expect: deploy({ name: "prod-web", image: "nginx:2" }),
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = run({ "d.yaml": c.o }, { "d.yaml": c.u }, { "d.yaml": c.l });
      expect(r.files["d.yaml"]).toBe(c.expect);
      expect(r.conflicts).toEqual([]);
    });
  }

  it("merges containers by name, env by name, and keeps other lists atomic", () => {
    const base = codeBlock`
      apiVersion: apps/v1
      kind: Deployment
      metadata: # kpt-merge: /w
        name: w
        annotations:
          internal.kpt.dev/upstream-identifier: 'apps|Deployment|default|w'
      spec:
        template:
          spec:
            containers:
            - name: a
              image: a:1
              args:
              - x
    `;
    const upd = base.replace("image: a:1", "image: a:2").replace("- x", "- y");
    const loc = `${base}      - name: b\n        image: b:1\n`;
    const r = run({ "d.yaml": base }, { "d.yaml": upd }, { "d.yaml": loc });
    expect(r.files["d.yaml"]).toBe(`${upd}      - name: b\n        image: b:1\n`);
  });
});

describe("resource-merge: resource-level rules", () => {
  const cm = (name: string, v = "1") => codeBlock`
    apiVersion: v1
    kind: ConfigMap
    metadata: # kpt-merge: /${name}
      name: ${name}
      annotations:
        internal.kpt.dev/upstream-identifier: '|ConfigMap|default|${name}'
    data:
      k: "${v}"
  `;
  it("adds resources added upstream, keeps resources added locally", () => {
    const r = run(
      { "a.yaml": cm("a") },
      { "a.yaml": cm("a"), "b.yaml": cm("b") },
      { "a.yaml": cm("a"), "c.yaml": cm("c") },
    );
    expect(Object.keys(r.files).sort()).toEqual(["Kptfile", "a.yaml", "b.yaml", "c.yaml"]);
  });
  it("removes a resource removed upstream unless it was changed locally", () => {
    const o = { "a.yaml": cm("a"), "b.yaml": cm("b") };
    const u = {};
    const r = run(o, u, { "a.yaml": cm("a"), "b.yaml": cm("b", "2") });
    expect(Object.keys(r.files).sort()).toEqual(["Kptfile", "b.yaml"]);
    expect(r.files["b.yaml"]).toBe(cm("b", "2"));
  });
});

describe("non-KRM files and the Kptfile", () => {
  it("merges text changes on different lines and reports a conflict on the same line", () => {
    const o = { "README.md": "one\ntwo\nthree\n" };
    const clean = run(o, { "README.md": "ONE\ntwo\nthree\n" }, { "README.md": "one\ntwo\nTHREE\n" });
    expect(clean.files["README.md"]).toBe("ONE\ntwo\nTHREE\n");
    expect(clean.conflicts).toEqual([]);
    const bad = run(o, { "README.md": "one\n2\nthree\n" }, { "README.md": "one\nzwei\nthree\n" });
    expect(bad.conflicts).toEqual([
      { file: "README.md", lines: [2, 2], message: expect.stringContaining("2-2") },
    ]);
    expect(bad.files["README.md"]).toContain("<<<<<<< local");
  });
  it("keeps local pipeline additions and takes upstream info", () => {
    const local = `${KF}pipeline:\n  mutators:\n    - image: set-labels:v1\n`;
    const upd = `${KF}info:\n  description: new\n`;
    const r = mergePackage({
      original: treeFromText({ Kptfile: KF }),
      updated: treeFromText({ Kptfile: upd }),
      local: treeFromText({ Kptfile: local }),
    });
    expect(treeToText(r.tree).Kptfile).toBe(
      `${KF}info:\n  description: new\npipeline:\n  mutators:\n    - image: set-labels:v1\n`,
    );
  });
});

describe("strategies", () => {
  it("fast-forward refuses a locally changed package", () => {
    expect(() => run({ "a.txt": "x\n" }, { "a.txt": "y\n" }, { "a.txt": "z\n" }, "fast-forward")).toThrow(
      MergeError,
    );
  });
  it("force-delete-replace drops local edits, copy-merge keeps local-only files", () => {
    const o = { "a.txt": "x\n" };
    const u = { "a.txt": "y\n" };
    const l = { "a.txt": "z\n", "mine.txt": "m\n" };
    expect(run(o, u, l, "force-delete-replace").files).toEqual({ Kptfile: KF, "a.txt": "y\n" });
    expect(run(o, u, l, "copy-merge").files).toEqual({ Kptfile: KF, "a.txt": "y\n", "mine.txt": "m\n" });
  });
});
