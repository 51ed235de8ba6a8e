import { type Forge, startForge } from "@porchlight/forge";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { serveCommand } from "../../src/cli/serve.js";
import { captureIO } from "../util/cli-io.js";
import { deliver, rawRequest, sign } from "./webhook/http.js";

/**
 * `porchlight serve` with app credentials and GHE_HOST/GHE_PROTOCOL, as probot reads them, against the
 * forge (to the app, a GitHub Enterprise Server): every request the app makes, the installation-token
 * request included, goes to that host; nothing leaves for api.github.com (nock refuses and records it).
 */
let forge: Forge | undefined;
const outside: string[] = [];
beforeEach(() => {
  nock.disableNetConnect();
  nock.enableNetConnect((host: string) => host.startsWith("127.0.0.1"));
  nock.emitter.on("no match", record);
});
afterEach(async () => {
  nock.emitter.off("no match", record);
  nock.enableNetConnect();
  await forge?.stop();
  forge = undefined;
  outside.length = 0;
});
function record(req: { host?: string; hostname?: string; href?: string; url?: string }): void {
  const where = String(req.href ?? req.url ?? req.hostname ?? req.host ?? "");
  if (!/^(https?:\/\/)?127\.0\.0\.1/.test(where)) outside.push(where);
}

describe("porchlight serve against a GitHub Enterprise host", () => {
  it("takes events of its installation, refuses others, asks every token of GHE_HOST", async () => {
    forge = await startForge();
    const creds = forge.createApp({ name: "porchlight", owner: "acme" });
    forge.createUser("acme", { type: "Organization" });
    await forge.createRepo("acme/blueprints", { files: { "README.md": "hi\n" } });
    const installation = forge.createInstallation(creds.appId, "acme").id;
    const io = captureIO({
      env: {
        APP_ID: String(creds.appId),
        PRIVATE_KEY: creds.privateKeyPem,
        WEBHOOK_SECRET: creds.webhookSecret,
        GHE_HOST: new URL(forge.url).host,
        GHE_PROTOCOL: "http",
        HOST: "127.0.0.1",
        PORT: "0",
        PORCHLIGHT_WEBHOOK_MAX_BYTES: "100000",
      },
    });
    const running = serveCommand([], io);
    while (!io.out().includes("listening on")) await new Promise((resolve) => setImmediate(resolve));
    const webhookUrl = /webhooks at (\S+?),/.exec(io.out())?.[1] ?? "";
    const push = (id: number) =>
      JSON.stringify({
        ref: "refs/heads/feature",
        after: "a".repeat(40),
        commits: [],
        repository: {
          name: "blueprints",
          owner: { login: "acme" },
          clone_url: forge?.cloneUrl("acme/blueprints"),
          default_branch: "main",
        },
        installation: { id },
      });
    const secret = creds.webhookSecret;

    expect(await deliver(webhookUrl, { event: "push", body: push(installation), secret })).toEqual({
      status: 200,
      text: "ok\n",
    });
    const tokens = { method: "POST", route: "/app/installations/{installation_id}/access_tokens" };
    expect(forge.requestLog.count({ ...tokens, status: 201 })).toBe(1);
    // The second time, the installation's token comes from the cache: no call for the check.
    const again = await deliver(webhookUrl, { event: "push", body: push(installation), secret, id: "d-2" });
    expect(again.status).toBe(200);
    expect(forge.requestLog.count(tokens)).toBe(1);

    const unknown = await deliver(webhookUrl, { event: "push", body: push(4242), secret, id: "d-unknown" });
    expect(unknown.status).toBe(404);
    expect(forge.requestLog.count({ ...tokens, status: 404 })).toBe(1);

    const upload = rawRequest(new URL(webhookUrl).origin, "POST", new URL(webhookUrl).pathname, {
      "content-type": "application/json",
      "x-github-event": "push",
      "x-github-delivery": "d-big",
      "x-hub-signature-256": sign(secret, "{}"),
      "content-length": "100001",
    });
    expect(await upload.response).toContain("over the limit of 100000 bytes (PORCHLIGHT_WEBHOOK_MAX_BYTES");

    expect(outside).toEqual([]);
    process.emit("SIGTERM");
    expect(await running).toBe(0);
  });
});
