import { describe, expect, it } from "vitest";
import { ActionEnvError, readActionEnv } from "../../src/action/env.js";

const FULL = {
  GITHUB_EVENT_NAME: "push",
  GITHUB_EVENT_PATH: "/home/runner/work/_temp/_github_workflow/event.json",
  GITHUB_TOKEN: "ghs_token",
  GITHUB_API_URL: "https://api.github.com",
  GITHUB_REPOSITORY: "acme/blueprints",
  GITHUB_RUN_ID: "4242",
  GITHUB_RUN_ATTEMPT: "2",
};

const problemsOf = (env: NodeJS.ProcessEnv, needsEvent = true): string[] => {
  try {
    readActionEnv(env, { needsEvent });
    return [];
  } catch (e) {
    expect(e).toBeInstanceOf(ActionEnvError);
    return (e as ActionEnvError).problems;
  }
};

describe("reading the GitHub Actions environment", () => {
  it("reads what GitHub sets for a step", () => {
    expect(readActionEnv(FULL)).toEqual({
      eventName: "push",
      eventPath: FULL.GITHUB_EVENT_PATH,
      token: "ghs_token",
      apiUrl: "https://api.github.com",
      repository: { owner: "acme", repo: "blueprints" },
      runId: "4242.2",
    });
  });

  it("prefers the action's token input over GITHUB_TOKEN", () => {
    expect(readActionEnv({ ...FULL, INPUT_TOKEN: "ghp_other" }).token).toBe("ghp_other");
  });

  it("defaults to GitHub's API and drops a trailing slash from another", () => {
    const { GITHUB_API_URL: _, ...rest } = FULL;
    expect(readActionEnv(rest).apiUrl).toBe("https://api.github.com");
    expect(readActionEnv({ ...FULL, GITHUB_API_URL: "https://ghe.example/api/v3/" }).apiUrl).toBe(
      "https://ghe.example/api/v3",
    );
  });

  it.each([
    ["GITHUB_EVENT_NAME", /GITHUB_EVENT_NAME is not set/],
    ["GITHUB_EVENT_PATH", /GITHUB_EVENT_PATH is not set/],
    ["GITHUB_TOKEN", /GITHUB_TOKEN is not set: pass it to the step/],
    ["GITHUB_REPOSITORY", /GITHUB_REPOSITORY is not set/],
  ])("names a missing %s", (name, message) => {
    expect(problemsOf({ ...FULL, [name]: "" })).toEqual([expect.stringMatching(message)]);
  });

  it("names every problem at once", () => {
    expect(problemsOf({})).toHaveLength(4);
    expect(() => readActionEnv({})).toThrow(/docs\/actions.md/);
  });

  it("does not need an event to reconcile", () => {
    expect(problemsOf({ GITHUB_TOKEN: "t", GITHUB_REPOSITORY: "acme/x" }, false)).toEqual([]);
  });

  it.each([["acme"], ["acme/blueprints/extra"], ["/blueprints"]])("refuses GITHUB_REPOSITORY=%s", (full) => {
    expect(problemsOf({ ...FULL, GITHUB_REPOSITORY: full })).toEqual([
      `GITHUB_REPOSITORY must be owner/name, got "${full}"`,
    ]);
  });

  it("refuses an API URL that is not http(s)", () => {
    expect(problemsOf({ ...FULL, GITHUB_API_URL: "api.github.com" })).toEqual([
      'GITHUB_API_URL must be an http(s) URL, got "api.github.com"',
    ]);
  });
});
