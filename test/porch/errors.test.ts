import { describe, expect, it } from "vitest";
import { describeFailure, FAILURE_EXIT_CODE } from "../../src/cli/rpkg/errors.js";
import { GitHubError } from "../../src/github/errors.js";
import { GitCommandError } from "../../src/github/git-process.js";
import { PorchError, type PorchErrorKind, porchErrorOf, RevisionNotFound } from "../../src/porch/errors.js";
import { apiErrorOfPorch } from "../../src/porchapi/porch-errors.js";
import { ApiError } from "../../src/porchapi/status.js";

/** Every kind, with the Status it is answered as by the API (undefined: passed on as the server's own 500). */
const STATUS: Record<PorchErrorKind, [string, number] | undefined> = {
  "not-found": ["NotFound", 404],
  "already-exists": ["AlreadyExists", 409],
  conflict: ["Conflict", 409],
  forbidden: ["Forbidden", 403],
  unauthorized: ["Unauthorized", 401],
  invalid: ["Invalid", 422],
  "bad-request": ["BadRequest", 400],
  "too-large": ["RequestEntityTooLarge", 413],
  "rate-limited": ["TooManyRequests", 429],
  unavailable: ["InternalError", 500],
  internal: undefined,
};

describe("each door maps every kind of the engine's failures", () => {
  for (const [kind, status] of Object.entries(STATUS) as [PorchErrorKind, [string, number] | undefined][]) {
    it(`${kind}: the API's Status, rpkg's text and exit code`, () => {
      const e = new PorchError(kind, `the ${kind} text`, "the hint");
      const api = apiErrorOfPorch(e);
      if (status === undefined) expect(api).toBe(e);
      else {
        expect(api).toBeInstanceOf(ApiError);
        expect([(api as ApiError).reason, (api as ApiError).code]).toEqual(status);
        expect((api as ApiError).message).toBe(
          kind === "not-found" ? `the ${kind} text` : `the ${kind} text (the hint)`,
        );
      }
      // porchctl's text is the engine's, byte for byte; the hint is printed apart (with -v)
      expect(describeFailure(e, "acme/blueprints")).toBe(`the ${kind} text`);
      expect(FAILURE_EXIT_CODE).toBe(1);
    });
  }

  it("a not-found is Kubernetes' text alone, and an invalid object names its fields", () => {
    const missing = apiErrorOfPorch(new RevisionNotFound("blueprints.x.v1", "list them")) as ApiError;
    expect([missing.reason, missing.message]).toEqual([
      "NotFound",
      'packagerevisions.porch.kpt.dev "blueprints.x.v1" not found',
    ]);
    const cause = { field: "metadata.annotations", reason: "FieldValueTooLong", message: "too long" };
    const invalid = apiErrorOfPorch(
      new PorchError("invalid", "too long", undefined, undefined, { causes: [cause] }),
    ) as ApiError;
    expect(invalid.details).toEqual({ causes: [cause] });
  });
});

describe("the one translation of GitHub's and git's failures", () => {
  const github = (kind: GitHubError["kind"], retryAfter?: number) =>
    new GitHubError(kind, "GET /repos/acme/blueprints: Bad (HTTP 4xx)", 400, retryAfter);

  it("GitHub's kinds: the API's reasons, rpkg's advice on what to check", () => {
    const rows = (
      [
        [
          "not-found",
          "NotFound",
          "; check the repository name acme/blueprints, the --api-url, and that the token can see it",
        ],
        [
          "unauthorized",
          "Unauthorized",
          "; the token in GH_TOKEN/GITHUB_TOKEN was refused: check it is valid and not expired",
        ],
        [
          "forbidden",
          "Forbidden",
          "; the token lacks permission on acme/blueprints (it needs contents, pull requests and issues write)",
        ],
        ["validation", "Invalid", ""],
        ["conflict", "Conflict", ""],
        ["merge-refused", "Conflict", ""],
        ["rate-limited", "TooManyRequests", "; GitHub's rate limit: try again in 30 s"],
        ["server", "InternalError", ""],
        ["network", "InternalError", ""],
      ] as const
    ).map(([kind, , advice]) => {
      const e = github(kind, kind === "rate-limited" ? 30 : undefined);
      const api = apiErrorOfPorch(e) as ApiError;
      return [
        kind,
        api.reason,
        api.message === e.message,
        describeFailure(e, "acme/blueprints") === `${e.message}${advice}`,
      ];
    });
    expect(rows).toEqual(rows.map(([kind, reason]) => [kind, reason, true, true]));
    const limited = apiErrorOfPorch(github("rate-limited", 30)) as ApiError;
    expect(limited.details?.retryAfterSeconds).toBe(30);
  });

  it("a push the server refused for permission is forbidden; another git failure is internal", () => {
    const refused = new GitCommandError(
      ["push", "origin"],
      128,
      "remote: Permission to acme/blueprints.git denied to carol.\nfatal: unable to access: The requested URL returned error: 403\n",
      "forbidden",
    );
    expect((porchErrorOf(refused) as PorchError).kind).toBe("forbidden");
    expect((apiErrorOfPorch(refused) as ApiError).message).toBe(
      "GitHub refused the caller's token for this git operation",
    );
    expect(describeFailure(refused, "acme/blueprints")).toMatch(
      /^the token may read acme\/blueprints but not write to it/,
    );
    // the kind git's door gave decides, never the words: a 403 in a failure of another kind is not one
    const quoted = new GitCommandError(["show"], 128, "fatal: path 'error: 403' does not exist\n", "missing");
    expect((porchErrorOf(quoted) as PorchError).kind).toBe("internal");
    const broken = new GitCommandError(["fetch"], 128, "fatal: bad object\n", "missing");
    expect((porchErrorOf(broken) as PorchError).kind).toBe("internal");
    expect(apiErrorOfPorch(broken)).toBeInstanceOf(PorchError);
    expect(describeFailure(broken, "acme/blueprints")).toBe(
      `git failed talking to acme/blueprints: ${broken.message}`,
    );
  });
});
