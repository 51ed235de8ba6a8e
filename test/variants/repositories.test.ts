import { describe, expect, it } from "vitest";
import { loadVariants } from "../../src/variants/load.js";
import {
  type RepositoryInfo,
  selectorAccounts,
  selectRepositories,
} from "../../src/variants/repositories.js";
import { codeBlock } from "../util/codeblock.js";
import { variantSetDoc } from "../util/krm.js";

// The management repository's installation (acme) names its repositories by short name; the app's
// installations on other accounts by `owner/name`, as fan-out reads them.
const repositories: RepositoryInfo[] = [
  { name: "blueprints", fullName: "acme/blueprints", topics: [] },
  { name: "cluster-01", fullName: "acme/cluster-01", topics: ["prod"] },
  { name: "other/cluster-02", fullName: "other/cluster-02", topics: ["prod"] },
  { name: "other/cluster-03", fullName: "other/cluster-03", topics: ["dev"] },
  { name: "third/cluster-04", fullName: "third/cluster-04", topics: ["prod"] },
];
const names = (r: RepositoryInfo[]) => r.map((x) => x.name);

/** loadVariants over `text` as .porchlight/variants/fleet.yaml, package hello in blueprints, among `repos`. */
const loadFleet = (
  text: string,
  repos = repositories,
  more: Partial<Parameters<typeof loadVariants>[1]> = {},
) =>
  loadVariants([{ path: ".porchlight/variants/fleet.yaml", text }], {
    repositories: repos,
    packages: { blueprints: ["hello"] },
    managementRepo: "blueprints",
    ...more,
  });

describe("selectRepositories across installations", () => {
  it("keeps a selector without an owner in the management repository's installation", () => {
    expect(names(selectRepositories({ names: ["cluster-*"] }, repositories))).toEqual(["cluster-01"]);
    expect(names(selectRepositories({ topics: ["prod"] }, repositories))).toEqual(["cluster-01"]);
    // A glob that could match any owner does not reach other accounts either.
    expect(names(selectRepositories({ names: ["**"] }, repositories))).toEqual(["blueprints", "cluster-01"]);
    expect(names(selectRepositories({ names: ["*/cluster-*"] }, repositories))).toEqual(["cluster-01"]);
  });

  it("picks another account's repositories only by a glob that spells that owner", () => {
    expect(names(selectRepositories({ names: ["other/cluster-*"] }, repositories))).toEqual([
      "other/cluster-02",
      "other/cluster-03",
    ]);
    expect(
      names(selectRepositories({ names: ["cluster-*", "Other/cluster-*"], topics: ["prod"] }, repositories)),
    ).toEqual(["cluster-01", "other/cluster-02"]);
    expect(
      names(
        selectRepositories({ names: ["other/*", "third/*"], excludeNames: ["*/cluster-03"] }, repositories),
      ),
    ).toEqual(["other/cluster-02", "third/cluster-04"]);
  });

  it("names the accounts a selector reaches into: literal owners only, lower case, once", () => {
    expect(
      selectorAccounts({ names: ["cluster-*", "Other/cluster-*", "other/x", "*/y", "th?rd/z"] }),
    ).toEqual(["other"]);
    expect(selectorAccounts({ topics: ["prod"] })).toEqual([]);
  });

  it("loadVariants reports the accounts sets select in, and expands into them", () => {
    const text = variantSetDoc(
      "fleet",
      "{package: hello, revision: v1}",
      codeBlock`
        targets:
        - repositorySelector: {names: ["cluster-*", "other/cluster-*"], topics: [prod]}
    `,
    );
    const { variants, problems, selectedAccounts } = loadFleet(text);
    expect(problems).toEqual([]);
    expect(selectedAccounts).toEqual(["other"]);
    expect(variants.map((v) => v.variant.spec.downstream)).toEqual([
      { repo: "cluster-01", package: "hello" },
      { repo: "other/cluster-02", package: "hello" },
    ]);
    // Porch's `<set>-<repo>-<package>`, cleaned to a DNS label where `/` is not allowed.
    expect(variants[1]?.variant.metadata.name).toMatch(/^fleet-other-cluster-02-hello-[0-9a-f]{8}$/);
  });

  it("names a selector glob whose account the app does not reach, at its line, and selects the rest", () => {
    const text = variantSetDoc(
      "fleet",
      "{package: hello, revision: v1}",
      codeBlock`
        targets:
        - repositorySelector:
            names: ["cluster-*", "nowhere/cluster-*"]
    `,
    );
    const { variants, problems } = loadFleet(text, repositories, {
      unreachableAccounts: { nowhere: "the porchlight app is not installed on nowhere" },
    });
    expect(problems).toEqual([
      expect.objectContaining({
        file: ".porchlight/variants/fleet.yaml",
        line: 8,
        field: "spec.targets[0].repositorySelector.names[1]",
        message: "nowhere/cluster-* selects nothing: the porchlight app is not installed on nowhere",
        hint: expect.stringContaining("an owner of nowhere installs the app"),
      }),
    ]);
    expect(variants.map((v) => v.variant.spec.downstream.repo)).toEqual(["cluster-01"]);
  });

  it("warns, at its line, where repository.name of another account's repository (owner/name) goes where only a name is meant, and still runs the variant", () => {
    const text = variantSetDoc(
      "fleet",
      "{package: hello, revision: v1}",
      codeBlock`
        targets:
        - repositorySelector: {names: ["cluster-*", "other/cluster-*"]}
          template:
            downstream:
              repoExpr: target.name
              packageExpr: "'web-' + repository.name"
            labelExprs:
            - key: cluster
              valueExpr: repository['name']
            annotationExprs:
            - key: full
              valueExpr: repository.fullName
    `,
    );
    const { variants, problems } = loadFleet(text);
    // repoExpr is where owner/name is meant; fullName says it is the full name. One warning per field,
    // however many repositories of other accounts the field is evaluated for.
    expect(problems).toEqual([
      expect.objectContaining({
        file: ".porchlight/variants/fleet.yaml",
        line: 11,
        field: "spec.targets[0].template.downstream.packageExpr",
        severity: "warning",
        message: expect.stringContaining(
          'repository.name is "other/cluster-02" here, owner and name, as a repository of another account is named',
        ),
      }),
      expect.objectContaining({
        line: 14,
        field: "spec.targets[0].template.labelExprs[0].valueExpr",
        severity: "warning",
        message: expect.stringContaining("a label value cannot hold a '/'"),
      }),
    ]);
    expect(problems[0]?.message).toContain('gives "web-other/cluster-02" for downstream.package');
    expect(variants.map((v) => v.variant.spec.downstream)).toEqual([
      { repo: "cluster-01", package: "web-cluster-01" },
      { repo: "other/cluster-02", package: "web-other/cluster-02" },
      { repo: "other/cluster-03", package: "web-other/cluster-03" },
    ]);
  });

  it("does not warn for repository.name of the management repository's installation", () => {
    const text = variantSetDoc(
      "fleet",
      "{package: hello, revision: v1}",
      codeBlock`
        targets:
        - repositorySelector: {names: ["cluster-*"]}
          template:
            downstream: {packageExpr: "'web-' + repository.name"}
    `,
    );
    expect(loadFleet(text).problems).toEqual([]);
  });
});

