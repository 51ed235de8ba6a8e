import { describe, expect, it } from "vitest";
import { planRollback, type RefInfo, transitionProblem } from "../../src/lifecycle/index.js";

const refs = (...names: string[]): RefInfo[] => names.map((ref, i) => ({ ref, sha: `sha${i}` }));

describe("planRollback: a new draft with an older revision's content", () => {
  it("starts a draft rollback-v<N> from the tag", () => {
    expect(
      planRollback({ package: "app", toRevision: 2, refs: refs("refs/tags/app/v2", "refs/tags/app/v3") }),
    ).toEqual({
      ok: true,
      value: {
        package: "app",
        toRevision: 2,
        fromTag: "app/v2",
        fromSha: "sha0",
        workspace: "rollback-v2",
        branch: "drafts/app/rollback-v2",
      },
    });
  });

  it("picks the next free workspace when a rollback draft exists", () => {
    const result = planRollback({
      package: "app",
      toRevision: 1,
      refs: refs(
        "refs/tags/app/v1",
        "refs/heads/drafts/app/rollback-v1",
        "refs/heads/drafts/app/rollback-v1-2",
      ),
    });
    expect(result).toMatchObject({ ok: true, value: { workspace: "rollback-v1-3" } });
  });

  it.each([
    {
      name: "a revision never published",
      input: { toRevision: 4 },
      reason: "app has no published revision v4 (no tag app/v4)",
    },
    {
      name: "a workspace Porch would refuse",
      input: { toRevision: 1, workspace: "Undo" },
      reason: "lowercase letters",
    },
    { name: "a draft that exists", input: { toRevision: 1, workspace: "taken" }, reason: "already exists" },
    { name: "revision 0", input: { toRevision: 0 }, reason: "v0 is not a revision" },
  ])("refuses $name", ({ input, reason }) => {
    const result = planRollback({
      package: "app",
      refs: refs("refs/tags/app/v1", "refs/heads/drafts/app/taken"),
      ...input,
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });
});

describe("lifecycle moves, as Porch allows them", () => {
  it.each([
    ["Draft", "Proposed", undefined],
    ["Proposed", "Draft", undefined],
    ["Proposed", "Published", undefined],
    ["Published", "DeletionProposed", undefined],
    ["DeletionProposed", "Published", undefined],
    ["Draft", "Published", "a Draft revision can only become Proposed, not Published"],
    ["Published", "Draft", "a Published revision can only become DeletionProposed, not Draft"],
    ["Published", "Published", "the revision is already Published"],
  ] as const)("%s → %s", (from, to, problem) => {
    expect(transitionProblem(from, to)).toBe(problem);
  });
});
