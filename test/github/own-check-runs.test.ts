import { describe, expect, it } from "vitest";
import { OwnCheckRuns } from "../../src/github/own-check-runs.js";
import type { CheckRunState } from "../../src/github/port.js";

const repo = { owner: "acme", repo: "blueprints" };
const sha = "a".repeat(40);
const run = (over: Partial<CheckRunState>): CheckRunState => ({
  id: 1,
  name: "porchlight/render",
  headSha: sha,
  status: "completed",
  conclusion: "success",
  externalId: "finished",
  ...over,
});

describe("the app's own check runs, as this process listed and wrote them", () => {
  it("a commit never listed here is not answered, whatever was written to it", () => {
    const own = new OwnCheckRuns();
    own.wrote(repo, sha, {
      id: 7,
      name: "porchlight/guardrails",
      status: "completed",
      conclusion: "success",
    });
    expect(own.runs(repo, sha, ["porchlight/guardrails"])).toBeUndefined();
  });

  it("a listed commit answers the runs named, with the runs written since", () => {
    const own = new OwnCheckRuns();
    own.listed(repo, sha, [run({}), run({ id: 2, name: "ci/test", conclusion: "failure" })]);
    own.wrote(repo, sha, { id: 3, name: "porchlight/guardrails", status: "in_progress" });
    own.wrote(repo, sha, {
      id: 3,
      name: "porchlight/guardrails",
      status: "completed",
      conclusion: "failure",
    });
    expect(own.runs(repo, sha, ["porchlight/render", "porchlight/guardrails"])).toEqual([
      run({ id: 3, name: "porchlight/guardrails", conclusion: "failure", externalId: null }),
      run({}),
    ]);
    // another app's run is never answered from here
    expect(own.runs(repo, sha, ["porchlight/render"])?.map((r) => r.name)).toEqual(["porchlight/render"]);
  });

  it("an update keeps the external id it does not send; a run started again has no conclusion", () => {
    const own = new OwnCheckRuns();
    own.listed(repo, sha, [run({})]);
    own.wrote(repo, sha, { id: 1, name: "porchlight/render", status: "in_progress" });
    expect(own.runs(repo, sha, ["porchlight/render"])).toEqual([
      run({ status: "in_progress", conclusion: null }),
    ]);
  });

  it("a write that failed part way lets the commit go: the next question asks GitHub", () => {
    const own = new OwnCheckRuns();
    own.listed(repo, sha, [run({})]);
    own.forget(repo, sha);
    expect(own.runs(repo, sha, ["porchlight/render"])).toBeUndefined();
  });

  it("repositories are told apart, their names' case not", () => {
    const own = new OwnCheckRuns();
    own.listed({ owner: "Acme", repo: "Blueprints" }, sha, [run({})]);
    expect(own.runs(repo, sha, ["porchlight/render"])).toHaveLength(1);
    expect(own.runs({ owner: "acme", repo: "other" }, sha, ["porchlight/render"])).toBeUndefined();
  });

  it("tells which run a new report replaces: the newest of the name, with the annotations it holds", () => {
    const own = new OwnCheckRuns();
    expect(own.latest(repo, sha, "porchlight/render")).toBe("unknown");
    own.listed(repo, sha, [{ ...run({}), annotations: 3 }]);
    expect(own.latest(repo, sha, "porchlight/render")).toEqual({ id: 1, annotations: 3 });
    expect(own.latest(repo, sha, "porchlight/guardrails")).toBeUndefined();
    own.wrote(repo, sha, { id: 4, name: "porchlight/guardrails", status: "completed", annotations: 2 });
    own.wrote(repo, sha, { id: 4, name: "porchlight/guardrails", status: "completed" });
    expect(own.latest(repo, sha, "porchlight/guardrails")).toEqual({ id: 4, annotations: 2 });
  });
});
