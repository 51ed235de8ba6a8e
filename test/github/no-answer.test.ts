import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitHubError, mapGitHubErrors } from "../../src/github/errors.js";

/**
 * A request no server answered is said as what to check, never as OpenSSL's text or an HTTP status
 * nobody sent (Octokit reports those as HTTP 500): a port nothing listens on, a plain HTTP server asked
 * for HTTPS, a host that does not resolve — each over a real socket.
 */
describe("a GitHub URL that nothing answers", () => {
  let plain: Server;
  let port = 0;
  let closed = 0;

  beforeAll(async () => {
    plain = createServer((_req, res) => res.writeHead(200).end("{}"));
    await new Promise<void>((r) => plain.listen(0, "127.0.0.1", r));
    port = (plain.address() as AddressInfo).port;
    const spare = createServer();
    await new Promise<void>((r) => spare.listen(0, "127.0.0.1", r));
    closed = (spare.address() as AddressInfo).port;
    await new Promise((r) => spare.close(r));
  });
  afterAll(() => new Promise((r) => plain.close(r)));

  const read = (baseUrl: string) =>
    mapGitHubErrors("reading acme/app", () =>
      new Octokit({ baseUrl, request: { retries: 0 } }).rest.repos.get({ owner: "acme", repo: "app" }),
    );

  it.each([
    [
      () => `http://127.0.0.1:${closed}/api/v3`,
      /nothing answers at http:\/\/127\.0\.0\.1:\d+ \(connection refused\): is the server running/,
    ],
    [
      () => `https://127.0.0.1:${port}/api/v3`,
      /https:\/\/127\.0\.0\.1:\d+ does not answer HTTPS .*write http:\/\/ instead/,
    ],
    [() => "http://forge.invalid/api/v3", /the host of http:\/\/forge\.invalid cannot be resolved/],
  ])("%#: says what to check, with no HTTP status", async (url, said) => {
    const err = await read(url()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitHubError);
    expect((err as GitHubError).kind).toBe("network");
    expect((err as Error).message).toMatch(said);
    expect((err as Error).message).not.toMatch(/HTTP 500|SSL routines/);
  });
});
