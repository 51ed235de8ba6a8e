import { describe, expect, it } from "vitest";
import { runReport } from "../../src/action/report.js";

const ok = { repo: "acme/blueprints", key: "check:3", ok: true, durationMs: 5 };

describe("what a run reports", () => {
  it("passes with one summary line when every job ran", () => {
    const r = runReport.lines({
      event: "pull_request",
      repository: "acme/blueprints",
      problems: [],
      outcomes: [ok],
      sweep: null,
    });
    expect(r).toEqual({
      failed: false,
      text: "porchlight: pull_request on acme/blueprints: 1 job(s) run (check), 0 failed — ok\n",
    });
  });

  it("fails with an error annotation per failed job, naming the job and masking tokens", () => {
    const failedJob = {
      ...ok,
      key: "render:drafts/apps/web/v2",
      ok: false,
      error: new Error("push to https://x-access-token:ghs_abcdefghijklmnopqrstuvwxyz@github.com refused"),
    };
    const r = runReport.lines({
      event: "push",
      repository: "acme/blueprints",
      problems: [],
      outcomes: [ok, failedJob],
      sweep: null,
    });
    expect(r.failed).toBe(true);
    expect(r.text.split("\n")[0]).toBe(
      "::error title=porchlight render failed::acme/blueprints: the render job (drafts/apps/web/v2) failed: push to https://[REDACTED]@github.com refused",
    );
    expect(r.text).toContain("2 job(s) run (check, render), 1 failed\n");
  });

  it("fails on what a handler threw and on each reconcile step that failed", () => {
    const r = runReport.lines({
      event: "reconcile",
      repository: "acme/blueprints",
      problems: ["HTTP 500"],
      outcomes: [{ ...ok, key: "reconcile:sweep" }],
      sweep: { drafts: 2, proposals: 1, failures: [{ what: "#4", error: "boom" }] },
    });
    expect(r.failed).toBe(true);
    expect(r.text).toBe(
      "::error title=porchlight reconcile::acme/blueprints: HTTP 500\n" +
        "::error title=porchlight reconcile::acme/blueprints: reconciling #4 failed: boom\n" +
        "porchlight: reconcile on acme/blueprints: 1 job(s) run (reconcile), 0 failed; 2 draft(s) and 1 proposal(s) reconciled\n",
    );
  });

  it("gives the run's summary page the headline and each failure", () => {
    const summary = {
      event: "push",
      repository: "acme/blueprints",
      problems: [],
      outcomes: [ok, { ...ok, key: "render:drafts/a/b", ok: false, error: new Error("line one\nline two") }],
      sweep: null,
    };
    expect(runReport.markdown(summary)).toBe(
      "❌ porchlight: push on acme/blueprints: 2 job(s) run (check, render), 1 failed\n\n" +
        "- **porchlight render failed**: acme/blueprints: the render job (drafts/a/b) failed: line one line two\n\n",
    );
    expect(runReport.markdown({ ...summary, outcomes: [ok] })).toBe(
      "✅ porchlight: push on acme/blueprints: 1 job(s) run (check), 0 failed\n\n",
    );
  });
});