describe("repositorySelector by registration labels (Kubernetes label-selector semantics)", () => {
  const labelled: RepositoryInfo[] = [
    { name: "blueprints", fullName: "acme/blueprints" },
    { name: "edge-1", fullName: "acme/edge-1", topics: ["prod"], labels: { env: "prod", tier: "edge" } },
    { name: "edge-2", fullName: "acme/edge-2", labels: { env: "dev", tier: "edge" } },
    { name: "core-1", fullName: "acme/core-1", labels: { env: "prod" } },
  ];
  const pick = (selector: Parameters<typeof selectRepositories>[0]) =>
    names(selectRepositories(selector, labelled));

  it.each<[string, Parameters<typeof selectRepositories>[0], string[]]>([
    ["matchLabels: every key with its value", { matchLabels: { env: "prod", tier: "edge" } }, ["edge-1"]],
    [
      "In: the label is one of the values",
      { matchExpressions: [{ key: "env", operator: "In", values: ["dev", "qa"] }] },
      ["edge-2"],
    ],
    [
      "NotIn: the label is none of them, or absent",
      { matchExpressions: [{ key: "env", operator: "NotIn", values: ["prod"] }] },
      ["blueprints", "edge-2"],
    ],
    [
      "Exists: the label is there",
      { matchExpressions: [{ key: "tier", operator: "Exists" }] },
      ["edge-1", "edge-2"],
    ],
    [
      "DoesNotExist: the label is not",
      { matchExpressions: [{ key: "tier", operator: "DoesNotExist" }] },
      ["blueprints", "core-1"],
    ],
    [
      "matchLabels and matchExpressions together: both",
      { matchLabels: { env: "prod" }, matchExpressions: [{ key: "tier", operator: "DoesNotExist" }] },
      ["core-1"],
    ],
    [
      "labels with names and topics: all of them",
      { names: ["edge-*"], topics: ["prod"], matchLabels: { tier: "edge" } },
      ["edge-1"],
    ],
    ["an empty selector: every repository", {}, ["blueprints", "edge-1", "edge-2", "core-1"]],
  ])("%s", (_name, selector, expected) => {
    expect(pick(selector)).toEqual(expected);
  });

  it("expands a set over the repositories its label selector picks, their labels in expressions", () => {
    const text = variantSetDoc(
      "fleet",
      "{package: hello, revision: v1}",
      codeBlock`
        targets:
        - repositorySelector:
            matchLabels: {tier: edge}
          template:
            labelExprs:
            - key: env
              valueExpr: repository.labels.env
    `,
    );
    const { variants, problems } = loadFleet(text, labelled);
    expect(problems).toEqual([]);
    expect(variants.map((v) => [v.variant.spec.downstream.repo, v.variant.spec.labels])).toEqual([
      ["edge-1", { env: "prod" }],
      ["edge-2", { env: "dev" }],
    ]);
  });

  it.each([
    [
      "In without values",
      "{key: env, operator: In}",
      "spec.targets[0].repositorySelector.matchExpressions[0].values",
      /values set can't be empty/,
    ],
    [
      "Exists with values",
      "{key: env, operator: Exists, values: [a]}",
      "spec.targets[0].repositorySelector.matchExpressions[0].values",
      /values set must be empty/,
    ],
    [
      "an operator Kubernetes does not have",
      "{key: env, operator: Equals, values: [a]}",
      "spec.targets[0].repositorySelector.matchExpressions[0].operator",
      /must be one of In, NotIn, Exists, DoesNotExist/,
    ],
  ])("refuses a requirement with %s, naming the field", (_name, requirement, field, message) => {
    const text = variantSetDoc(
      "fleet",
      "{package: hello, revision: v1}",
      codeBlock`
        targets:
        - repositorySelector:
            matchExpressions: [${requirement}]
    `,
    );
    const { problems } = loadVariants([{ path: "f.yaml", text }], {
      repositories: labelled,
      managementRepo: "blueprints",
    });
    expect(problems).toEqual([
      expect.objectContaining({ file: "f.yaml", field, message: expect.stringMatching(message) }),
    ]);
  });
});
