import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  egressFetch,
  egressPolicy,
  egressPolicyFromEnv,
  imageRegistry,
  readBounded,
} from "../../src/sources/egress.js";
import { SourceError } from "../../src/sources/errors.js";
import { fetchTarball } from "../../src/sources/tarball-fetch.js";

describe("the egress policy: what a repository's URL may reach", () => {
  const none = egressPolicy([]);

  it("refuses the operator's own network by address, IPv4-in-IPv6 included, and lets public addresses by", () => {
    for (const [address, kind] of [
      ["127.0.0.1", "loopback"],
      ["10.1.2.3", "private"],
      ["172.20.0.1", "private"],
      ["192.168.1.1", "private"],
      ["100.64.0.1", "shared"],
      ["169.254.169.254", "link-local (cloud metadata)"],
      ["0.0.0.0", "unspecified"],
      ["224.0.0.1", "multicast"],
      ["::1", "loopback"],
      ["fe80::1", "link-local"],
      ["fd00:ec2::254", "private"],
      ["ff02::1", "multicast"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:a9fe:a9fe", "link-local"],
      // IPv6 forms that carry an IPv4 address are judged by it
      ["::127.0.0.1", "(127.0.0.1) is a loopback"], // IPv4-compatible
      ["::7f00:1", "(127.0.0.1) is a loopback"],
      ["::ffff:0:7f00:1", "(127.0.0.1) is a loopback"], // IPv4-translated
      ["::ffff:0:10.0.0.1", "(10.0.0.1) is a private"],
      ["2002:7f00:1::1", "(127.0.0.1) is a loopback"], // 6to4
      ["2002:a9fe:a9fe::", "(169.254.169.254) is a link-local"],
      ["64:ff9b::a9fe:a9fe", "(169.254.169.254) is a link-local"], // NAT64, well-known prefix
      ["64:ff9b:1::a9fe:a9fe", "local-use NAT64"], // NAT64, local use: the operator's translator
      ["64:ff9b:1:ffff::808:808", "local-use NAT64"],
      // IANA's special-purpose registries: documentation, benchmarking, reserved and protocol ranges
      ["192.0.2.1", "documentation"],
      ["198.51.100.7", "documentation"],
      ["203.0.113.200", "documentation"],
      ["198.19.255.1", "benchmarking"],
      ["192.0.0.170", "reserved (IETF protocol assignments)"],
      ["192.88.99.1", "6to4 relay anycast"],
      ["240.0.0.1", "reserved"],
      ["255.255.255.255", "broadcast"],
      ["2001:db8::1", "documentation"],
      ["3fff::1", "documentation"],
      ["100::1", "discard-only"],
      ["5f00::1", "segment routing"],
      ["2001:10::1", "IETF protocol assignments"], // ORCHID
      ["2001:20::1", "IETF protocol assignments"], // ORCHIDv2
      ["2001:2::1", "IETF protocol assignments"], // benchmarking
      ["fec0::1", "site-local"],
      // Teredo is refused whole, whichever server and client it names
      ["2001:0:4136:e378:8000:63bf:80ff:fffe", "IETF protocol assignments"],
      ["2001:0:4136:e378:8000:63bf:f7f7:f7f7", "IETF protocol assignments"],
      // a documentation or benchmarking address carried in an IPv6 one is judged as itself
      ["::ffff:192.0.2.1", "(192.0.2.1) is a documentation"],
      ["64:ff9b::c633:6401", "(198.51.100.1) is a documentation"],
      ["2002:c612:1::", "(198.18.0.1) is a benchmarking"],
    ] as const)
      expect(none.refusal(address, "h.example"), address).toContain(kind);
    for (const address of [
      "93.184.216.34",
      "8.8.8.8",
      "2606:4700::1111",
      "::ffff:8.8.8.8",
      "2002:808:808::1", // 6to4 of a public address
      "64:ff9b::808:808",
      "2001:4860:4860::8888",
      "192.0.3.1", // beside TEST-NET-1
      "198.20.0.1", // beside benchmarking
    ])
      expect(none.refusal(address, "h.example"), address).toBeUndefined();
  });

  it("allows what the operator lists: ranges, addresses, host names, subdomains, one endpoint", () => {
    const p = egressPolicy([
      "10.1.0.0/16",
      "192.168.9.9",
      "registry.internal",
      "*.corp.example",
      "127.0.0.1:5000",
    ]);
    expect(p.refusal("10.1.200.1", "x")).toBeUndefined();
    expect(p.refusal("10.2.0.1", "x")).toContain("private");
    expect(p.refusal("192.168.9.9", "x")).toBeUndefined();
    expect(p.refusal("10.9.9.9", "registry.internal")).toBeUndefined();
    expect(p.refusal("10.9.9.9", "git.corp.example")).toBeUndefined();
    expect(p.refusal("127.0.0.1", "127.0.0.1")).toContain("loopback");
    // an allowed IPv4 address stays allowed in the IPv6 forms that carry it
    expect(p.refusal("::ffff:192.168.9.9", "x")).toBeUndefined();
    expect(p.refusal("2002:c0a8:909::1", "x")).toBeUndefined();
    expect(p.allowsEndpoint(new URL("http://127.0.0.1:5000/v2/"))).toBe(true);
    expect(p.allowsEndpoint(new URL("http://127.0.0.1:5001/v2/"))).toBe(false);
    expect(() => egressPolicyFromEnv({ PORCHLIGHT_EGRESS_ALLOW: "10.0.0.0/99" })).toThrow(
      /PORCHLIGHT_EGRESS_ALLOW: "10.0.0.0\/99" has no valid prefix length/,
    );
    expect(() => egressPolicyFromEnv({ PORCHLIGHT_EGRESS_ALLOW: "http://x/" })).toThrow(SourceError);
  });
});

describe("the registry an image is pulled from", () => {
  it.each([
    ["gcr.io/kpt-fn/set-labels:v0.2.0", "gcr.io"],
    ["127.0.0.1:5000/fn:v1", "127.0.0.1:5000"],
    ["localhost/fn", "localhost"],
    ["nginx:1.25", "registry-1.docker.io"],
    ["library/nginx", "registry-1.docker.io"],
  ])("%s pulls from %s", (image, host) => expect(imageRegistry(image).host).toBe(host));
});

describe("egressFetch over real HTTP", () => {
  let secret: Server;
  let front: Server;
  let secretUrl = "";
  let frontPort = 0;
  const secretHits: string[] = [];

  beforeAll(async () => {
    secret = createServer((req, res) => {
      secretHits.push(req.url ?? "");
      res.writeHead(200).end("SECRET-METRICS");
    });
    await new Promise<void>((r) => secret.listen(0, "127.0.0.1", r));
    secretUrl = `http://127.0.0.1:${(secret.address() as AddressInfo).port}/metrics`;
    front = createServer((req, res) => {
      if (req.url === "/to-secret") return void res.writeHead(302, { location: secretUrl }).end();
      if (req.url === "/to-localhost")
        return void res.writeHead(302, { location: secretUrl.replace("127.0.0.1", "localhost") }).end();
      if (req.url === "/loop") return void res.writeHead(302, { location: "/loop" }).end();
      if (req.url === "/endless") {
        // chunked, no length: only reading tells how much it is
        res.writeHead(200);
        const chunk = Buffer.alloc(64 * 1024, 1);
        const more = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once("drain", more);
        };
        res.on("close", () => res.destroy());
        return void more();
      }
      res.writeHead(200).end("front");
    });
    await new Promise<void>((r) => front.listen(0, "127.0.0.1", r));
    frontPort = (front.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => secret.close(r));
    await new Promise((r) => front.close(r));
  });

  const fetchFor = () => egressFetch(egressPolicy([`127.0.0.1:${frontPort}`]), { maxRedirects: 3 });
  const front_ = (path: string) => `http://127.0.0.1:${frontPort}${path}`;

  it("reaches an allowed endpoint, and refuses a redirect from it to a loopback address or a name resolving to one", async () => {
    const f = fetchFor();
    expect(await (await f(front_("/ok"))).text()).toBe("front");
    await expect(fetchTarball(front_("/to-secret"), { fetch: f })).rejects.toThrow(
      /127\.0\.0\.1 is a loopback address, which porchlight does not reach/,
    );
    // a name is checked by the addresses it resolves to, when the connection is made
    await expect(fetchTarball(front_("/to-localhost"), { fetch: f })).rejects.toThrow(
      /localhost \((127\.0\.0\.1|::1)\) is a loopback address/,
    );
    await expect(fetchTarball(secretUrl, { fetch: f })).rejects.toThrow(/loopback address/);
    expect(secretHits).toEqual([]);
  });

  it("stops reading a body without a length as soon as it passes the limit", async () => {
    const res = await fetchFor()(front_("/endless"));
    expect(res.headers.get("content-length")).toBeNull();
    await expect(readBounded(res, 1 << 20, (n) => new SourceError(`too big: ${n}`))).rejects.toThrow(
      /too big: 1\d{6}/,
    );
  });

  it("bounds redirects", async () => {
    await expect(fetchFor()(front_("/loop"))).rejects.toThrow(/redirected more than 3 times/);
  });
});
