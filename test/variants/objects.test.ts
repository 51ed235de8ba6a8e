import { describe, expect, it } from "vitest";
import { loadVariants } from "../../src/variants/load.js";
import { selectableObjects, selectObjects } from "../../src/variants/objects.js";
import type { UpstreamIndex } from "../../src/variants/plan-types.js";
import type { RepositoryInfo } from "../../src/variants/repositories.js";
import { codeBlock } from "../util/codeblock.js";
import { variantSetDoc } from "../util/krm.js";

const cluster = (name: string, labels: string) => codeBlock`
  apiVersion: infra.example.com/v1
  kind: Cluster
  metadata:
    name: ${name}
    labels: ${labels}
    annotations: {region: eu-${name}}
`;

// The management repository as fan-out reads it: objects beside a package, variant files and CI config.
const files: [string, string][] = [
  [
    "clusters/edge.yaml",
    `${cluster("cluster-01", "{tier: edge}")}---\n${cluster("cluster-02", "{tier: core}")}`,
  ],
  ["clusters/notes.md", "# not YAML"],
  ["basens/Kptfile", "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {name: basens}\n"],
  ["basens/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: in-a-package}\n"],
  [".github/porchlight.yml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dot-dir}\n"],
  ["junk.yaml", "just: data\n"],
];

describe("objectSelector's objects, read from the management repository", () => {
  it("reads the KRM objects outside packages and dot-directories", () => {
    expect(selectableObjects(files).map((o) => [o.file, o.kind, o.name, o.labels])).toEqual([
      ["clusters/edge.yaml", "Cluster", "cluster-01", { tier: "edge" }],
      ["clusters/edge.yaml", "Cluster", "cluster-02", { tier: "core" }],
    ]);
  });

  it.each([
    [
      "apiVersion and kind",
      { apiVersion: "infra.example.com/v1", kind: "Cluster" },
      ["cluster-01", "cluster-02"],
    ],
    [
      "and a name",
      { apiVersion: "infra.example.com/v1", kind: "Cluster", name: "cluster-02" },
      ["cluster-02"],
    ],
    [
      "and labels",
      { apiVersion: "infra.example.com/v1", kind: "Cluster", matchLabels: { tier: "edge" } },
      ["cluster-01"],
    ],
    ["another apiVersion", { apiVersion: "infra.example.com/v2", kind: "Cluster" }, []],
  ])("selects by %s", (_name, selector, expected) => {
    expect(selectObjects(selector, selectableObjects(files)).map((o) => o.name)).toEqual(expected);
  });
});

describe("a set's template expressions see what Porch gives them", () => {
  const repositories: RepositoryInfo[] = [
    { name: "blueprints", fullName: "acme/blueprints" },
    {
      name: "cluster-01",
      fullName: "acme/cluster-01",
      labels: { env: "prod" },
      annotations: { owner: "sre" },
    },
    { name: "cluster-02", fullName: "acme/cluster-02" },
  ];
  const upstream: UpstreamIndex = {
    blueprints: {
      "apps/basens": {
        revisions: [
          { revision: "v1", commit: "1".repeat(40), workspace: "first" },
          { revision: "v2", commit: "2".repeat(40) },
        ],
      },
    },
  };
  const set = (upstreamFields: string, target: string) =>
    variantSetDoc(
      "fleet",
      `{package: apps/basens, ${upstreamFields}}`,
      codeBlock`
      targets:
      - ${target}
        template:
          annotationExprs:
          - {key: upstream, valueExpr: "upstream.name + ' in ' + upstream.namespace"}
          - {key: repository, valueExpr: "repository.namespace + '/' + repository.name + ' ' + repository.labels.env + ' ' + repository.annotations.owner"}
          - {key: target, valueExpr: "string(target)"}
  `,
    );
  const load = (text: string, withIndex = true) =>
    loadVariants([{ path: ".porchlight/variants/fleet.yaml", text }], {
      repositories,
      managementRepo: "blueprints",
      namespace: "acme",
      objects: selectableObjects(files),
      ...(withIndex ? { upstream } : {}),
    });

  it("objectSelector: one variant per object, named after it, the object as target", () => {
    const text = set(
      "revision: 1",
      "objectSelector: {apiVersion: infra.example.com/v1, kind: Cluster, matchLabels: {tier: edge}}",
    ).replace("string(target)", "target.name + ' ' + target.labels.tier + ' ' + target.annotations.region");
    const { variants, problems } = load(text);
    expect(problems).toEqual([]);
    expect(variants.map((v) => [v.variant.spec.downstream, v.variant.spec.annotations])).toEqual([
      [
        { repo: "cluster-01", package: "apps/basens" },
        {
          upstream: "blueprints.apps.basens.first in acme",
          repository: "acme/cluster-01 prod sre",
          target: "cluster-01 edge eu-cluster-01",
        },
      ],
    ]);
  });

  it.each([
    ["the revision's workspace, read from its commit", "revision: 1", true, "blueprints.apps.basens.first"],
    ["v<N> for a revision whose commit names none", "revision: 2", true, "blueprints.apps.basens.v2"],
    ["the workspace named", "workspaceName: first", false, "blueprints.apps.basens.first"],
    [
      "Porch's placeholder for the latest, without the revisions at hand",
      "channel: stable",
      false,
      "blueprints.apps.basens.main",
    ],
  ])("upstream.name is the upstream revision's name: %s", (_name, fields, withIndex, expected) => {
    const text = set(fields, "repositories: [{name: cluster-02}]").replace(
      "- {key: repository",
      "# - {key: repository",
    );
    const { variants, problems } = load(text.replace('"string(target)"', "target.repo"), withIndex);
    expect(problems).toEqual([]);
    expect(variants[0]?.variant.spec.annotations?.upstream).toBe(`${expected} in acme`);
  });
});
