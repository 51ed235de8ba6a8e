import { describe, expect, it } from "vitest";
import { newRevisionCommits } from "../../src/porch/revision-index.js";

const sha = (n: number) => n.toString(16).padStart(40, "0");

/** Porch's layout: one repository, a registration a directory (iterative-control-1, -2, the test's). */
const refs = [
  { ref: "refs/heads/main", sha: sha(1) },
  { ref: "refs/heads/drafts/iterative-control-1/control-package/v3", sha: sha(2) },
  { ref: "refs/heads/drafts/iterative-control-2/control-package/v3", sha: sha(3) },
  { ref: "refs/heads/drafts/iterativedir/test-package/v1", sha: sha(4) },
  { ref: "refs/tags/iterative-control-1/control-package/v1", sha: sha(5) },
  { ref: "refs/tags/iterative-control-1/control-package/v2", sha: sha(6) },
  { ref: "refs/tags/iterative-control-2/control-package/v1", sha: sha(7) },
  { ref: "refs/tags/iterative-control-10/control-package/v1", sha: sha(8) },
  { ref: "refs/tags/release-2024", sha: sha(9) },
  { ref: "refs/heads/feature", sha: sha(10) },
];

describe("the commits a registration's read fetches ahead (the index's prefetch)", () => {
  it("are its own directory's revisions not read before, never another registration's in the same repository", () => {
    expect(newRevisionCommits(refs, new Set(), "iterative-control-1")).toEqual([sha(2), sha(5), sha(6)]);
    expect(newRevisionCommits(refs, new Set([sha(5)]), "iterative-control-1")).toEqual([sha(2), sha(6)]);
    expect(newRevisionCommits(refs, new Set(), "iterativedir")).toEqual([sha(4)]);
  });

  it("are every package's for a registration of the whole repository, and no ref that names no revision", () => {
    expect(newRevisionCommits(refs, new Set([sha(3)]), "")).toEqual([
      sha(2),
      sha(4),
      sha(5),
      sha(6),
      sha(7),
      sha(8),
    ]);
  });
});
