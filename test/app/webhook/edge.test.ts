import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type WebhookEdgeOptions, type WebhookEvent, webhookEdge } from "../../../src/app/webhook/edge.js";
import type { InstallationAccess } from "../../../src/github/port.js";
import { ByteBudget } from "../../../src/ops/byte-budget.js";
import { capturedLog, deliver, rawRequest, sign, streamChunked } from "./http.js";

const SECRET = "s3cret";
const repository = {
  name: "blueprints",
  owner: { login: "acme" },
  clone_url: "http://x/acme/blueprints.git",
  default_branch: "main",
};
const push = {
  ref: "refs/heads/drafts/hello/w",
  after: "a".repeat(40),
  commits: [],
  repository,
  installation: { id: 7 },
};

interface Edge {
  url: string;
  received: WebhookEvent[];
  lines: Record<string, unknown>[];
}
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function startEdge(over: Partial<WebhookEdgeOptions> = {}): Promise<Edge> {
  const received: WebhookEvent[] = [];
  const { log, lines } = capturedLog();
  const handle = webhookEdge({
    secret: SECRET,
    maxBytes: 1024 * 1024,
    log,
    installation: async (id): Promise<InstallationAccess> =>
      id === 7
        ? { ok: true }
        : { ok: false, status: 404, reason: `installation ${id} is not an installation of this app` },
    receive: async (event) => {
      received.push(event);
    },
    ...over,
  });
  server = createServer((req, res) => void handle(req, res));
  server.on("checkContinue", (req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, received, lines };
}

const refusals = (lines: Record<string, unknown>[]) =>
  lines.filter((l) => String(l.msg).startsWith("webhook refused"));

describe("the webhook edge", () => {
  it("hands a signed, well-formed event to the handlers and answers 200", async () => {
    const edge = await startEdge();
    const body = JSON.stringify(push);
    expect(await deliver(edge.url, { event: "push", body, secret: SECRET, id: "d-1" })).toEqual({
      status: 200,
      text: "ok\n",
    });
    expect(edge.received).toEqual([{ id: "d-1", name: "push", payload: push }]);
  });

  it("answers 413 to a Content-Length over the cap before the client has sent a byte of the body", async () => {
    const edge = await startEdge({ maxBytes: 1000 });
    const req = rawRequest(edge.url, "POST", "/", {
      "content-type": "application/json",
      "x-github-event": "push",
      "x-github-delivery": "d-big",
      "x-hub-signature-256": sign(SECRET, "x"),
      "content-length": "1001",
    });
    const response = await req.response;
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    expect(response).toContain(
      "payload too large: 1001 bytes, over the limit of 1000 bytes (PORCHLIGHT_WEBHOOK_MAX_BYTES",
    );
    expect(edge.received).toEqual([]);
    expect(refusals(edge.lines)).toMatchObject([
      {
        msg: "webhook refused: body too large",
        event: "push",
        deliveryId: "d-big",
        bytes: 1001,
        limit: 1000,
      },
    ]);
  });

  it("does not send 100 Continue to a body over the cap: the client is told 413 instead", async () => {
    const edge = await startEdge({ maxBytes: 1000 });
    const req = rawRequest(edge.url, "POST", "/", {
      "content-type": "application/json",
      "x-github-event": "push",
      "x-github-delivery": "d-expect",
      "x-hub-signature-256": sign(SECRET, "x"),
      "content-length": "5000",
      expect: "100-continue",
    });
    const response = await req.response;
    expect(response).not.toContain("100 Continue");
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("cuts a chunked body off at the cap with 413, never handing it on", async () => {
    const edge = await startEdge({ maxBytes: 256 * 1024 });
    const req = rawRequest(edge.url, "POST", "/", {
      "content-type": "application/json",
      "x-github-event": "push",
      "x-github-delivery": "d-chunked",
      "x-hub-signature-256": sign(SECRET, "x"),
      "transfer-encoding": "chunked",
    });
    const sent = await streamChunked(req, Buffer.alloc(16 * 1024, 32), 512 * 1024 * 1024);
    const response = await req.response;
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    expect(response).toContain("more than 262144 bytes");
    expect(sent).toBeLessThan(512 * 1024 * 1024);
    expect(edge.received).toEqual([]);
  });

  it("refuses a bad signature with 401 before the body is parsed", async () => {
    const edge = await startEdge();
    const res = await deliver(edge.url, { event: "push", body: "{not json", secret: "wrong", id: "d-sig" });
    expect(res.status).toBe(401);
    expect(res.text).toContain("signature does not match the body");
    expect(refusals(edge.lines)).toMatchObject([
      { msg: "webhook refused: bad signature", deliveryId: "d-sig" },
    ]);
  });

  it("refuses a delivery without a signature with 401, without reading it", async () => {
    const edge = await startEdge();
    const res = await fetch(edge.url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "push", "x-github-delivery": "d" },
      body: "{}",
    });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain("X-Hub-Signature-256 is missing");
  });

  it("refuses a signed body that is not JSON with 400", async () => {
    const edge = await startEdge();
    const res = await deliver(edge.url, { event: "push", body: "{not json", secret: SECRET });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/^the body is not JSON: /);
  });

  it.each([
    ["[1,2]", "push", [1, 2], "(payload)", "expected a JSON object, got an array"],
    ["null", "push", null, "(payload)", "expected a JSON object, got null"],
    ["a number", "ping", 3, "(payload)", "expected a JSON object, got number"],
    ["a push without repository", "push", { ...push, repository: undefined }, "repository", ""],
    [
      "a push whose repository has no clone_url",
      "push",
      { ...push, repository: { ...repository, clone_url: 1 } },
      "repository.clone_url",
      "",
    ],
    [
      "a pull request without its head sha",
      "pull_request",
      {
        action: "opened",
        pull_request: { number: 1, head: { ref: "x" } },
        repository,
        installation: { id: 7 },
      },
      "pull_request.head.sha",
      "",
    ],
    [
      "a comment without its issue",
      "issue_comment",
      {
        action: "created",
        comment: { id: 1, body: "/approve", user: { login: "a" } },
        repository,
        installation: { id: 7 },
      },
      "issue",
      "",
    ],
    [
      "a review without an installation",
      "pull_request_review",
      {
        action: "submitted",
        review: { id: 1, state: "approved", user: null, commit_id: "c" },
        pull_request: { number: 1, head: { sha: "c" } },
        repository,
      },
      "installation",
      "",
    ],
  ])(
    "refuses %s with 400 naming the field, one log line, no stack trace",
    async (_name, event, payload, field, message) => {
      const edge = await startEdge();
      const res = await deliver(edge.url, {
        event,
        body: JSON.stringify(payload),
        secret: SECRET,
        id: "d-shape",
      });
      expect(res.status).toBe(400);
      expect(res.text).toMatch(
        new RegExp(`^${event} payload refused: ${field.replace(/[().]/g, "\\$&")}: ${message}`),
      );
      expect(res.text).not.toMatch(/\n\s+at /);
      expect(refusals(edge.lines)).toMatchObject([
        { msg: "webhook refused: payload has the wrong shape", event, deliveryId: "d-shape", field },
      ]);
      expect(edge.received).toEqual([]);
    },
  );

  it("refuses an event for an installation the app does not have, queueing nothing", async () => {
    const edge = await startEdge();
    const body = JSON.stringify({ ...push, installation: { id: 999 } });
    const res = await deliver(edge.url, { event: "push", body, secret: SECRET, id: "d-inst" });
    expect(res).toEqual({
      status: 404,
      text: "installation 999 is not an installation of this app; nothing was queued\n",
    });
    expect(refusals(edge.lines)).toMatchObject([
      { msg: "webhook refused: installation not usable", deliveryId: "d-inst", installation: 999 },
    ]);
    expect(edge.received).toEqual([]);
  });

  it("answers 500 without a stack trace when a handler fails, and logs the error", async () => {
    const edge = await startEdge({
      receive: async () => {
        throw new Error("boom");
      },
    });
    const res = await deliver(edge.url, {
      event: "push",
      body: JSON.stringify(push),
      secret: SECRET,
      id: "d-500",
    });
    expect(res).toEqual({
      status: 500,
      text: "porchlight could not handle delivery d-500; its log says why\n",
    });
    expect(edge.lines).toMatchObject([
      { msg: "webhook failed in a handler", deliveryId: "d-500", err: { message: "boom" } },
    ]);
  });

  it("answers 202 when the handlers take longer than GitHub waits, and they go on", async () => {
    let finish = () => {};
    const done = new Promise<void>((resolve) => (finish = resolve));
    const edge = await startEdge({ answerWithinMs: 0, receive: () => done });
    const res = await deliver(edge.url, { event: "push", body: JSON.stringify(push), secret: SECRET });
    expect(res).toEqual({ status: 202, text: "accepted; still being handled\n" });
    finish();
  });

  it("refuses a delivery that is not GitHub's (no event or delivery header, or not JSON) before reading it", async () => {
    const edge = await startEdge();
    const bare = await fetch(edge.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(bare.status).toBe(400);
    expect(await bare.text()).toBe(
      "not a GitHub webhook: X-GitHub-Event and X-GitHub-Delivery are required\n",
    );
    const form = await fetch(edge.url, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-github-event": "push",
        "x-github-delivery": "d",
        "x-hub-signature-256": sign(SECRET, "payload=%7B%7D"),
      },
      body: "payload=%7B%7D",
    });
    expect(form.status).toBe(415);
    expect(await form.text()).toContain("set the webhook's content type to application/json");
  });

  it("answers 503 when the bodies being read at once would pass the budget, and gives it back as they end", async () => {
    const budget = new ByteBudget(150_000);
    // no reserve: this is the shared budget alone (the reserve for small deliveries: below)
    const edge = await startEdge({ maxBytes: 100_000, budget, reserve: new ByteBudget(0) });
    const upload = (id: string) =>
      rawRequest(edge.url, "POST", "/", {
        "content-type": "application/json",
        "x-github-event": "push",
        "x-github-delivery": id,
        "x-hub-signature-256": sign(SECRET, "x"),
        "content-length": "100000",
      });
    const first = upload("d-first");
    await first.write(Buffer.alloc(90_000, 32));
    for (let i = 0; budget.used < 90_000 && i < 100_000; i++) await new Promise((r) => setImmediate(r));
    expect(budget.used).toBe(90_000);

    const second = upload("d-second");
    await second.write(Buffer.alloc(90_000, 32));
    const response = await second.response;
    expect(response).toMatch(/^HTTP\/1\.1 503 /);
    expect(response).toContain(
      "too many webhook bytes being received at once (150000 bytes; PORCHLIGHT_WEBHOOK_MAX_PENDING_BYTES",
    );
    expect(refusals(edge.lines)).toMatchObject([
      {
        msg: "webhook refused: too many bytes in flight",
        deliveryId: "d-second",
        status: 503,
        budget: 150_000,
      },
    ]);
    expect(budget.used).toBe(90_000);

    first.socket.destroy();
    for (let i = 0; budget.used > 0 && i < 100_000; i++) await new Promise((r) => setImmediate(r));
    expect(budget.used).toBe(0);
    const body = JSON.stringify(push);
    expect((await deliver(edge.url, { event: "push", body, secret: SECRET })).status).toBe(200);
    expect(budget.used).toBe(0);
  });

  it("four senders holding nearly whole bodies open cannot keep signed deliveries out, and are cut off", async () => {
    const maxBytes = 1024 * 1024;
    const edge = await startEdge({
      maxBytes,
      pace: { idleMs: 1500, graceMs: 1500, minBytesPerSecond: 1024 * 1024 },
    });
    // the hostile walk's probe: each sends all but one byte of a body at the cap, then goes quiet
    const holders = ["h-1", "h-2", "h-3", "h-4"].map((id) =>
      rawRequest(edge.url, "POST", "/", {
        "content-type": "application/json",
        "x-github-event": "push",
        "x-github-delivery": id,
        "x-hub-signature-256": sign(SECRET, "x"),
        "content-length": String(maxBytes),
      }),
    );
    await Promise.all(holders.map((h) => h.write(Buffer.alloc(maxBytes - 1, 32))));
    const body = JSON.stringify(push);
    const statuses: number[] = [];
    // signed deliveries while they hold on, until each holder has its answer
    for (let i = 0; i < 200 && !holders.every((h) => h.answered()); i++) {
      statuses.push((await deliver(edge.url, { event: "push", body, secret: SECRET, id: `d-${i}` })).status);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const answers = await Promise.all(holders.map((h) => h.response));
    // one address holds half the budget at most: two were refused at once, two cut off when they went quiet
    expect(answers.filter((a) => a.startsWith("HTTP/1.1 503 ")).length).toBe(2);
    const cut = answers.filter((a) => a.startsWith("HTTP/1.1 408 "));
    expect(cut.length).toBe(2);
    expect(cut[0]).toContain(
      `webhook body too slow: nothing arrived for 1.5 s (${maxBytes - 1} bytes received)`,
    );
    expect(refusals(edge.lines).filter((l) => l.msg === "webhook refused: body too slow")).toHaveLength(2);
    expect((await deliver(edge.url, { event: "push", body, secret: SECRET, id: "d-after" })).status).toBe(
      200,
    );
  });

  it("cuts off a body that trickles in slower than any delivery GitHub sends", async () => {
    const edge = await startEdge({ pace: { idleMs: 5000, graceMs: 300, minBytesPerSecond: 10_000 } });
    const trickle = rawRequest(edge.url, "POST", "/", {
      "content-type": "application/json",
      "x-github-event": "push",
      "x-github-delivery": "d-trickle",
      "x-hub-signature-256": sign(SECRET, "x"),
      "content-length": "5000",
    });
    for (let i = 0; i < 100 && !trickle.answered(); i++) {
      await trickle.write(" ");
      await new Promise((r) => setTimeout(r, 50));
    }
    const answer = await trickle.response;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain("webhook body too slow: it was still arriving after 0.8 s (");
  });
});
