import { type Forge, startForge } from "@porchlight/forge";
import { Probot } from "probot";
import { afterEach, describe, expect, it } from "vitest";
import { porchlightOctokit, tokenOctokit } from "../../src/github/octokit.js";

let forge: Forge | undefined;
afterEach(async () => {
  await forge?.stop();
  forge = undefined;
});

/** A fetch that goes only to `base` and fails, naming it, any request elsewhere. */
function onlyTo(base: string, seen: string[]): typeof fetch {
  return (async (url: string | URL | Request, init?: RequestInit) => {
    const target = String(url instanceof Request ? url.url : url);
    seen.push(`${init?.method ?? "GET"} ${target}`);
    if (!target.startsWith(base)) throw new Error(`unexpected request to ${target}`);
    return fetch(url, init);
  }) as typeof fetch;
}

describe("porchlight's Octokit against a GitHub Enterprise (the forge)", () => {
  it("asks for an installation token on the configured host, not on api.github.com", async () => {
    forge = await startForge();
    const creds = forge.createApp({ name: "porchlight", owner: "acme" });
    forge.createUser("acme", { type: "Organization" });
    const installation = forge.createInstallation(creds.appId, "acme");
    const seen: string[] = [];
    const probot = new Probot({
      appId: creds.appId,
      privateKey: creds.privateKeyPem,
      secret: creds.webhookSecret,
      baseUrl: forge.apiUrl,
      request: { fetch: onlyTo(forge.apiUrl, seen) },
      Octokit: porchlightOctokit({ writeIntervalMs: 0, rateLimitRetries: 0 }),
    });
    const octokit = (await probot.auth(installation.id)) as unknown as { auth(o: unknown): Promise<unknown> };
    // Directly, as git asks for its token: the request that went to the public API before.
    await expect(octokit.auth({ type: "installation" })).resolves.toMatchObject({
      token: expect.any(String),
    });
    expect(seen).toEqual([`POST ${forge.apiUrl}/app/installations/${installation.id}/access_tokens`]);
  });
});

describe("a REST base a person gives", () => {
  it.each([
    ["127.0.0.1:41833", "http://127.0.0.1:41833/api/v3"],
    ["localhost:3000/", "http://localhost:3000/api/v3"],
    ["ftp://ghe.example/", "https://HOST/api/v3"],
  ])("%s is refused, saying how to write it", (given, example) => {
    expect(() =>
      tokenOctokit("t", { writeIntervalMs: 0, rateLimitRetries: 0, maxWaitS: 0, apiUrl: given }),
    ).toThrow(
      `the API URL "${given}" (--api-url, PORCHLIGHT_API_URL or GITHUB_API_URL) is not an http(s) URL: write it whole, scheme included, e.g. ${example}`,
    );
  });

  it("an http(s) URL is taken as it is", () => {
    expect(() =>
      tokenOctokit("t", {
        writeIntervalMs: 0,
        rateLimitRetries: 0,
        maxWaitS: 0,
        apiUrl: "http://127.0.0.1:41833/api/v3",
      }),
    ).not.toThrow();
  });
});
