import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  type DiscoverInput,
  discoverRevisions,
  nextRevision,
  type PackageRevision,
  revisionName,
} from "../../src/lifecycle/index.js";
import { codeBlock } from "../util/codeblock.js";

const input = (yaml: string): DiscoverInput => ({ baseBranch: "main", pullRequests: [], ...parse(yaml) });

/** The columns porchctl rpkg get shows, one line per revision. */
const table = (revs: PackageRevision[]) =>
  revs.map((r) =>
    [r.package, r.workspace, r.revision, r.latest, r.lifecycle, r.pullRequest ?? "-"].join(" "),
  );

describe("discoverRevisions: every package revision from refs and open pull requests", () => {
  it.each([
    {
      name: "published tags, the highest one latest per package",
      input: codeBlock`
        refs:
          - {ref: refs/heads/main, sha: m1}
          - {ref: refs/tags/app/v1, sha: a1}
          - {ref: refs/tags/app/v2, sha: a2}
          - {ref: refs/tags/app/v10, sha: a10}
          - {ref: refs/tags/net/dns/coredns/v1, sha: c1}
      `,
      expected: [
        "app v1 1 false Published -",
        "app v2 2 false Published -",
        "app v10 10 true Published -",
        "net/dns/coredns v1 1 true Published -",
      ],
    },
    {
      name: "a draft branch without a pull request is a Draft",
      input: codeBlock`
        refs:
          - {ref: refs/heads/drafts/app/fix-1, sha: d1}
      `,
      expected: ["app fix-1 0 false Draft -"],
    },
    {
      name: "an open pull request into the base branch makes it Proposed",
      input: codeBlock`
        refs:
          - {ref: refs/heads/drafts/app/fix-1, sha: d1}
          - {ref: refs/tags/app/v1, sha: a1}
        pullRequests:
          - {number: 7, headRef: drafts/app/fix-1, baseRef: main, headSha: d1, labels: [], draft: false}
      `,
      expected: ["app v1 1 true Published -", "app fix-1 0 false Proposed 7"],
    },
    {
      name: "a draft branch left at the head of its merged pull request is the published revision, not a Draft",
      input: codeBlock`
        refs:
          - {ref: refs/heads/drafts/app/v1, sha: d1}
          - {ref: refs/tags/app/v1, sha: m1}
        pullRequests:
          - {number: 7, headRef: drafts/app/v1, baseRef: main, headSha: d1, labels: [], draft: false, merged: true, mergeCommitSha: m1}
      `,
      expected: ["app v1 1 true Published -"],
    },
    {
      name: "merged but not tagged yet (a publish between its merge and its tag), the revision is still the proposal it was",
      input: codeBlock`
        refs:
          - {ref: refs/heads/drafts/app/fix-1, sha: d1}
          - {ref: refs/tags/app/v1, sha: m1}
        pullRequests:
          - {number: 7, headRef: drafts/app/fix-1, baseRef: main, headSha: d1, labels: [], draft: false, merged: true, mergeCommitSha: m2}
      `,
      expected: ["app v1 1 true Published -", "app fix-1 0 false Proposed 7"],
    },
    {
      name: "a merge whose revision was deleted since (labelled porchlight/deleted) is no revision",
      input: codeBlock`
        refs:
          - {ref: refs/heads/drafts/app/fix-1, sha: d1}
        pullRequests:
          - {number: 7, headRef: drafts/app/fix-1, baseRef: main, headSha: d1, labels: [porchlight/deleted], draft: false, merged: true, mergeCommitSha: m2}
      `,
      expected: [],
    },
    {
      name: "a push after the merge makes the branch a Draft again",
      input: codeBlock`
        refs:
          - {ref: refs/heads/drafts/app/fix-1, sha: d2}
          - {ref: refs/tags/app/v1, sha: m1}
        pullRequests:
          - {number: 7, headRef: drafts/app/fix-1, baseRef: main, headSha: d1, labels: [], draft: false, merged: true}
      `,
      expected: ["app v1 1 true Published -", "app fix-1 0 false Draft -"],
    },
    {
      name: "a GitHub draft pull request leaves the revision a Draft",
      input: codeBlock`
        refs:
          - {ref: refs/heads/drafts/app/wip, sha: d1}
        pullRequests:
          - {number: 8, headRef: drafts/app/wip, baseRef: main, headSha: d1, labels: [], draft: true}
      `,
      expected: ["app wip 0 false Draft 8"],
    },
    {
      name: "a pull request into another branch is not a proposal",
      input: codeBlock`
        refs:
          - {ref: refs/heads/drafts/app/fix-1, sha: d1}
        pullRequests:
          - {number: 9, headRef: drafts/app/fix-1, baseRef: release, headSha: d1, labels: [], draft: false}
      `,
      expected: ["app fix-1 0 false Draft -"],
    },
    {
      name: "a pull request from a fork is not a revision of this repository",
      input: codeBlock`
        refs:
          - {ref: refs/heads/drafts/app/fix-1, sha: d1}
        pullRequests:
          - {number: 10, headRef: drafts/app/fix-1, baseRef: main, headSha: zz, labels: [], draft: false, isFork: true}
      `,
      expected: ["app fix-1 0 false Draft -"],
    },
    {
      name: "a proposal to delete a published revision marks that revision DeletionProposed, no other",
      input: codeBlock`
        refs:
          - {ref: refs/tags/app/v1, sha: a1}
          - {ref: refs/tags/app/v2, sha: a2}
          - {ref: refs/heads/deletionProposed/app/v1, sha: d1}
        pullRequests:
          - {number: 11, headRef: deletionProposed/app/v1, baseRef: main, headSha: d1, labels: [porchlight/deletion], draft: false}
      `,
      expected: ["app v1 1 false DeletionProposed 11", "app v2 2 true Published -"],
    },
    {
      name: "a deletion proposal for a never-published package is the draft itself",
      input: codeBlock`
        refs:
          - {ref: refs/heads/drafts/app/delete, sha: d1}
        pullRequests:
          - {number: 12, headRef: drafts/app/delete, baseRef: main, headSha: d1, labels: [porchlight/deletion], draft: false}
      `,
      expected: ["app delete 0 false DeletionProposed 12"],
    },
    {
      name: "refs outside the scheme are left out",
      input: codeBlock`
        refs:
          - {ref: refs/heads/feature/x, sha: f1}
          - {ref: refs/heads/drafts/app, sha: f2}
          - {ref: refs/heads/porchlight/catalog, sha: f3}
          - {ref: refs/tags/v1.0.0, sha: f4}
          - {ref: refs/tags/app/latest, sha: f5}
          - {ref: refs/pull/7/head, sha: f6}
          - {ref: HEAD, sha: f7}
      `,
      expected: [],
    },
    {
      name: "a fan-out branch is a draft of its downstream package, workspace the variant; its pull request a proposal",
      input: codeBlock`
        refs:
          - {ref: refs/tags/hello/v1, sha: h1}
          - {ref: refs/heads/porchlight/variant/hello/dev, sha: f1}
          - {ref: refs/heads/porchlight/variant/net/dns/edge.eu, sha: f2}
          - {ref: refs/heads/porchlight/variant/hello, sha: f3}
        pullRequests:
          - {number: 4, headRef: porchlight/variant/hello/dev, baseRef: main, headSha: f1, labels: [porchlight/update], draft: false}
      `,
      expected: [
        "hello v1 1 true Published -",
        "hello dev 0 false Proposed 4",
        "net/dns edge.eu 0 false Draft -",
      ],
    },
    {
      name: "a fan-out branch still at the head of its merged pull request is that published revision",
      input: codeBlock`
        refs:
          - {ref: refs/tags/hello/v1, sha: m1}
          - {ref: refs/heads/porchlight/variant/hello/dev, sha: f1}
        pullRequests:
          - {number: 4, headRef: porchlight/variant/hello/dev, baseRef: main, headSha: f1, labels: [], draft: false, merged: true, mergeCommitSha: m1}
      `,
      expected: ["hello v1 1 true Published -"],
    },
    {
      name: "drafts of several packages sort by package, then workspace",
      input: codeBlock`
        refs:
          - {ref: refs/heads/drafts/web/b, sha: w2}
          - {ref: refs/heads/drafts/app/z, sha: a2}
          - {ref: refs/heads/drafts/web/a, sha: w1}
          - {ref: refs/tags/web/v1, sha: wt}
      `,
      expected: [
        "app z 0 false Draft -",
        "web v1 1 true Published -",
        "web a 0 false Draft -",
        "web b 0 false Draft -",
      ],
    },
  ])("$name", ({ input: yaml, expected }) => {
    expect(table(discoverRevisions(input(yaml)))).toEqual(expected);
  });

  it("lists the packages on the base branch as its .main revisions; one gone from it keeps its tags", () => {
    const refs = input(codeBlock`
      refs:
        - {ref: refs/heads/main, sha: m1}
        - {ref: refs/tags/app/v1, sha: a1}
        - {ref: refs/tags/app/v2, sha: a2}
        - {ref: refs/tags/web/v1, sha: w1}
        - {ref: refs/heads/drafts/app/again, sha: d1}
    `);
    expect(table(discoverRevisions({ ...refs, basePackages: new Set(["web", "web/sub"]) }))).toEqual([
      "app v1 1 false Published -",
      "app v2 2 true Published -",
      "app again 0 false Draft -",
      "web main -1 false Published -",
      "web v1 1 true Published -",
    ]);
  });

  it("a proposal removing a package from the base branch marks its .main revision DeletionProposed, no tag", () => {
    const refs = input(codeBlock`
      refs:
        - {ref: refs/heads/main, sha: m1}
        - {ref: refs/tags/app/v1, sha: a1}
        - {ref: refs/heads/drafts/app/delete-v1, sha: d1}
      pullRequests:
        - {number: 11, headRef: drafts/app/delete-v1, baseRef: main, headSha: d1, labels: [porchlight/deletion], draft: false}
    `);
    expect(table(discoverRevisions({ ...refs, basePackages: new Set(["app"]) }))).toEqual([
      "app main -1 false DeletionProposed 11",
      "app v1 1 true Published -",
    ]);
  });

  it("points an annotated tag at its commit, not the tag object", () => {
    const revs = discoverRevisions(
      input(codeBlock`
        refs:
          - {ref: "refs/tags/app/v1^{}", sha: commit1}
          - {ref: refs/tags/app/v1, sha: tagobject1}
          - {ref: refs/tags/app/v2, sha: tagobject2}
          - {ref: "refs/tags/app/v2^{}", sha: commit2}
      `),
    );
    expect(revs.map((r) => [r.ref, r.sha])).toEqual([
      ["refs/tags/app/v1", "commit1"],
      ["refs/tags/app/v2", "commit2"],
    ]);
  });

  it("lists a thousand packages in one pass", () => {
    const refs = Array.from({ length: 1000 }, (_, i) => [
      { ref: `refs/tags/pkg${i}/v1`, sha: `a${i}` },
      { ref: `refs/tags/pkg${i}/v2`, sha: `b${i}` },
      { ref: `refs/heads/drafts/pkg${i}/ws`, sha: `c${i}` },
    ]).flat();
    const revs = discoverRevisions({ refs, pullRequests: [], baseBranch: "main" });
    expect(revs).toHaveLength(3000);
    expect(revs.filter((r) => r.latest)).toHaveLength(1000);
  });
});

