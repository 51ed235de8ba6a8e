import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { decidePublish, type PublishInput } from "../../src/lifecycle/index.js";
import { codeBlock } from "../util/codeblock.js";

const HEAD = "abc1234aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const OLD = "def5678bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

/** A proposal ready to publish; each case changes what it tests with a YAML overlay. */
function proposal(overlay = ""): PublishInput {
  const base: PublishInput = {
    package: "net/dns",
    pullRequest: {
      number: 7,
      author: "carol",
      state: "open",
      merged: false,
      draft: false,
      labels: [],
      headSha: HEAD,
    },
    trigger: { kind: "review", user: "ana", permission: "write", commitId: HEAD },
    reviews: [{ user: "ana", state: "APPROVED", commitId: HEAD, permission: "write" }],
    checkRuns: [
      { id: 1, name: "porchlight/render", headSha: HEAD, status: "completed", conclusion: "success" },
      { id: 2, name: "porchlight/guardrails", headSha: HEAD, status: "completed", conclusion: "success" },
    ],
    requiredApprovals: 1,
    mergeMethod: "merge",
    nextRevision: 4,
  };
  const changes = (parse(overlay.replaceAll("HEAD", HEAD).replaceAll("OLD", OLD)) ??
    {}) as Partial<PublishInput>;
  return {
    ...base,
    ...changes,
    pullRequest: { ...base.pullRequest, ...(changes.pullRequest ?? {}) },
  };
}

