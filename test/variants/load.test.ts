import { describe, expect, it } from "vitest";
import { isVariantFile, loadVariants } from "../../src/variants/load.js";
import type { RepositoryInfo } from "../../src/variants/repositories.js";
import { codeBlock } from "../util/codeblock.js";
import { variantSetDoc } from "../util/krm.js";

const repositories: RepositoryInfo[] = [
  { name: "blueprints", fullName: "acme/blueprints", topics: [] },
  { name: "cluster-01", fullName: "acme/cluster-01", topics: ["prod", "us-east1"] },
  { name: "cluster-02", fullName: "acme/cluster-02", topics: ["prod", "eu-west1"] },
  { name: "cluster-03", fullName: "acme/cluster-03", topics: ["dev"] },
];
const context = {
  repositories,
  packages: { blueprints: ["basens", "apps/web"] },
  managementRepo: "blueprints",
};

const pv = (name: string, downstream: string, extra = "") => codeBlock`
  apiVersion: config.porch.kpt.dev/v1alpha1
  kind: PackageVariant
  metadata: {name: ${name}}
  spec:
    upstream: {package: basens, revision: v1}
    downstream: {repo: ${downstream}, package: basens}
  ${extra}
`;

describe("loadVariants: PackageVariantSet expansion", () => {
  it("expands a set on an OCI image: one variant per selected repository, the package named after the image's directory", () => {
    const text = variantSetDoc(
      "web",
      '{oci: "oci://registry.example/pkgs/blueprints//apps/web:stable"}',
      codeBlock`
        targets:
        - repositorySelector: {topics: [prod]}
          template:
            annotations: {from: upstream-repo}
            annotationExprs: [{key: image, valueExpr: upstream.repo}]
    `,
    );
    const { variants, problems } = loadVariants([{ path: ".porchlight/variants/web.yaml", text }], context);
    expect(problems).toEqual([]);
    expect(
      variants.map(({ variant: v }) => ({
        up: v.spec.upstream,
        down: v.spec.downstream,
        image: v.spec.annotations?.image,
      })),
    ).toEqual(
      ["cluster-01", "cluster-02"].map((repo) => ({
        up: { oci: "oci://registry.example/pkgs/blueprints//apps/web:stable" },
        down: { repo, package: "web" },
        image: "oci://registry.example/pkgs/blueprints",
      })),
    );
  });

  it("unrolls explicit repositories, once per package name, as Porch does", () => {
    const text = variantSetDoc(
      "ns",
      "{repo: blueprints, package: basens, revision: v2}",
      codeBlock`
        targets:
        - repositories:
          - name: cluster-01
          - name: cluster-02
            packageNames: [ns-a, ns-b]
          template:
            labels: {package-type: namespace}
    `,
    );
    const { variants, problems } = loadVariants([{ path: ".porchlight/variants/ns.yaml", text }], context);
    expect(problems).toEqual([]);
    expect(variants.map((v) => [v.variant.metadata.name, v.variant.spec.downstream])).toEqual([
      ["ns-cluster-01-basens", { repo: "cluster-01", package: "basens" }],
      ["ns-cluster-02-ns-a", { repo: "cluster-02", package: "ns-a" }],
      ["ns-cluster-02-ns-b", { repo: "cluster-02", package: "ns-b" }],
    ]);
    expect(variants[0]?.variant.spec.labels).toEqual({ "package-type": "namespace" });
    expect(variants[0]?.source.set).toBe("ns");
  });

  it("selects repositories by topic and evaluates simple expressions", () => {
    const text = variantSetDoc(
      "web",
      "{package: apps/web, channel: stable}",
      codeBlock`
        targets:
        - repositorySelector: {topics: [prod], names: ["cluster-*"]}
          template:
            downstream:
              packageExpr: "'web-' + repository.name"
            labelExprs:
            - key: cluster
              valueExpr: repository.name
            packageContext:
              dataExprs:
              - keyExpr: "'region'"
                valueExpr: target.topics
            injectors:
            - nameExpr: "repository.name + '-endpoints'"
              kind: ConfigMap
    `,
    );
    const { variants, problems } = loadVariants([{ path: ".porchlight/variants/web.yaml", text }], context);
    // target.topics is a list, not a string: reported at the expression, the set's other fields unharmed
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatchObject({
      file: ".porchlight/variants/web.yaml",
      line: 17,
      field: "spec.targets[0].template.packageContext.dataExprs[0].valueExpr",
      variant: "web",
      message: expect.stringContaining("must give a string"),
    });
    expect(variants).toEqual([]);
  });

  it("renders a selector target into variants with expressions applied", () => {
    const text = variantSetDoc(
      "web",
      "{package: apps/web, channel: stable}",
      codeBlock`
        targets:
        - repositorySelector: {topics: [prod]}
          template:
            downstream:
              packageExpr: "'web-' + repository.name"
            labelExprs:
            - key: cluster
              valueExpr: repository.name
            injectors:
            - nameExpr: "repository.name + '-endpoints'"
              kind: ConfigMap
            pipeline:
              mutators:
              - image: set-labels:v0.2
                configMapExprs:
                - key: cluster
                  valueExpr: repoDefault
    `,
    );
    const { variants, problems } = loadVariants([{ path: ".porchlight/variants/web.yaml", text }], context);
    expect(problems).toEqual([]);
    expect(variants.map((v) => v.variant.spec.downstream.package)).toEqual([
      "web-cluster-01",
      "web-cluster-02",
    ]);
    expect(variants[1]?.variant.spec).toMatchObject({
      upstream: { repo: "blueprints", package: "apps/web", channel: "stable" },
      labels: { cluster: "cluster-02" },
      injectors: [{ kind: "ConfigMap", name: "cluster-02-endpoints" }],
      pipeline: { mutators: [{ image: "set-labels:v0.2", configMap: { cluster: "cluster-02" } }] },
    });
  });

  it("refuses an expression that does not give a string, naming the file and field", () => {
    const text = variantSetDoc(
      "ns",
      "{package: basens, revision: v1}",
      codeBlock`
        targets:
        - repositories: [{name: cluster-01}]
          template:
            downstream:
              packageExpr: "size(repoDefault)"
    `,
    );
    const { problems } = loadVariants([{ path: ".porchlight/variants/ns.yaml", text }], context);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      line: 10,
      field: "spec.targets[0].template.downstream.packageExpr",
      message: expect.stringMatching(/cannot evaluate "size\(repoDefault\)": must give a string, not an int/),
    });
  });

  it("pauses every variant of a paused set", () => {
    const text = codeBlock`
      apiVersion: config.porch.kpt.dev/v1alpha2
      kind: PackageVariantSet
      metadata: {name: ns}
      spec:
        paused: true
        upstream: {package: basens, revision: v1}
        targets:
        - repositories: [{name: cluster-01}, {name: cluster-02}]
    `;
    const { variants } = loadVariants([{ path: ".porchlight/variants/ns.yaml", text }], context);
    expect(variants.map((v) => v.variant.spec.paused)).toEqual([true, true]);
  });
});

