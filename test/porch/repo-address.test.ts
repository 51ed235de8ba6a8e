import { describe, expect, it } from "vitest";
import { requestTimeoutMs } from "../../src/cli/request-timeout.js";
import { parseGitAddress } from "../../src/porch/repo-address.js";

describe("a registered git address, seen from the GitHub the command talks to", () => {
  const forge = "http://127.0.0.1:4000/api/v3";
  it.each([
    ["acme/blueprints", undefined, { kind: "github", owner: "acme", repo: "blueprints" }],
    [
      "https://github.com/acme/blueprints.git",
      undefined,
      { kind: "github", owner: "acme", repo: "blueprints" },
    ],
    ["git@github.com:acme/blueprints.git", undefined, { kind: "github", owner: "acme", repo: "blueprints" }],
    ["http://127.0.0.1:4000/acme/bp.git", forge, { kind: "github", owner: "acme", repo: "bp" }],
    ["https://ghe.corp/acme/bp", "https://ghe.corp/api/v3", { kind: "github", owner: "acme", repo: "bp" }],
    [
      "https://repo.invalid/repository.git",
      undefined,
      { kind: "elsewhere", url: "https://repo.invalid/repository.git", host: "repo.invalid" },
    ],
    [
      "http://127.0.0.1:4001/acme/bp.git",
      forge,
      { kind: "elsewhere", url: "http://127.0.0.1:4001/acme/bp.git", host: "127.0.0.1:4001" },
    ],
    [
      "https://gitlab.com/group/sub/pkg.git",
      undefined,
      { kind: "elsewhere", url: "https://gitlab.com/group/sub/pkg.git", host: "gitlab.com" },
    ],
  ])("%s (api %s)", (address, api, expected) => {
    expect(parseGitAddress(address, api)).toEqual(expected);
  });

  it.each(["not a url", "ext::sh -c evil", "javascript://x/y", "/just/a/path", "acme"])(
    "%s is no git address",
    (address) => {
      expect(parseGitAddress(address, undefined)).toBeUndefined();
    },
  );
});

describe("--request-timeout, as kubectl spells a duration", () => {
  it.each([
    ["500ms", 500],
    ["10s", 10_000],
    ["2m", 120_000],
    ["1m30s", 90_000],
    ["3", 3000],
    ["0", undefined],
  ])("%s", (flag, ms) => {
    expect(requestTimeoutMs(flag, {})).toBe(ms);
  });

  it("takes the operator's PORCHLIGHT_REQUEST_TIMEOUT when no flag is given, else 30s", () => {
    expect(requestTimeoutMs(undefined, { PORCHLIGHT_REQUEST_TIMEOUT: "4s" })).toBe(4000);
    expect(requestTimeoutMs(undefined, {})).toBe(30_000);
    expect(() => requestTimeoutMs(undefined, { PORCHLIGHT_REQUEST_TIMEOUT: "forever" })).toThrow(
      'PORCHLIGHT_REQUEST_TIMEOUT "forever" is not a duration',
    );
  });
});
