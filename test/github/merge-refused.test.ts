import { describe, expect, it } from "vitest";
import { asMergeRefused, type GitHubError, MergeRefused, toGitHubError } from "../../src/github/errors.js";

/** GitHub's answer to `PUT /pulls/{n}/merge` with status 405 and its own message, as Octokit throws it. */
const refusal = (message: string) => ({
  status: 405,
  message,
  response: { headers: {}, data: { message, documentation_url: "https://docs.github.com/rest" } },
});

describe("a merge GitHub refuses (405) says why, in GitHub's words", () => {
  it.each([
    ["Pull Request is not mergeable", "not-mergeable"],
    ["Base branch was modified. Review and try the merge again.", "base-moved"],
    ["Merge commits are not allowed on this repository.", "method-not-allowed"],
    ["Squash merges are not allowed on this repository.", "method-not-allowed"],
    ["Rebase merges are not allowed on this repository.", "method-not-allowed"],
    ["Pull Request is still a draft", "draft"],
    ["This branch can't be rebased", "not-rebaseable"],
    ["At least 1 approving review is required by reviewers with write access.", "protected"],
    ['Required status check "ci/build" is expected.', "protected"],
    ["Repository rule violations found\n\nChanges must be made through a pull request.", "protected"],
  ])("%s → %s", (message, kind) => {
    const e = asMergeRefused(toGitHubError(refusal(message), "merging pull request #7"));
    expect(e).toBeInstanceOf(MergeRefused);
    expect((e as MergeRefused).refusal).toEqual({ kind, github: message });
    expect((e as MergeRefused).message).toBe(`merging pull request #7: ${message} (HTTP 405)`);
  });

  it("leaves other failures of a merge as they are", () => {
    const moved = toGitHubError(
      { status: 409, message: "Head branch was modified", response: { headers: {}, data: {} } },
      "merging pull request #7",
    );
    expect(asMergeRefused(moved)).toBe(moved);
    expect((moved as GitHubError).kind).toBe("conflict");
  });
});
