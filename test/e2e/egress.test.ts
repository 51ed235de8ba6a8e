import { describe, expect, it } from "vitest";
import { operatorServicesFromEnv } from "../../src/jobs/operator-env.js";
import { writeTarGz } from "../../src/sources/tar.js";
import { serveLoopback, settingsWith, sourceVariant, useSourceWorld, webPackage } from "./source-world.js";

/**
 * A repository writer names the upstream URLs fan-out fetches; the bot fetches them from the operator's
 * network. With the access the app builds from its environment (operatorServicesFromEnv, the operator
 * allowing one tarball server on loopback), a variant whose URL redirects to another loopback service
 * (the app's own /metrics, say) is refused, that service is never asked, and the dashboard says what was
 * refused without echoing anything it would have answered; the allowed server's variant is cloned.
 */
describe("egress: fan-out fetches only what the operator's policy allows (forge over HTTP and git)", () => {
  const secretHits: string[] = [];
  const world = useSourceWorld(async (stopAfter) => {
    const secret = await serveLoopback((req, res) => {
      secretHits.push(req.url ?? "");
      res.writeHead(200).end("SECRET-METRICS porchlight_jobs_total 42");
    });
    stopAfter(secret.close);
    const secretUrl = `${secret.base}/metrics`;
    const body = await writeTarGz(webPackage({ "cm.yaml": settingsWith({ a: "1" }) }));
    const front = await serveLoopback((req, res) => {
      if (req.url === "/web.tar.gz") return void res.writeHead(200).end(body);
      if (req.url === "/sneaky.tar.gz") return void res.writeHead(302, { location: secretUrl }).end();
      res.writeHead(404).end();
    });
    stopAfter(front.close);
    const base = front.base;
    const { mirror } = operatorServicesFromEnv({ PORCHLIGHT_EGRESS_ALLOW: new URL(base).host });
    return {
      variants: [
        sourceVariant("web-01", `tarball: ${base}/web.tar.gz`),
        sourceVariant("sneaky-01", `tarball: ${base}/sneaky.tar.gz`, "sneaky"),
        sourceVariant("direct-01", `tarball: ${secretUrl.replace("/metrics", "/pkg.tar.gz")}`, "direct"),
      ].join("---\n"),
      mirror,
    };
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
