import { describe, expect, it } from "vitest";
import { expandPackageVariantSet } from "../../../src/variants/expand.js";
import { parseVariantFile } from "../../../src/variants/parse.js";
import { resolveUpstream } from "../../../src/variants/plan.js";
import type { PublishedRevision, UpstreamIndex } from "../../../src/variants/plan-types.js";
import type { GitUpstream, PackageVariant } from "../../../src/variants/schema.js";

/**
 * Porch's controller tests, translated: nephio-project/porch at 74d82d569e37,
 * packagevariant_controller_test.go TestIsValidUpstram and TestGetUpstreamPr: which upstream a
 * PackageVariant names, and which package revision that is. Porch reads the variant's upstream from its
 * list of PackageRevision objects; here from the upstream's published revisions (its `<package>/v<N>`
 * tags, each with the workspace it was published from) and its branch — Porch's placeholder revision
 * `main` (revision -1), which holds the latest published revision.
 *
 * Two of TestGetUpstreamPr's steps are not translatable: their lists cannot come from a git repository.
 * One has published revisions but no placeholder (Porch's registered branch always exists, holding the
 * latest), the other a placeholder of a package never published (the placeholder is the branch's copy
 * of a published revision). They are listed in docs/variants.md.
 */

const PV = "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata: {name: my-pv}";

/** The problems of a variant with this upstream (YAML flow mapping, or none), about the upstream. */
function upstreamProblems(upstream: string | undefined): string[] {
  const text = `${PV}\nspec:\n${upstream === undefined ? "" : `  upstream: ${upstream}\n`}  downstream: {repo: deployments, package: bar}\n`;
  return parseVariantFile("pv.yaml", text)
    .problems.map((p) => p.message)
    .filter((m) => m.includes("upstream"));
}
function upstreamOf(upstream: string): GitUpstream {
  const { variants } = parseVariantFile(
    "pv.yaml",
    `${PV}\nspec:\n  upstream: ${upstream}\n  downstream: {repo: deployments, package: bar}\n`,
  );
  return (variants[0] as { variant: PackageVariant }).variant.spec.upstream as GitUpstream;
}

describe("Porch TestIsValidUpstram (packagevariant_controller_test.go)", () => {
  // The problems are Porch's. Porch's check then sets the upstream's revision to -1, its placeholder:
  // its controller follows the workspace named, else the branch (the latest), whatever revision the file
  // says. The last column is what porchlight follows: the latest where Porch's test asserts -1 of an
  // upstream naming neither; a revision named is kept (pinned), and with a workspace too it is checked
  // against the upstream at fan-out (they must agree) — the one step marked as a deliberate deviation.
  it.each<[string, string | undefined, string[], string | undefined]>([
    ["nil upstream", undefined, ["missing required field spec.upstream"], undefined],
    [
      "empty upstream",
      "{}",
      ["missing required field spec.upstream.repo", "missing required field spec.upstream.package"],
      undefined,
    ],
    ["repo only", "{repo: my-repo}", ["missing required field spec.upstream.package"], undefined],
    ["repo and package: revision -1, the latest", "{repo: my-repo, package: my-package}", [], "latest"],
    [
      "workspace and revision 1 (deliberate deviation: Porch drops the revision, porchlight checks it)",
      "{repo: my-repo, package: my-package, workspaceName: my-workspace, revision: 1}",
      [],
      "workspace my-workspace, revision v1",
    ],
    [
      "workspace and revision -1",
      "{repo: my-repo, package: my-package, workspaceName: my-workspace, revision: -1}",
      [],
      "workspace my-workspace",
    ],
    ["revision 1, no workspace", "{repo: my-repo, package: my-package, revision: 1}", [], "revision v1"],
    ["revision -1, no workspace", "{repo: my-repo, package: my-package, revision: -1}", [], "latest"],
  ])("%s", (_step, upstream, problems, follows) => {
    expect(upstreamProblems(upstream)).toEqual(problems);
    if (follows === undefined) return;
    const u = upstreamOf(upstream as string);
    const said = [
      u.workspaceName !== undefined ? `workspace ${u.workspaceName}` : "",
      u.revision !== undefined ? `revision ${u.revision}` : "",
    ]
      .filter(Boolean)
      .join(", ");
    expect(said || "latest").toBe(follows);
  });
});

