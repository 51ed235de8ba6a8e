import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import {
  closedPort,
  connectionCounter,
  refusedLocations,
  secretRepository,
} from "../../util/egress-fixtures.js";
import { useRpkgWorld } from "./world.js";

const DOWN = "--repository=acme/deploy";

/**
 * `rpkg clone` and `rpkg upgrade` read their upstream from the machine rpkg runs on — Porch's API server,
 * for every token holder. What they name is judged by the egress policy before anything connects: the
 * server's disk (file://, a path), git's other transports, loopback in every encoding, private,
 * link-local and metadata addresses are refused with the policy named; a listener on loopback sees no
 * connection, and no draft is made.
 */
describe("rpkg clone and upgrade keep to the egress policy", () => {
  const w = useRpkgWorld();
  let listener: Awaited<ReturnType<typeof connectionCounter>>;
  let secret = "";

  beforeAll(async () => {
    listener = await connectionCounter();
    secret = secretRepository(w.tmp);
  });
  afterAll(() => listener.close());

  it("refuses to clone from the server's disk, other transports and the operator's network, connecting nowhere", async () => {
    for (const [i, location] of refusedLocations(secret, listener.port).entries()) {
      const r = await w.rpkg(w.alice, ["clone", location, `stolen-${i}`, DOWN]);
      expect({ location, code: r.code }).toEqual({ location, code: 1 });
      // an image is judged by its repository (its tag is no address)
      expect(r.stderr).toContain(
        `SOURCE: "${location.replace(/:v1$/, "")}" is refused by the egress policy: `,
      );
      expect(r.stderr).not.toContain("SECRETORG");
    }
    expect(listener.connections()).toBe(0);
    const drafts = await w.rpkg(w.alice, ["get", DOWN]);
    expect(drafts.stdout).not.toContain("stolen");
  }, 120_000);

  it("says the same of an open port and a closed one where the operator allows the address: nothing to scan ports with", async () => {
    const closed = await closedPort();
    const env = { PORCHLIGHT_EGRESS_ALLOW: "127.0.0.1" };
    const said = async (port: number) => {
      const r = await w.rpkg(w.alice, ["clone", `https://127.0.0.1:${port}/x.git`, "probe", DOWN], { env });
      expect(r.code).toBe(1);
      return r.stderr.replaceAll(String(port), "PORT");
    };
    const before = listener.connections();
    const [open, shut] = [await said(listener.port), await said(closed)];
    expect(listener.connections()).toBeGreaterThan(before);
    expect(open).toBe(shut);
    expect(open).toContain(
      'upstream repository "https://127.0.0.1:PORT/x.git" could not be reached, or it refused the connection',
    );
    expect(open).not.toMatch(/TLS|gnutls|SSL|connect to|Couldn't/i);
  }, 60_000);

  it("refuses an upgrade whose Kptfile (the caller's to write) names such an upstream, or whose --ref does", async () => {
    const connected = listener.connections();
    const init = await w.rpkg(w.alice, ["init", "web", DOWN, "--workspace=first"]);
    expect(init).toMatchObject({ code: 0, stderr: "" });
    const dir = join(w.tmp, "web");
    expect((await w.rpkg(w.alice, ["pull", "deploy.web.first", dir, DOWN])).code).toBe(0);
    const kptfile = parse(readFileSync(join(dir, "Kptfile"), "utf8"));
    const upstreams = [
      // Porch's OCI form, and porchlight's tarball annotation
      { ...kptfile, upstream: { type: "oci", oci: { image: `2130706433:${listener.port}/pkgs/web:v1` } } },
      {
        ...kptfile,
        metadata: {
          ...kptfile.metadata,
          annotations: {
            ...kptfile.metadata.annotations,
            "porchlight.dev/upstream": `https://0x7f.1:${listener.port}/web.tar.gz`,
          },
        },
      },
    ];
    for (const [i, upstream] of upstreams.entries()) {
      writeFileSync(join(dir, "Kptfile"), stringify(upstream));
      const pushed = await w.rpkg(w.alice, ["push", "deploy.web.first", dir, DOWN]);
      expect(pushed).toMatchObject({ code: 0, stderr: "" });
      const r = await w.rpkg(w.alice, ["upgrade", "deploy.web.first", `--workspace=up-${i}`, DOWN]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("web/Kptfile upstream: ");
      expect(r.stderr).toContain("is refused by the egress policy: 127.0.0.1 is a loopback address");
    }
    // a tarball upstream taken to another URL with --ref: judged the same way
    const ref = await w.rpkg(w.alice, [
      "upgrade",
      "deploy.web.first",
      "--workspace=up-ref",
      `--ref=https://169.254.169.254:${listener.port}/web.tar.gz`,
      DOWN,
    ]);
    expect(ref.code).toBe(1);
    expect(ref.stderr).toContain("--ref: ");
    expect(ref.stderr).toContain("169.254.169.254 is a link-local (cloud metadata) address");
    expect(listener.connections()).toBe(connected);
  }, 120_000);
});