describe("decidePublish", () => {
  it("publishes the reviewed head as the next revision", () => {
    expect(decidePublish(proposal())).toEqual({
      kind: "publish",
      mergeSha: HEAD,
      mergeMethod: "merge",
      tag: "net/dns/v4",
      revision: 4,
      approvedBy: ["ana"],
    });
  });

  it.each([
    {
      name: "/approve from a writer counts as their approval",
      overlay: codeBlock`
        trigger: {kind: command, user: bo, permission: maintain}
        reviews: []
      `,
      approvedBy: ["bo"],
    },
    {
      name: "neutral and skipped checks are green, and the newest run of a check counts",
      overlay: codeBlock`
        checkRuns:
          - {id: 1, name: porchlight/render, headSha: HEAD, status: completed, conclusion: failure}
          - {id: 3, name: porchlight/render, headSha: HEAD, status: completed, conclusion: neutral}
          - {id: 2, name: porchlight/guardrails, headSha: HEAD, status: completed, conclusion: skipped}
      `,
      approvedBy: ["ana"],
    },
    {
      name: "an older change request replaced by an approval no longer blocks",
      overlay: codeBlock`
        reviews:
          - {user: ana, state: CHANGES_REQUESTED, commitId: OLD, permission: write}
          - {user: ana, state: COMMENTED, commitId: HEAD, permission: write}
          - {user: ana, state: APPROVED, commitId: HEAD, permission: write}
      `,
      approvedBy: ["ana"],
    },
    {
      name: "no approvals needed when the configuration says 0, even from the author",
      overlay: codeBlock`
        requiredApprovals: 0
        trigger: {kind: command, user: carol, permission: write}
        reviews: []
      `,
      approvedBy: [],
    },
  ])("publishes: $name", ({ overlay, approvedBy }) => {
    expect(decidePublish(proposal(overlay))).toMatchObject({ kind: "publish", approvedBy });
  });

  it("merges a deletion proposal without a tag", () => {
    expect(decidePublish(proposal("pullRequest: {labels: [porchlight/deletion]}"))).toEqual({
      kind: "delete",
      mergeSha: HEAD,
      mergeMethod: "merge",
      approvedBy: ["ana"],
    });
  });

  it.each([
    {
      name: "a newer push after the review",
      overlay: codeBlock`
        trigger: {kind: review, user: ana, permission: write, commitId: OLD}
        reviews: [{user: ana, state: APPROVED, commitId: OLD, permission: write}]
      `,
      reasons: [
        "a newer push (abc1234) arrived after the review of def5678; review again",
        "needs 1 approval of abc1234 from people with write permission other than the author (none yet)",
      ],
    },
    {
      name: "a failing and a running check",
      overlay: codeBlock`
        checkRuns:
          - {id: 1, name: porchlight/render, headSha: HEAD, status: completed, conclusion: failure}
          - {id: 2, name: porchlight/guardrails, headSha: HEAD, status: in_progress, conclusion: null}
      `,
      reasons: ["porchlight/render is not green (failure)", "porchlight/guardrails is still running"],
    },
    {
      name: "checks that ran on an older head only",
      overlay: codeBlock`
        checkRuns:
          - {id: 1, name: porchlight/render, headSha: OLD, status: completed, conclusion: success}
          - {id: 2, name: porchlight/guardrails, headSha: HEAD, status: completed, conclusion: success}
      `,
      reasons: ["porchlight/render has not run on abc1234 yet"],
    },
    {
      name: "a head passed over for a newer one (its neutral checks name another head)",
      overlay: codeBlock`
        checkRuns:
          - {id: 1, name: porchlight/render, headSha: HEAD, status: completed, conclusion: neutral, externalId: "porchlight:superseded"}
          - {id: 2, name: porchlight/guardrails, headSha: HEAD, status: completed, conclusion: success}
      `,
      reasons: ["porchlight/render has not run on abc1234 yet"],
    },
    {
      name: "too few approvals",
      overlay: "requiredApprovals: 2\n",
      reasons: [
        "needs 2 approvals of abc1234 from people with write permission other than the author (1: @ana)",
      ],
    },
    {
      name: "an approval from someone with only triage permission",
      overlay: codeBlock`
        trigger: {kind: command, user: carol, permission: write}
        reviews: [{user: dan, state: APPROVED, commitId: HEAD, permission: triage}]
      `,
      reasons: [
        "needs 1 approval of abc1234 from people with write permission other than the author (none yet)",
      ],
    },
    {
      name: "a change request from a writer",
      overlay: codeBlock`
        reviews:
          - {user: ana, state: APPROVED, commitId: HEAD, permission: write}
          - {user: erin, state: CHANGES_REQUESTED, commitId: HEAD, permission: admin}
      `,
      reasons: ["@erin requested changes; they need to approve, or their review dismissed"],
    },
  ])("refuses $name, with every reason", ({ overlay, reasons }) => {
    expect(decidePublish(proposal(overlay))).toMatchObject({ kind: "refuse", reasons });
  });

  it.each([
    {
      name: "an approver without write permission",
      overlay: "trigger: {kind: command, user: frank, permission: read}\n",
      message:
        "Not published: @frank, publishing needs write permission on this repository; you have read permission.",
    },
    {
      name: "a GitHub draft pull request (the revision is still a Draft)",
      overlay: "pullRequest: {draft: true}\n",
      message:
        "Not published: this pull request is a draft: mark it ready for review to propose the revision first.",
    },
    {
      name: "a closed pull request",
      overlay: "pullRequest: {state: closed}\n",
      message: "Not published: this pull request is closed; reopen it to propose the revision again.",
    },
    {
      name: "a merged pull request",
      overlay: "pullRequest: {state: closed, merged: true}\n",
      message: "Not published: this proposal is already merged; net/dns is published.",
    },
  ])("refuses $name at once", ({ overlay, message }) => {
    expect(decidePublish(proposal(overlay))).toMatchObject({ kind: "refuse", message });
  });

  it("writes several reasons as a list", () => {
    const decision = decidePublish(proposal("requiredApprovals: 2\ncheckRuns: []\n"));
    expect(decision.kind === "refuse" && decision.message).toBe(
      [
        "Not published:",
        "- porchlight/render has not run on abc1234 yet",
        "- porchlight/guardrails has not run on abc1234 yet",
        "- needs 2 approvals of abc1234 from people with write permission other than the author (1: @ana)",
      ].join("\n"),
    );
  });
});
