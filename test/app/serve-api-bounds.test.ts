import { readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { request } from "node:https";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { useTempDir } from "../util/temp-dirs.js";
import { startServe } from "./serving.js";
import { deliver } from "./webhook/http.js";

/**
 * `porchlight serve` runs the app (its webhooks, /healthz) and Porch's API in one process: watches past
 * the API's caps are refused while the app's own door keeps answering — a signed delivery taken, a
 * forged one refused, /healthz up (issue #67). The caps are this test's (a handful, not the defaults).
 */
describe("serve: Porch's API past its watch caps, the app's webhooks and /healthz meanwhile", () => {
  const data = useTempDir("porchlight-serve-bounds-");

  it("refuses the watches over the cap with 429 and a Status, and still takes a signed webhook", async () => {
    const served = await startServe(["--data", data], {
      PORCHLIGHT_RECONCILE_INTERVAL_MS: "0",
      PORCHLIGHT_API_MAX_WATCHES_PER_TOKEN: "2",
      PORCHLIGHT_API_MAX_WATCHES: "3",
    });
    const out = served.out;
    const appUrl = /app:\s+(\S+) \(webhooks (\S+),/.exec(out);
    const kubeconfigFile = /export KUBECONFIG=(\S+)/.exec(out)?.[1] ?? "";
    expect(appUrl).not.toBeNull();
    const [, app, webhooks] = appUrl as unknown as [string, string, string];
    const kube = parse(readFileSync(kubeconfigFile, "utf8"));
    const server = new URL(kube.clusters[0].cluster.server as string);
    const ca = Buffer.from(kube.clusters[0].cluster["certificate-authority-data"] as string, "base64");
    const token = kube.users[0].user.token as string;
    // another user's token, from the kubeconfig serve wrote for them
    const files = [...out.matchAll(/ {2}for \S+ \(\S+\): (\S+)/g)].map((m) => m[1] as string);
    const other = files
      .map((f) => parse(readFileSync(f, "utf8")).users[0].user.token as string)
      .find((t) => t !== token) as string;

    const opened: IncomingMessage[] = [];
    const watch = (as: string) =>
      new Promise<IncomingMessage>((resolve, reject) => {
        const req = request(
          {
            host: server.hostname,
            port: server.port,
            ca,
            path: "/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions?watch=true",
            headers: { authorization: `Bearer ${as}` },
          },
          (res) => {
            opened.push(res);
            resolve(res);
          },
        );
        req.on("error", reject);
        req.end();
      });
    const body = (res: IncomingMessage) =>
      new Promise<string>((resolve) => {
        let text = "";
        res.on("data", (d) => {
          text += d;
        });
        res.on("end", () => resolve(text));
      });
    try {
      // two watches of one token are served; its third is refused, named by the setting that raises it
      const first = await Promise.all([watch(token), watch(token)]);
      expect(first.map((r) => r.statusCode)).toEqual([200, 200]);
      const third = await watch(token);
      expect(third.statusCode).toBe(429);
      expect(JSON.parse(await body(third))).toMatchObject({
        kind: "Status",
        reason: "TooManyRequests",
        code: 429,
        message: expect.stringMatching(/PORCHLIGHT_API_MAX_WATCHES_PER_TOKEN/),
      });
      // another caller takes the last of the server's three; a fourth watch in all is refused
      expect((await watch(other)).statusCode).toBe(200);
      const fourth = await watch(other);
      expect(fourth.statusCode).toBe(429);
      expect(JSON.parse(await body(fourth)).message).toMatch(/PORCHLIGHT_API_MAX_WATCHES\b/);

      // meanwhile the app's door: a delivery signed with the app's secret is taken, a forged one is not
      const secret = JSON.parse(readFileSync(join(data, "forge.json"), "utf8")).apps[0]
        .webhookSecret as string;
      const ping = JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1 });
      expect((await deliver(webhooks, { event: "ping", body: ping, secret, id: "bounds-1" })).status).toBe(
        200,
      );
      expect(
        (await deliver(webhooks, { event: "ping", body: ping, secret: "not-the-secret", id: "bounds-2" }))
          .status,
      ).toBe(401);
      const health = await fetch(`${app}/healthz`);
      expect(health.status).toBe(200);
    } finally {
      for (const res of opened) res.destroy();
      await served.stop();
    }
  }, 240_000);
});
