import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { useRpkgWorld } from "./world.js";

const DOWN = "--repository=acme/deploy";

/** A git repository on this machine's disk holding another organisation's package (and its secret). */
export function secretRepository(root: string): string {
  const dir = join(root, "secretorg", "private-pkgs");
  mkdirSync(join(dir, "app"), { recursive: true });
  writeFileSync(
    join(dir, "app", "Kptfile"),
    "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n",
  );
  writeFileSync(
    join(dir, "app", "secret.yaml"),
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: SECRETORG-PASSWORD\n",
  );
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: dir });
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("commit", "-q", "-m", "secret");
  return dir;
}

/** A TCP listener on loopback that counts every connection made to it (and answers none). */
export async function connectionCounter(): Promise<{
  port: number;
  connections(): number;
  close(): Promise<void>;
}> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What a clone or an upgrade may name, refused before anything connects: port is the listener's. */
export function refusedLocations(secret: string, port: number): string[] {
  return [
    `file://${secret}`,
    `file://${secret}/.git`,
    secret,
    `${secret}/.git`,
    "ext::sh",
    `git@127.0.0.1:${port}/pkgs.git`,
    `ssh://127.0.0.1:${port}/pkgs.git`,
    `git://127.0.0.1:${port}/pkgs.git`,
    `http://127.0.0.1:${port}/pkgs.git`,
    `https://127.0.0.1:${port}/pkgs.git`,
    `https://localhost:${port}/pkgs.git`,
    `https://2130706433:${port}/pkgs.git`,
    `https://0x7f.1:${port}/pkgs.git`,
    `https://0177.0.0.1:${port}/pkgs.git`,
    `https://[::ffff:127.0.0.1]:${port}/pkgs.git`,
    `https://[::ffff:7f00:1]:${port}/pkgs.git`,
    `https://[::1]:${port}/pkgs.git`,
    "https://10.0.0.1/pkgs.git",
    "https://192.168.1.1/pkgs.git",
    "https://169.254.169.254/latest/meta-data.git",
    `oci://127.0.0.1:${port}/pkgs/web:v1`,
    `oci://2130706433:${port}/pkgs/web:v1`,
    `https://127.0.0.1:${port}/web.tar.gz`,
    `http://127.0.0.1:${port}/web.tar.gz`,
    `https://0x7f.1:${port}/web.tar.gz`,
    "https://169.254.169.254/web.tar.gz",
  ];
}

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

  it("refuses an upgrade whose Kptfile (the caller's to write) names such an upstream, or whose --ref does", async () => {
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
    expect(listener.connections()).toBe(0);
  }, 120_000);
});
