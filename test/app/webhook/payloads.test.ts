import { describe, expect, it } from "vitest";
import { porchlightApp } from "../../../src/app/probot-app.js";
import {
  actionPayloadProblem,
  handledInstallation,
  payloadProblem,
} from "../../../src/app/webhook/payloads.js";

describe("the events of the table (src/app/events.ts)", () => {
  it("are the webhooks the app listens to, each once, and each has its payload checked", () => {
    const names: string[] = [];
    const app = { on: (n: string | string[]) => names.push(...[n].flat()), onAny: () => {} };
    porchlightApp({} as never)(app as never, {} as never);
    expect(names).toEqual([
      "push",
      "pull_request.opened",
      "pull_request.synchronize",
      "pull_request.reopened",
      "pull_request.ready_for_review",
      "pull_request.closed",
      "issue_comment.created",
      "issue_comment.edited",
      "issue_comment.deleted",
      "pull_request_review.submitted",
      "check_run.completed",
      "check_suite.completed",
      "status",
    ]);
    for (const event of new Set(names.map((n) => n.split(".")[0] ?? n)))
      expect(payloadProblem(event, {})?.field, event).toBeDefined();
  });
});

describe("the payload checks of the webhook edge", () => {
  it("let an event the app only counts through with any object, and ask for no installation", () => {
    expect(payloadProblem("ping", { zen: "hi" })).toBeUndefined();
    expect(handledInstallation("ping", { zen: "hi" })).toBeUndefined();
  });

  it("name the innermost missing field", () => {
    const repository = { name: "b", owner: { login: "a" }, clone_url: "u", default_branch: "main" };
    const pr = { pull_request: { number: 1, head: { ref: "x" } }, repository, installation: { id: 1 } };
    expect(payloadProblem("pull_request", pr)).toEqual({
      field: "pull_request.head.sha",
      message: "Invalid input: expected string, received undefined",
    });
  });
});

describe("the payload checks of an Actions run's event", () => {
  const repository = { name: "b", owner: { login: "a" }, clone_url: "u", default_branch: "main" };
  const pr = { pull_request: { number: 1, head: { ref: "x", sha: "abc" } }, repository };

  it("take a payload without an installation, which the webhook edge refuses", () => {
    expect(payloadProblem("pull_request", pr)?.field).toBe("installation");
    expect(actionPayloadProblem("pull_request", pr)).toBeUndefined();
  });

  it("name the field the handlers read that is missing", () => {
    const payload = { ...pr, repository: { ...repository, default_branch: undefined } };
    expect(actionPayloadProblem("pull_request", payload)).toEqual({
      field: "repository.default_branch",
      message: "Invalid input: expected string, received undefined",
    });
  });

  it("refuse an event the handlers do not take", () => {
    expect(actionPayloadProblem("release", {})).toEqual({
      field: "(event)",
      message: "porchlight handles no release event",
    });
    expect(actionPayloadProblem("toString", {})?.field).toBe("(event)");
  });
});

describe("the installation of a checked delivery", () => {
  it("is the one its payload names", () => {
    const repository = { name: "b", owner: { login: "a" }, clone_url: "u", default_branch: "main" };
    const pr = {
      pull_request: { number: 1, head: { ref: "x", sha: "abc" } },
      repository,
      installation: { id: 42 },
    };
    expect(handledInstallation("pull_request", pr)).toBe(42);
    expect(handledInstallation("toString", pr)).toBeUndefined();
  });
});
