import { describe, expect, it } from "vitest";
import { decideReject, type OpenProposal, planDeletionProposal } from "../../src/lifecycle/index.js";

const pr = (overlay: Partial<OpenProposal> = {}): OpenProposal => ({
  number: 7,
  state: "open",
  merged: false,
  headRef: "drafts/app/fix-1",
  labels: [],
  ...overlay,
});
const writer = { login: "ana", permission: "write" as const };

describe("/reject: a proposal returns to draft", () => {
  it("closes the pull request and keeps the draft branch", () => {
    expect(decideReject(pr(), writer)).toEqual({
      kind: "close",
      pullRequest: 7,
      keepBranch: "drafts/app/fix-1",
    });
  });

  it.each(["drafts/app/delete-v1", "deletionProposed/app/first"])(
    "removes the branch of a rejected deletion proposal (%s)",
    (headRef) => {
      expect(decideReject(pr({ headRef, labels: ["porchlight/deletion"] }), writer)).toEqual({
        kind: "close-deletion",
        pullRequest: 7,
        deleteBranch: headRef,
      });
    },
  );

  it.each([
    {
      name: "someone with read permission",
      overlay: {},
      actor: { login: "bo", permission: "read" as const },
      reason: "needs write permission",
    },
    {
      name: "a published proposal",
      overlay: { state: "closed" as const, merged: true },
      actor: writer,
      reason: "already published",
    },
    {
      name: "a closed pull request",
      overlay: { state: "closed" as const },
      actor: writer,
      reason: "already closed",
    },
    {
      name: "a pull request that is not a draft",
      overlay: { headRef: "feature/x" },
      actor: writer,
      reason: "is not a draft",
    },
  ])("refuses $name", ({ overlay, actor, reason }) => {
    const decision = decideReject(pr(overlay), actor);
    expect(decision.kind).toBe("refuse");
    if (decision.kind === "refuse") expect(decision.reason).toContain(reason);
  });
});

describe("/propose-delete", () => {
  const refs = ["refs/tags/app/v1", "refs/tags/app/v2", "refs/heads/drafts/app/delete-v2"].map((ref) => ({
    ref,
    sha: "x",
  }));

  it("plans a labelled proposal for the latest revision, on a free draft branch", () => {
    expect(planDeletionProposal({ package: "app", refs, pullRequests: [] })).toEqual({
      kind: "propose-deletion",
      package: "app",
      revision: 2,
      branch: "drafts/app/delete-v2-2",
      label: "porchlight/deletion",
      title: "Delete package app",
    });
  });

  it("refuses a package never published", () => {
    expect(planDeletionProposal({ package: "web", refs, pullRequests: [] })).toMatchObject({
      kind: "refuse",
      reason: "web has no published revision to delete; close its draft instead.",
    });
  });

  it("refuses a second deletion proposal", () => {
    const open = {
      number: 9,
      headRef: "drafts/app/delete-v2",
      baseRef: "main",
      headSha: "x",
      labels: ["porchlight/deletion"],
      draft: false,
    };
    expect(planDeletionProposal({ package: "app", refs, pullRequests: [open] })).toMatchObject({
      kind: "refuse",
      reason: "Deleting app is already proposed in #9.",
    });
  });
});
