import { describe, expect, it } from "vitest";
import { treeFromText } from "../../src/kpt/tree.js";
import { mergePackage } from "../../src/merge/index.js";
import { formatVariantPullRequest } from "../../src/variants/pull-request.js";
import { codeBlock } from "../util/codeblock.js";

const KF = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n";
const deploy = (o: { replicas: string; image: string; team?: string }) => codeBlock`
  apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    labels: {team: ${o.team ?? "a"}}
  spec:
    replicas: ${o.replicas}
    template:
      spec:
        containers:
        - name: app
          image: ${o.image}
`;

const replaced = (o: string, u: string, l: string) =>
  mergePackage({
    original: treeFromText({ Kptfile: KF, "d.yaml": o }),
    updated: treeFromText({ Kptfile: KF, "d.yaml": u }),
    local: treeFromText({ Kptfile: KF, "d.yaml": l }),
  }).changes.flatMap((c) => (c.replacedLocal ?? []).map((f) => `${c.file}: ${f}`));

describe("fields where upstream's value replaced a local edit", () => {
  it("names each field both sides changed differently, list elements by their key", () => {
    const o = deploy({ replicas: "1", image: "nginx:1" });
    const u = deploy({ replicas: "2", image: "nginx:2", team: "b" });
    const l = deploy({ replicas: "3", image: "nginx:local" });
    expect(replaced(o, u, l)).toEqual([
      "d.yaml: spec.replicas",
      "d.yaml: spec.template.spec.containers[name=app].image",
    ]);
  });

  it("names none where only one side changed, or both made the same change", () => {
    const o = deploy({ replicas: "1", image: "nginx:1" });
    expect(
      replaced(o, deploy({ replicas: "2", image: "nginx:1" }), deploy({ replicas: "1", image: "x" })),
    ).toEqual([]);
    expect(
      replaced(o, deploy({ replicas: "2", image: "nginx:1" }), deploy({ replicas: "2", image: "nginx:1" })),
    ).toEqual([]);
  });

  it("names the Kptfile's lists taken whole from upstream over local additions, and function fields", () => {
    const kf = (fns: string) => `${KF}pipeline:\n  mutators:\n${fns}`;
    const setters = (path: string) =>
      `    - image: gcr.io/kpt-fn/apply-setters:v0.1\n      configPath: ${path}\n`;
    const changes = (o: string, u: string, l: string) =>
      mergePackage({
        original: treeFromText({ Kptfile: o }),
        updated: treeFromText({ Kptfile: u }),
        local: treeFromText({ Kptfile: l }),
      }).changes.flatMap((c) => (c.replacedLocal ?? []).map((f) => `${c.file}: ${f}`));
    // kpt's table: a function named locally makes the list atomic; upstream's list replaces the local one
    expect(
      changes(
        kf(setters("a.yaml")),
        kf(setters("b.yaml")),
        kf(`${setters("a.yaml")}    - image: mine:v1\n      name: mine\n`),
      ),
    ).toEqual(["Kptfile: pipeline.mutators"]);
    // no function named anywhere: matched by image, the field both sides changed named
    expect(changes(kf(setters("a.yaml")), kf(setters("b.yaml")), kf(setters("c.yaml")))).toEqual([
      "Kptfile: pipeline.mutators[function=gcr.io/kpt-fn/apply-setters].configPath",
    ]);
    // a pipeline removed upstream takes the local functions with it
    expect(changes(kf(setters("a.yaml")), KF, kf(`${setters("a.yaml")}    - image: mine:v1\n`))).toEqual([
      "Kptfile: pipeline.mutators",
    ]);
  });

  it("lists them in the fan-out pull request body as `file: path.to.field`, bounded", () => {
    const many = Array.from({ length: 5000 }, (_, i) => ({
      file: "basens/cm.yaml",
      field: `data.k${i}`,
      resource: "ConfigMap/settings",
    }));
    const { body } = formatVariantPullRequest({
      kind: "update",
      variant: "c1",
      downstream: { repo: "cluster-01", package: "basens" },
      upstream: { repo: "blueprints", package: "basens" },
      from: "v1",
      to: "v2",
      replacedLocal: many,
    });
    expect(body).toContain("### Local edits replaced by upstream (5000)");
    expect(body).toContain("- `basens/cm.yaml: data.k0` (ConfigMap/settings)");
    expect(body).toMatch(/- … and \d+ more/);
    expect(body.length).toBeLessThan(65_536);
  });
});