describe("Porch TestGetUpstreamPr (packagevariant_controller_test.go)", () => {
  const SHA = (n: number) => String(n).repeat(40);
  const rev = (n: number, workspace: string): PublishedRevision => ({
    revision: `v${n}`,
    commit: SHA(n),
    workspace,
  });
  /** Porch's list, step by step, as the upstreams' published revisions. */
  const index = (revisions: PublishedRevision[], extra: UpstreamIndex = {}): UpstreamIndex => ({
    ...extra,
    ...(revisions.length ? { "my-repo": { "my-package": { revisions, branch: "main" } } } : {}),
  });
  const find = (upstream: string, idx: UpstreamIndex) => {
    const u = upstreamOf(upstream);
    const r = resolveUpstream(u, idx[u.repo]?.[u.package]);
    return r.ok ? r.target.revision : `error: ${r.reason}`;
  };
  const ws = "{repo: my-repo, package: my-package, workspaceName: my-workspace}";
  const another = { "another-repo": { "another-package": { revisions: [rev(1, "another-workspace")] } } };

  it("empty list: could not find upstream package revision", () => {
    expect(find(ws, {})).toMatch(/^error: /);
  });
  it("an empty PackageRevision: could not find", () => {
    expect(find(ws, index([]))).toMatch(/^error: /);
  });
  it("another repository's package: could not find", () => {
    expect(find(ws, index([], another))).toMatch(/^error: /);
  });
  it("the package, another workspace: could not find", () => {
    expect(find(ws, index([rev(1, "another-workspace")], another))).toMatch(
      /^error: no published revision of my-package was made in workspace my-workspace/,
    );
  });
  // Porch's fixture numbers both workspaces' revisions 1; one revision number is one tag here: v2.
  const both = [rev(1, "another-workspace"), rev(2, "my-workspace")];
  it("the package, the workspace: found", () => {
    expect(find(ws, index(both, another))).toBe("v2");
  });
  it("no workspace, the placeholder main listed: found (the latest)", () => {
    expect(find("{repo: my-repo, package: my-package}", index(both, another))).toBe("v2");
  });
  it("revision -1: found (the placeholder, the latest)", () => {
    expect(find("{repo: my-repo, package: my-package, revision: -1}", index(both, another))).toBe("v2");
  });
  it("my-package2 with workspaces v3.2.1, maim, maio, none published, no main: could not find", () => {
    expect(find("{repo: my-repo2, package: my-package2, revision: -1}", index(both, another))).toMatch(
      /^error: /,
    );
  });
});

describe("revision -1, Porch's placeholder, on a set", () => {
  // Porch's set validation asks for a revision other than 0 or a workspace: its placeholder -1 is one,
  // and the variants it generates follow the branch, the latest published revision.
  it("is a revision named, and each generated variant follows the latest", () => {
    const parsed = parseVariantFile(
      "pvs.yaml",
      "apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata: {name: my-pvs}\nspec:\n  upstream: {repo: my-repo, package: my-package, revision: -1}\n  targets:\n  - repositories: [{name: r1}]\n",
    );
    expect(parsed.problems).toEqual([]);
    const [set] = parsed.sets;
    if (!set) throw new Error("no set");
    const { variants, problems } = expandPackageVariantSet(set, [{ name: "r1" }]);
    expect(problems).toEqual([]);
    const upstream = variants[0]?.variant.spec.upstream as GitUpstream;
    const state = { revisions: [1, 2].map((n) => ({ revision: `v${n}`, commit: String(n).repeat(40) })) };
    expect(resolveUpstream(upstream, state)).toMatchObject({ ok: true, target: { revision: "v2" } });
  });
});

/**
 * packagevariantset_controller_test.go TestGetUpstreamPr: the set's upstream looked up step by step in a
 * list of one PackageRevision of my-repo/my-package, workspace my-workspace, revision -1 — here the
 * branch (Porch's placeholder), holding the one published revision, v1, made in workspace my-workspace.
 * Porch's set controller takes a revision matching either the revision or the workspace named; here a
 * set's upstream resolves as a variant's: the workspace, when named, decides — the last step differs on
 * purpose (a workspace that made no revision is an error, whatever revision is named with it).
 */
describe("Porch TestGetUpstreamPr (packagevariantset_controller_test.go)", () => {
  const state = {
    revisions: [{ revision: "v1", commit: "1".repeat(40), workspace: "my-workspace" }],
    branch: "main",
  };
  const find = (upstream: string) => {
    const parsed = parseVariantFile(
      "pvs.yaml",
      `apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata: {name: my-pvs}\nspec:\n  upstream: ${upstream}\n  targets:\n  - repositories: [{name: r1}]\n`,
    );
    const u = parsed.sets[0]?.set.spec.upstream as GitUpstream | undefined;
    if (!u) return `error: ${parsed.problems.map((p) => p.message).join("; ")}`;
    const r = resolveUpstream(u, u.repo === "my-repo" && u.package === "my-package" ? state : undefined);
    return r.ok ? r.target.revision : `error: ${r.reason}`;
  };
  it.each<[string, string, string | RegExp]>([
    ["empty upstream", "{}", /^error: /],
    ["repo any-repo", "{repo: any-repo}", /^error: /],
    ["repo my-repo", "{repo: my-repo}", /^error: /],
    ["package any-package", "{repo: my-repo, package: any-package}", /^error: /],
    ["package my-package, no revision nor workspace", "{repo: my-repo, package: my-package}", /^error: /],
    [
      "workspace any-workspace",
      "{repo: my-repo, package: my-package, workspaceName: any-workspace}",
      /^error: /,
    ],
    ["workspace my-workspace", "{repo: my-repo, package: my-package, workspaceName: my-workspace}", "v1"],
    [
      "workspace any-workspace, revision 0",
      "{repo: my-repo, package: my-package, workspaceName: any-workspace, revision: 0}",
      /^error: /,
    ],
  ])("%s", (_step, upstream, expected) => {
    if (typeof expected === "string") expect(find(upstream)).toBe(expected);
    else expect(find(upstream)).toMatch(expected);
  });
  it("workspace any-workspace, revision -1 (deliberate deviation: Porch takes the revision matching either)", () => {
    expect(find("{repo: my-repo, package: my-package, workspaceName: any-workspace, revision: -1}")).toMatch(
      /^error: no published revision of my-package was made in workspace any-workspace/,
    );
  });
});
