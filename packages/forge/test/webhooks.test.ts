import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { verify } from "@octokit/webhooks-methods";
import { createNodeMiddleware, Probot } from "probot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Workdir, type World, world } from "./helpers.js";

const repo = { owner: "acme", repo: "blueprints" };

interface Received {
  headers: IncomingMessage["headers"];
  body: string;
}

/** A webhook receiver recording what arrives; answers `status`. */
async function receiver(status = 200): Promise<{ url: string; got: Received[]; server: Server }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.writeHead(status);
      res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, server };
}

describe("forge webhooks over HTTP", () => {
  let w: World;
  let servers: Server[];
  beforeEach(async () => {
    w = await world();
    servers = [];
  });
  afterEach(async () => {
    await w.cleanup();
    for (const s of servers) s.close();
  });

  it("signs deliveries with the app's secret and sends GitHub's headers, in order per repository", async () => {
    const r = await receiver();
    servers.push(r.server);
    w.forge.setWebhookUrl(r.url);
    for (let i = 0; i < 5; i++) await w.octokit.rest.issues.create({ ...repo, title: `t${i}` });
    await w.forge.webhooks.idle();
    expect(r.got.map((g) => JSON.parse(g.body).issue.title)).toEqual(["t0", "t1", "t2", "t3", "t4"]);
    const first = r.got[0]!;
    const secret = w.forge.app(w.appId)!.webhookSecret;
    expect(await verify(secret, first.body, String(first.headers["x-hub-signature-256"]))).toBe(true);
    expect(first.headers).toMatchObject({
      "x-github-event": "issues",
      "x-github-hook-installation-target-id": String(w.appId),
      "x-github-hook-installation-target-type": "integration",
      "content-type": "application/json",
    });
    expect(String(first.headers["user-agent"])).toMatch(/^GitHub-Hookshot\//);
    expect(first.headers["x-github-delivery"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(first.body).installation).toEqual({
      id: w.installationId,
      node_id: expect.any(String),
    });
    expect(w.forge.webhooks.deliveries.at(-1)).toMatchObject({ status: "OK", statusCode: 200 });
  });

  it("records failed deliveries and redelivers one by id over the REST API", async () => {
    const r = await receiver(500);
    servers.push(r.server);
    w.forge.setWebhookUrl(r.url);
    await w.octokit.rest.issues.create({ ...repo, title: "fails" });
    await w.forge.webhooks.idle();
    const [item] = (await w.appOctokit.rest.apps.listWebhookDeliveries()).data;
    expect(item).toMatchObject({
      event: "issues",
      action: "opened",
      status: "Invalid HTTP Response: 500",
      status_code: 500,
    });
    await w.appOctokit.rest.apps.redeliverWebhookDelivery({ delivery_id: item!.id });
    await w.forge.webhooks.idle();
    expect(r.got).toHaveLength(2);
    expect(r.got[1]!.headers["x-github-delivery"]).toBe(r.got[0]!.headers["x-github-delivery"]);
    const list = (await w.appOctokit.rest.apps.listWebhookDeliveries()).data;
    expect(list[0]).toMatchObject({ redelivery: true, guid: item!.guid });
  });

  it("drives a real Probot app: JWT, installation token, signature, and the app's reply", async () => {
    const app = w.forge.app(w.appId)!;
    const probot = new Probot({
      appId: app.id,
      privateKey: app.privateKeyPem,
      secret: app.webhookSecret,
      baseUrl: w.forge.apiUrl,
      logLevel: "fatal",
    });
    const middleware = await createNodeMiddleware(
      (bot) => {
        bot.on("issue_comment.created", async (context) => {
          if (context.isBot) return;
          await context.octokit.rest.reactions.createForIssueComment(
            context.repo({ comment_id: context.payload.comment.id, content: "eyes" as const }),
          );
          await context.octokit.rest.issues.createComment(context.issue({ body: "on it" }));
        });
        bot.on("push", async (context) => {
          await context.octokit.rest.issues.create(context.repo({ title: `pushed ${context.payload.ref}` }));
        });
      },
      { probot, webhooksPath: "/" },
    );
    const server = createServer((req, res) => void middleware(req, res));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    w.forge.setWebhookUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);

    const { pat } = w.forge.createUser("alice", { pat: true });
    w.forge.setPermission("acme/blueprints", "alice", "write");
    const issue = (await w.octokit.rest.issues.create({ ...repo, title: "hello" })).data;
    const alice = new (await import("@octokit/rest")).Octokit({ baseUrl: w.forge.url, auth: pat });
    const comment = (
      await alice.rest.issues.createComment({ ...repo, issue_number: issue.number, body: "/help" })
    ).data;
    const wd = await Workdir.clone(w, "acme/blueprints");
    await wd.commit("drafts/x", { f: "1\n" });
    await w.forge.webhooks.idle();
    await w.forge.webhooks.idle();

    const reactions = (
      await w.octokit.rest.reactions.listForIssueComment({ ...repo, comment_id: comment.id })
    ).data;
    expect(reactions.map((x) => [x.content, x.user?.login])).toEqual([["eyes", `${app.slug}[bot]`]]);
    const comments = (await w.octokit.rest.issues.listComments({ ...repo, issue_number: issue.number })).data;
    expect(comments.map((c) => c.body)).toEqual(["/help", "on it"]);
    const titles = (await w.octokit.rest.issues.listForRepo(repo)).data.map((i) => i.title);
    expect(titles).toContain("pushed refs/heads/drafts/x");
    const sent = w.forge.webhooks.deliveries.filter((d) => d.event !== "installation");
    expect(sent.filter((d) => d.status !== "OK").map((d) => [d.event, d.status, d.responseBody])).toEqual([]);
  });
});