describe("loadVariants: validation across variants", () => {
  it.each([
    {
      name: "an unknown downstream repository",
      files: { "a.yaml": pv("a", "cluster-99") },
      problem: { field: "spec.downstream.repo", message: 'unknown repository "cluster-99"', line: 6 },
      kept: [],
    },
    {
      name: "an upstream package that was never published",
      files: {
        "a.yaml": pv("a", "cluster-01").replace("package: basens, revision", "package: nope, revision"),
      },
      problem: {
        field: "spec.upstream.package",
        message: 'repository "blueprints" has no published package "nope"',
        line: 5,
      },
      kept: [],
    },
    {
      name: "two variants for one downstream: the first declared keeps it",
      files: { "a.yaml": pv("a", "cluster-01"), "b.yaml": pv("b", "acme/cluster-01") },
      problem: {
        file: ".porchlight/variants/b.yaml",
        field: "spec.downstream",
        message:
          "downstream acme/cluster-01/basens is already the downstream of variant a (.porchlight/variants/a.yaml:1)",
        line: 6,
      },
      kept: ["a"],
    },
    {
      name: "two variants with one name",
      files: { "a.yaml": pv("a", "cluster-01"), "b.yaml": pv("a", "cluster-02") },
      problem: { file: ".porchlight/variants/b.yaml", field: "metadata.name", line: 3 },
      kept: ["a"],
    },
  ])("skips $name and reports it", ({ files, problem, kept }) => {
    const list = Object.entries(files).map(([p, text]) => ({ path: `.porchlight/variants/${p}`, text }));
    const { variants, problems } = loadVariants(list, context);
    expect(problems).toEqual([expect.objectContaining(problem)]);
    expect(variants.map((v) => v.variant.metadata.name)).toEqual(kept);
  });

  it("recognises variant files", () => {
    expect(isVariantFile(".porchlight/variants/a.yaml")).toBe(true);
    expect(isVariantFile(".porchlight/variants/team/b.yml")).toBe(true);
    expect(isVariantFile(".porchlight/variants/README.md")).toBe(false);
    expect(isVariantFile("variants/a.yaml")).toBe(false);
  });
});

describe("loadVariants: metadata.namespace", () => {
  const file = (namespace: string) => ({
    path: ".porchlight/variants/ns.yaml",
    text: `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: c1\n  namespace: ${namespace}\nspec:\n  upstream: {package: basens, revision: v1}\n  downstream: {repo: cluster-01, package: basens}\n`,
  });
  it("the management repository's owner, in any case, is the variant's namespace: nothing to say", () => {
    const loaded = loadVariants([file("ACME")], { ...context, namespace: "acme" });
    expect(loaded.problems).toEqual([]);
    expect(loaded.variants).toHaveLength(1);
  });
  it("another namespace is a warning at its line; the variant runs in the owner's", () => {
    const loaded = loadVariants([file("porch-demo")], { ...context, namespace: "acme" });
    expect(loaded.variants.map((v) => v.variant.metadata.name)).toEqual(["c1"]);
    expect(loaded.problems).toEqual([
      expect.objectContaining({
        file: ".porchlight/variants/ns.yaml",
        line: 5,
        field: "metadata.namespace",
        severity: "warning",
        message:
          'metadata.namespace is "porch-demo", but a variant file\'s namespace is the owner of the repository holding it, acme: the variant runs in acme',
      }),
    ]);
  });
});
