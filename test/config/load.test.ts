import { describe, expect, it } from "vitest";
import { loadRepoConfig, type ReadConfigFile } from "../../src/config/load.js";
import { formatProblem } from "../../src/config/problem.js";
import { GitHubError } from "../../src/github/errors.js";

const REPO = { owner: "acme", repo: "blueprints" };

/** A reader over `owner/repo:path` → text; a value that is an Error is thrown, as a failed request. */
function reader(files: Record<string, string | Error>): ReadConfigFile & { asked: string[] } {
  const asked: string[] = [];
  const read = async (f: { owner: string; repo: string; path: string }) => {
    const key = `${f.owner}/${f.repo}:${f.path}`;
    asked.push(key);
    const v = files[key];
    if (v instanceof Error) throw v;
    return v;
  };
  return Object.assign(read, { asked });
}

const OWN = "acme/blueprints:.github/porchlight.yml";
const ORG = "acme/.github:.github/porchlight.yml";
const problems = async (files: Record<string, string | Error>) => {
  const loaded = await loadRepoConfig(reader(files), REPO);
  if (loaded.ok) throw new Error(`expected problems, got ${JSON.stringify(loaded.config)}`);
  return loaded.problems.map(formatProblem);
};

describe("loading a repository's configuration", () => {
  it("takes the repository's own file over the organisation's defaults and what they extend", async () => {
    const read = reader({
      [OWN]: "requiredApprovals: 2\n_extends: .github\n",
      [ORG]: "mergeMethod: squash\nrequiredApprovals: 5\n_extends: base-config:porchlight/base.yml\n",
      "acme/base-config:porchlight/base.yml": "packageRoot: apps\nmergeMethod: rebase\n",
    });
    const loaded = await loadRepoConfig(read, REPO);
    expect(loaded).toMatchObject({
      ok: true,
      config: { requiredApprovals: 2, mergeMethod: "squash", packageRoot: "apps" },
    });
  });

  it("falls back to the organisation's file, and to the built-in defaults when neither exists", async () => {
    expect(await loadRepoConfig(reader({ [ORG]: "mergeMethod: rebase\n" }), REPO)).toMatchObject({
      ok: true,
      config: { mergeMethod: "rebase" },
    });
    const read = reader({});
    expect(await loadRepoConfig(read, REPO)).toMatchObject({ ok: true, config: { mergeMethod: "merge" } });
    expect(read.asked).toEqual([OWN, ORG]);
  });

  it.each([
    [
      "a server error",
      new GitHubError("server", "reading .github/porchlight.yml: Bad Gateway (HTTP 502)", 502),
    ],
    ["a rate limit", new GitHubError("rate-limited", "API rate limit exceeded (HTTP 403)", 403, 60)],
    ["a refusal", new GitHubError("forbidden", "Resource not accessible by integration (HTTP 403)", 403)],
  ])(
    "stops on %s reading the repository's file, saying why, and never uses the organisation's",
    async (_, error) => {
      const read = reader({ [OWN]: error, [ORG]: "mergeMethod: rebase\n" });
      const loaded = await loadRepoConfig(read, REPO);
      expect(loaded.ok).toBe(false);
      // both asked at once; the organisation's answer is not used
      expect(read.asked).toEqual([OWN, ORG]);
      expect(await problems({ [OWN]: error })).toEqual([
        `.github/porchlight.yml:1:1: cannot be read (${error.message}); porchlight does nothing on this repository until it can, and tries again at the next event or sweep`,
      ]);
    },
  );

  it("asks for the organisation's file beside the repository's own: one round trip, not two", async () => {
    let inFlight = 0;
    let most = 0;
    const read: ReadConfigFile = async (f) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return f.repo === ".github" ? "mergeMethod: rebase\n" : undefined;
    };
    expect(await loadRepoConfig(read, REPO)).toMatchObject({ ok: true, config: { mergeMethod: "rebase" } });
    expect(most).toBe(2);
    // the organisation's own repository has no organisation file above it
    const asked = reader({});
    await loadRepoConfig(asked, { owner: "acme", repo: ".github" });
    expect(asked.asked).toEqual(["acme/.github:.github/porchlight.yml"]);
  });

  it("stops when the organisation's file cannot be read, naming that file", async () => {
    expect(
      await problems({ [ORG]: new GitHubError("server", "Service Unavailable (HTTP 503)", 503) }),
    ).toEqual([
      "acme/.github:.github/porchlight.yml:1:1: cannot be read (Service Unavailable (HTTP 503)); porchlight does nothing on this repository until it can, and tries again at the next event or sweep",
    ]);
  });

  it("reports a broken own file at its line, and never promotes the file it extends in its place", async () => {
    expect(
      await problems({
        [OWN]: "_extends: .github\nmergeMethod: fast-forward\n",
        [ORG]: "mergeMethod: squash\n",
      }),
    ).toEqual([
      '.github/porchlight.yml:2:14: mergeMethod: must be one of merge, squash, rebase, not "fast-forward"',
    ]);
  });

  it("reports a broken extended file under its own name", async () => {
    expect(await problems({ [OWN]: "_extends: .github\n", [ORG]: "requiredApprovals: many\n" })).toEqual([
      expect.stringMatching(/^acme\/\.github:\.github\/porchlight\.yml:1:20: requiredApprovals: /),
    ]);
  });

  it("refuses an _extends naming a file that is not there, a loop, or a value that names nothing", async () => {
    expect(await problems({ [OWN]: "_extends: shared\n" })).toEqual([
      ".github/porchlight.yml:1:1: _extends: shared: acme/shared:.github/porchlight.yml does not exist (or this app cannot see it); fix the name or remove `_extends`",
    ]);
    expect(await problems({ [OWN]: "_extends: .github\n", [ORG]: "_extends: blueprints\n" })).toEqual([
      "acme/.github:.github/porchlight.yml:1:1: _extends: blueprints names a file already in this chain (a loop)",
    ]);
    expect(await problems({ [OWN]: "_extends: [a, b]\n" })).toEqual([
      ".github/porchlight.yml:1:11: _extends: must name a repository's file: `repo`, `owner/repo` or `owner/repo:path.yml`, not a list",
    ]);
  });
});
