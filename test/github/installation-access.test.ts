import { describe, expect, it } from "vitest";
import { installationAccess } from "../../src/github/installation-access.js";

const failing =
  (status: number, message: string, headers: Record<string, string> = {}) =>
  async () => {
    throw Object.assign(new Error(message), { status, response: { headers, data: { message } } });
  };

describe("whether the app can act for an installation", () => {
  it("is yes when a token is given", async () => {
    expect(await installationAccess(7, async () => ({ token: "t" }))).toEqual({ ok: true });
  });

  it.each([
    [404, "Not Found", 404, "installation 7 is not an installation of this app"],
    [403, "This installation has been suspended", 403, "this app may not act for installation 7: "],
    [
      401,
      "A JSON web token could not be decoded",
      500,
      "GitHub refused the app's own credentials (check APP_ID and PRIVATE_KEY)",
    ],
    [502, "Bad Gateway", 503, "could not reach GitHub to authenticate installation 7"],
  ])("GitHub's %i becomes %s", async (status, message, answer, reason) => {
    const access = await installationAccess(7, failing(status, message));
    expect(access).toMatchObject({ ok: false, status: answer });
    expect(access.ok ? "" : access.reason).toContain(reason);
  });

  it("a network failure is temporary, not a verdict", async () => {
    const access = await installationAccess(7, async () => {
      throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    });
    expect(access).toMatchObject({ ok: false, status: 503 });
  });
});
