import { type Forge, startForge } from "@porchlight/forge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppServer, startAppServer } from "../../src/app/server.js";
import { appOnForge } from "../e2e/harness.js";
import { capturedLog, deliver, rawRequest, sign, streamChunked } from "./webhook/http.js";

/**
 * The webhook edge through the app's real HTTP server, on the forge: sizes, signature, shape and
 * installation are refused before probot sees the event, and /healthz answers all the while.
 */
interface Running {
  forge: Forge;
  app: AppServer;
  secret: string;
  installation: number;
  lines: Record<string, unknown>[];
  push(installation: number): Record<string, unknown>;
}

const started: Running[] = [];
afterAll(async () => {
  for (const r of started) {
    await r.app.close();
    await r.forge.stop();
  }
});

async function start(webhookMaxBytes?: number): Promise<Running> {
  const forge = await startForge();
  const creds = forge.createApp({ name: "porchlight", owner: "acme" });
  forge.createUser("acme", { type: "Organization" });
  await forge.createRepo("acme/blueprints", { files: { "README.md": "hi\n" } });
  const installation = forge.createInstallation(creds.appId, "acme").id;
  const { log, lines } = capturedLog();
  const app = await startAppServer({
    ...appOnForge(forge, creds),
    log,
    ...(webhookMaxBytes ? { webhookMaxBytes } : {}),
  });
  const push = (id: number) => ({
    ref: "refs/heads/drafts/hello/w",
    before: "0".repeat(40),
    after: "a".repeat(40),
    commits: [],
    repository: {
      name: "blueprints",
      full_name: "acme/blueprints",
      owner: { login: "acme" },
      clone_url: forge.cloneUrl("acme/blueprints"),
      default_branch: "main",
    },
    sender: { login: "alice" },
    installation: { id },
  });
  const running = { forge, app, secret: creds.webhookSecret, installation, lines, push };
  started.push(running);
  return running;
}

const headers = (secret: string, extra: Record<string, string>) => ({
  "content-type": "application/json",
  "x-github-event": "push",
  "x-github-delivery": "d-1",
  "x-hub-signature-256": sign(secret, "{}"),
  ...extra,
});
type Line = Record<string, unknown>;
const refusals = (lines: Line[], deliveryId: string) =>
  lines.filter((l) => String(l.msg).startsWith("webhook refused") && l.deliveryId === deliveryId);
const jobLines = (lines: Line[]) => lines.filter((l) => "job" in l || l.msg === "job failed");
const WEBHOOKS = "/api/github/webhooks";

describe("the app's webhook endpoint", () => {
  let running: Running;
  beforeAll(async () => {
    running = await start();
  });

  it("answers a Content-Length over 25 MB with 413 before the client has sent the body", async () => {
    const { app, secret, lines } = running;
    const big = String(25 * 1024 * 1024 + 1);
    const upload = rawRequest(app.url, "POST", WEBHOOKS, headers(secret, { "content-length": big }));
    const response = await upload.response;
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    expect(response).toContain("over the limit of 26214400 bytes (PORCHLIGHT_WEBHOOK_MAX_BYTES raises it)");
    expect(refusals(lines, "d-1")).toMatchObject([
      { msg: "webhook refused: body too large", event: "push", bytes: 26214401, limit: 26214400 },
    ]);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toContain('porchlight_webhooks_refused_total{reason="too-large",status="413"} 1');
  });

  it("cuts a chunked body off at the configured cap with 413, /healthz answering meanwhile", async () => {
    const { app, secret } = await start(1024 * 1024);
    const upload = rawRequest(app.url, "POST", WEBHOOKS, headers(secret, { "transfer-encoding": "chunked" }));
    const health = fetch(`${app.url}/healthz`);
    const sent = await streamChunked(upload, Buffer.alloc(64 * 1024, 32), 1024 * 1024 * 1024);
    expect((await health).status).toBe(200);
    const response = await upload.response;
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    expect(response).toContain("more than 1048576 bytes");
    expect(sent).toBeLessThan(1024 * 1024 * 1024);
    expect(app.queues.size).toBe(0);
  });

  it("answers /healthz during a slow upload, and while a job holds a repository's queue", async () => {
    const { app, secret } = running;
    const upload = rawRequest(app.url, "POST", WEBHOOKS, headers(secret, { "content-length": "100000" }));
    await upload.write(Buffer.alloc(1000, 32));
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
    expect(upload.answered()).toBe(false);
    upload.socket.destroy();

    let release = () => {};
    const job = app.queues.enqueue({
      repo: "acme/blueprints",
      key: "hold",
      run: () => new Promise<void>((resolve) => (release = resolve)),
    });
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
    release();
    await job;
  });

  it("refuses a bad signature with 401 before the body is parsed", async () => {
    const { app, lines } = running;
    const res = await deliver(app.webhookUrl, {
      event: "push",
      body: "{not json",
      secret: "wrong",
      id: "d-sig",
    });
    expect(res.status).toBe(401);
    expect(res.text).toContain("signature does not match the body");
    expect(refusals(lines, "d-sig")).toMatchObject([
      { msg: "webhook refused: bad signature", event: "push" },
    ]);
  });

  it.each([
    ["[1,2]", [1, 2], "(payload)"],
    ["null", null, "(payload)"],
    ["a push without repository", "no-repository", "repository"],
  ])(
    "refuses a signed payload of the wrong shape (%s) with 400, one log line, nothing queued",
    async (name, payload, field) => {
      const { app, secret, lines, push, installation } = running;
      const body = JSON.stringify(
        payload === "no-repository" ? { ...push(installation), repository: undefined } : payload,
      );
      const id = `d-shape ${name}`;
      const before = lines.length;
      const res = await deliver(app.webhookUrl, { event: "push", body, secret, id });
      expect(res.status).toBe(400);
      expect(res.text).toContain(`push payload refused: ${field}: `);
      expect(res.text).not.toMatch(/\n\s+at /);
      await app.idle();
      const after = lines.slice(before);
      expect(refusals(after, id)).toMatchObject([
        { msg: "webhook refused: payload has the wrong shape", event: "push", field },
      ]);
      expect(after.filter((l) => Number(l.level) >= 50)).toEqual([]);
      expect(jobLines(after)).toEqual([]);
    },
  );

  it("refuses an event for an installation the app does not have, and takes one it has", async () => {
    const { app, secret, lines, push, installation } = running;
    const before = lines.length;
    const body = JSON.stringify(push(4242));
    const unknown = await deliver(app.webhookUrl, { event: "push", body, secret, id: "d-unknown" });
    expect(unknown).toEqual({
      status: 404,
      text: "installation 4242 is not an installation of this app; nothing was queued\n",
    });
    await app.idle();
    const after = lines.slice(before);
    expect(refusals(after, "d-unknown")).toMatchObject([
      { msg: "webhook refused: installation not usable", installation: 4242, status: 404 },
    ]);
    expect(jobLines(after)).toEqual([]);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toContain('porchlight_webhooks_refused_total{reason="installation",status="404"} 1');

    const known = JSON.stringify({ ...push(installation), ref: "refs/heads/feature" });
    expect(await deliver(app.webhookUrl, { event: "push", body: known, secret, id: "d-known" })).toEqual({
      status: 200,
      text: "ok\n",
    });
  });
});
