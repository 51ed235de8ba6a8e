import { describe, expect, it } from "vitest";
import { operatorServicesFromEnv } from "../../src/jobs/operator-env.js";
import { writeTarGz } from "../../src/sources/tar.js";
import { connectionCounter } from "../util/egress-fixtures.js";
import { serveLoopback, settingsWith, sourceVariant, useSourceWorld, webPackage } from "./source-world.js";

/**
 * A repository writer names the upstream URLs fan-out fetches; the bot fetches them from the operator's
 * network. With the access the app builds from its environment (operatorServicesFromEnv, the operator
 * allowing one tarball server on loopback), a variant whose URL redirects to another loopback service
 * (the app's own /metrics, say) is refused, that service is never asked, and the dashboard says what was
 * refused without echoing anything it would have answered; the allowed server's variant is cloned. Images
 * and tarballs at loopback in its decimal, hex and IPv4-mapped spellings, the metadata address and a
 * private one are refused by the same policy, and a listener on loopback sees no connection (issue #67:
 * fan-out already kept to the policy; a variant's git upstream names a repository, never an address).
 */
describe("egress: fan-out fetches only what the operator's policy allows (forge over HTTP and git)", () => {
  const secretHits: string[] = [];
  let counter: Awaited<ReturnType<typeof connectionCounter>> | undefined;
  const world = useSourceWorld(async (stopAfter) => {
    counter = await connectionCounter();
    stopAfter(counter.close);
    const at = `${counter.port}`;
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
        // the same policy for every spelling of the operator's network, OCI images as tarballs
        sourceVariant("decimal-01", `oci: oci://2130706433:${at}/pkgs/web:v1`, "decimal"),
        sourceVariant("hex-01", `tarball: https://0x7f.1:${at}/pkg.tar.gz`, "hex"),
        sourceVariant("mapped-01", `tarball: "https://[::ffff:127.0.0.1]:${at}/pkg.tar.gz"`, "mapped"),
        sourceVariant("metadata-01", "oci: oci://169.254.169.254/pkgs/web:v1", "metadata"),
        sourceVariant("private-01", "tarball: https://10.0.0.1/pkg.tar.gz", "private"),
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
    for (const name of ["decimal", "hex", "mapped"])
      expect(board).toMatch(new RegExp(`${name}-01[^\\n]*127\\.0\\.0\\.1\\)? is a loopback address`));
    expect(board).toMatch(/metadata-01[^\n]*169\.254\.169\.254 is a link-local \(cloud metadata\) address/);
    expect(board).toMatch(/private-01[^\n]*10\.0\.0\.1 is a private address/);
    expect(board).not.toContain("SECRET");
    expect(secretHits).toEqual([]);
    expect(counter?.connections()).toBe(0);
    // the next run asks again and is refused again: nothing reaches the service
    await world.sweep();
    expect(secretHits).toEqual([]);
  }, 120_000);
});
