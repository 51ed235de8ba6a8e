import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operatorServicesFromEnv } from "../../src/jobs/operator-env.js";
import { writeTarGz } from "../../src/sources/tar.js";
import type { World } from "./harness.js";
import {
  type SourceWorld,
  settingsWith,
  sourceVariant,
  startSourceWorld,
  webPackage,
} from "./source-world.js";

/**
 * A repository writer names the upstream URLs fan-out fetches; the bot fetches them from the operator's
 * network. With the access the app builds from its environment (operatorServicesFromEnv, the operator
 * allowing one tarball server on loopback), a variant whose URL redirects to another loopback service
 * (the app's own /metrics, say) is refused, that service is never asked, and the dashboard says what was
 * refused without echoing anything it would have answered; the allowed server's variant is cloned.
 */
describe("egress: fan-out fetches only what the operator's policy allows (forge over HTTP and git)", () => {
  let world: SourceWorld;
  let w: World;
  let front: Server;
  let secret: Server;
  const secretHits: string[] = [];

  beforeAll(async () => {
    secret = createServer((req, res) => {
      secretHits.push(req.url ?? "");
      res.writeHead(200).end("SECRET-METRICS porchlight_jobs_total 42");
    });
    await new Promise<void>((r) => secret.listen(0, "127.0.0.1", r));
    const secretUrl = `http://127.0.0.1:${(secret.address() as AddressInfo).port}/metrics`;
    const body = await writeTarGz(webPackage({ "cm.yaml": settingsWith({ a: "1" }) }));
    front = createServer((req, res) => {
      if (req.url === "/web.tar.gz") return void res.writeHead(200).end(body);
      if (req.url === "/sneaky.tar.gz") return void res.writeHead(302, { location: secretUrl }).end();
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => front.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
    const { mirror } = operatorServicesFromEnv({ PORCHLIGHT_EGRESS_ALLOW: new URL(base).host });
    world = await startSourceWorld(
      [
        sourceVariant("web-01", `tarball: ${base}/web.tar.gz`),
        sourceVariant("sneaky-01", `tarball: ${base}/sneaky.tar.gz`, "sneaky"),
        sourceVariant("direct-01", `tarball: ${secretUrl.replace("/metrics", "/pkg.tar.gz")}`, "direct"),
      ].join("---\n"),
      mirror,
    );
    w = world.w;
  }, 120_000);
  afterAll(async () => {
    await w?.stop();
    await new Promise((r) => front?.close(r));
    await new Promise((r) => secret?.close(r));
  });

  it("clones from the allowed server, refuses the redirect and the direct URL, and never asks the service behind them", async () => {
    await world.sweep();
    const pulls = await world.openPulls();
    expect(pulls.map((p) => p.head.ref)).toEqual(["porchlight/variant/web/web-01"]);
    const board = await world.dashboard();
    expect(board).toMatch(/sneaky-01[^\n]*127\.0\.0\.1 is a loopback address/);
    expect(board).toMatch(/direct-01[^\n]*127\.0\.0\.1 is a loopback address/);
    expect(board).not.toContain("SECRET");
    expect(secretHits).toEqual([]);
    // the next run asks again and is refused again: nothing reaches the service
    await world.sweep();
    expect(secretHits).toEqual([]);
  }, 120_000);
});