describe("nextRevision", () => {
  it.each([
    { pkg: "app", refs: [], expected: 1 },
    { pkg: "app", refs: ["refs/tags/app/v1", "refs/tags/app/v3"], expected: 4 },
    { pkg: "app", refs: ["refs/tags/app/sub/v9", "refs/tags/other/v5"], expected: 1 },
    { pkg: "app/sub", refs: ["refs/tags/app/sub/v9", "refs/tags/app/v5"], expected: 10 },
    { pkg: "app", refs: ["refs/heads/app/v7", "refs/tags/app/v2^{}", "refs/tags/app/v2"], expected: 3 },
    // v3 deleted (its tag gone), the catalog remembering it: its number is not given again
    { pkg: "app", refs: ["refs/tags/app/v1", "refs/tags/app/v2"], reserved: 3, expected: 4 },
    { pkg: "app", refs: ["refs/tags/app/v5"], reserved: 3, expected: 6 },
  ])("$pkg after $refs is v$expected", ({ pkg, refs, reserved, expected }) => {
    expect(
      nextRevision(
        pkg,
        refs.map((ref) => ({ ref, sha: "x" })),
        reserved ?? 0,
      ),
    ).toBe(expected);
  });
});

describe("revisionName", () => {
  it("names a revision as Porch does: repository, package with dots, workspace", () => {
    expect(revisionName("blueprints", { package: "net/dns/coredns", workspace: "v2" })).toBe(
      "blueprints.net.dns.coredns.v2",
    );
  });
});
