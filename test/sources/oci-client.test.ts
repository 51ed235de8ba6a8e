import { gzipSync } from "node:zlib";
import { pack } from "tar-stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RegistryClient, sha256Digest } from "../../src/sources/oci/client.js";
import { OCI_MANIFEST } from "../../src/sources/oci/media-types.js";
import { pullPackage, pushPackage } from "../../src/sources/oci/package.js";
import { writeTarGz } from "../../src/sources/tar.js";
import { hasRegistry, REGISTRY_MISSING, startRegistry, type TestRegistry } from "../util/registry.js";
import { hostOf, listen, type RegistryProxy, startProxy } from "../util/registry-proxy.js";

const PKG = new Map([
  ["Kptfile", Buffer.from("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n")],
  ["cm.yaml", Buffer.from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  k: v\n")],
]);

describe.skipIf(!hasRegistry)(`the OCI client against a real registry ${REGISTRY_MISSING ?? ""}`, () => {
  let registry: TestRegistry;
  let proxy: RegistryProxy;
  let digest: string;
  const waits: number[] = [];
  const client = (host: string, extra: Partial<ConstructorParameters<typeof RegistryClient>[1]> = {}) =>
    new RegistryClient(host, { sleep: async (ms) => void waits.push(ms), ...extra });

  beforeAll(async () => {
    registry = await startRegistry();
    proxy = await startProxy(registry.host);
    ({ digest } = await pushPackage(client(registry.host), "pkgs/app", "v1", PKG, {}));
  });
  afterAll(async () => {
    await proxy?.close();
    await registry?.stop();
  });
  afterEach(() => {
    proxy.fault = () => "pass";
    proxy.log.length = 0;
    waits.length = 0;
  });

  it("answers a Bearer challenge with a token from the realm, sending the login, and reuses the token", async () => {
    const tokenRequests: { url: string; authorization?: string }[] = [];
    const tokens = await listen((req, res) => {
      tokenRequests.push({ url: req.url ?? "", authorization: req.headers.authorization });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ token: "t0k3n" }));
    });
    proxy.fault = (req, res) => {
      if (req.authorization === "Bearer t0k3n") return "pass";
      res.writeHead(401, {
        "www-authenticate": `Bearer realm="http://${hostOf(tokens)}/token",service="test-registry",scope="repository:pkgs/app:pull"`,
      });
      res.end();
      return "handled";
    };
    const c = client(proxy.host, { credentials: async () => ({ username: "alice", password: "s3cret" }) });
    const pulled = await pullPackage(c, "pkgs/app", "v1", "/");
    tokens.close();

    expect(pulled.digest).toBe(digest);
    expect([...pulled.tree.keys()]).toEqual(["Kptfile", "cm.yaml"]);
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0]?.url).toBe("/token?service=test-registry&scope=repository%3Apkgs%2Fapp%3Apull");
    expect(tokenRequests[0]?.authorization).toBe(`Basic ${Buffer.from("alice:s3cret").toString("base64")}`);
    expect(proxy.log.filter((r) => r.authorization === undefined)).toHaveLength(1);
  });

  it("refuses a blob whose bytes do not hash to its digest, naming both digests", async () => {
    proxy.fault = (req) => (req.url.includes("/blobs/") ? { corrupt: true } : "pass");
    const err = await pullPackage(client(proxy.host), "pkgs/app", "v1", "/").catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(
      /blob sha256:[0-9a-f]{64} arrived with sha256 sha256:[0-9a-f]{64}; refusing it/,
    );
  });

  it("refuses a manifest fetched by digest whose bytes hash to another digest, writing nothing", async () => {
    proxy.fault = (req) => (req.url.includes(`/manifests/${digest}`) ? { corrupt: true } : "pass");
    const err = await pullPackage(client(proxy.host), "pkgs/app", digest, "/").catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(
      `${proxy.host}/pkgs/app@${digest}: the registry sent a manifest whose sha256 is ${(err as Error).message.match(/whose sha256 is (sha256:[0-9a-f]{64})/)?.[1]}; refusing it`,
    );
    expect((err as Error).message).not.toContain(`is ${digest}`);
    expect(proxy.log.some((r) => r.url.includes("/blobs/"))).toBe(false);
  });

  it("uploads a blob whose mount the registry refuses outright, as without the mount", async () => {
    proxy.fault = (req, res) => {
      if (req.method !== "POST" || !req.url.includes("mount=")) return "pass";
      res.writeHead(403, { "content-type": "application/json" });
      res.end('{"errors":[{"code":"DENIED","message":"no pull access to pkgs/app"}]}');
      return "handled";
    };
    const bytes = Buffer.from(`a blob refused a mount ${Date.now()}`);
    const c = client(proxy.host);
    const digest = await c.pushBlob("pkgs/other", bytes, "pkgs/app");
    expect(await c.hasBlob("pkgs/other", digest)).toBe(true);
    expect(
      proxy.log.filter((r) => r.method === "POST").map((r) => r.url.replace(/sha256%3A[0-9a-f]+/, "D")),
    ).toEqual(["/v2/pkgs/other/blobs/uploads/?mount=D&from=pkgs%2Fapp", "/v2/pkgs/other/blobs/uploads/"]);
  });

  it("waits as long as a 429's Retry-After asks, then retries", async () => {
    let limited = 0;
    proxy.fault = (req, res) => {
      if (req.url.includes("/manifests/") && limited < 2) {
        limited++;
        res.writeHead(429, { "retry-after": "2" });
        res.end();
        return "handled";
      }
      return "pass";
    };
    const pulled = await pullPackage(client(proxy.host), "pkgs/app", "v1", "/");
    expect(pulled.digest).toBe(digest);
    expect(waits).toEqual([2000, 2000]);
  });

  it("gives up on a Retry-After longer than it waits, saying so", async () => {
    proxy.fault = (_req, res) => {
      res.writeHead(429, { "retry-after": "3600" });
      res.end();
      return "handled";
    };
    await expect(client(proxy.host).manifest("pkgs/app", "v1")).rejects.toThrow(/asks to wait 3600 s/);
    expect(waits).toEqual([]);
  });

  it("follows a blob redirect to another host without the Authorization header", async () => {
    const seen: { url: string; authorization?: string }[] = [];
    const cdn = await listen(async (req, res) => {
      seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
      const up = await fetch(`http://${registry.host}${req.url}`);
      res.writeHead(up.status);
      res.end(Buffer.from(await up.arrayBuffer()));
    });
    const cdnHost = `localhost:${hostOf(cdn).split(":")[1]}`;
    proxy.fault = (req, res) => {
      if (req.authorization !== "Basic dTpw") {
        res.writeHead(401, { "www-authenticate": 'Basic realm="test"' });
        res.end();
        return "handled";
      }
      if (req.url.includes("/blobs/")) {
        res.writeHead(307, { location: `http://${cdnHost}${req.url}` });
        res.end();
        return "handled";
      }
      return "pass";
    };
    const c = client(proxy.host, { credentials: async () => ({ username: "u", password: "p" }) });
    const pulled = await pullPackage(c, "pkgs/app", "v1", "/");
    cdn.close();
    expect(pulled.tree.get("cm.yaml")?.toString()).toContain("name: app");
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.authorization === undefined)).toBe(true);
  });

  it("says which registry refused the login and how to log in", async () => {
    const locked = await startRegistry({ login: { username: "u", password: "p" } });
    try {
      await expect(client(locked.host).manifest("pkgs/app", "v1")).rejects.toThrow(
        new RegExp(`no credentials for ${locked.host}: run docker login ${locked.host}`),
      );
      const wrong = client(locked.host, { credentials: async () => ({ username: "u", password: "nope" }) });
      await expect(wrong.manifest("pkgs/app", "v1")).rejects.toThrow(/the credentials for .* were refused/);
      const right = client(locked.host, { credentials: async () => ({ username: "u", password: "p" }) });
      await pushPackage(right, "pkgs/app", "v1", PKG, {});
      expect(await right.tags("pkgs/app")).toEqual(["v1"]);
    } finally {
      await locked.stop();
    }
  });

  it("reads an ORAS-style artifact (one file per layer, named by its title) as a package", async () => {
    const c = client(registry.host);
    const layers = [];
    for (const [title, body] of PKG) {
      layers.push({
        mediaType: "application/vnd.oci.image.layer.v1.tar",
        digest: await c.pushBlob("oras/app", body),
        size: body.length,
        annotations: { "org.opencontainers.image.title": title },
      });
    }
    const config = Buffer.from("{}");
    const manifest = {
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      artifactType: "application/vnd.example.kpt",
      config: {
        mediaType: "application/vnd.oci.empty.v1+json",
        digest: await c.pushBlob("oras/app", config),
        size: 2,
      },
      layers,
    };
    await c.pushManifest("oras/app", "v1", Buffer.from(JSON.stringify(manifest)), manifest.mediaType);
    const pulled = await pullPackage(c, "oras/app", "v1", "/");
    expect([...pulled.tree.keys()].sort()).toEqual(["Kptfile", "cm.yaml"]);
    expect(pulled.tree.get("cm.yaml")?.equals(PKG.get("cm.yaml") as Buffer)).toBe(true);
  });

  it("reads a directory pushed by ORAS (one tar+gzip layer titled by the directory's name, entries under it)", async () => {
    const c = client(registry.host);
    const nested = new Map([...PKG].map(([path, body]) => [`web/${path}`, body]));
    const layer = await writeTarGz(nested);
    const config = Buffer.from("{}");
    const manifest = {
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      artifactType: "application/vnd.example.kpt",
      config: {
        mediaType: "application/vnd.oci.empty.v1+json",
        digest: await c.pushBlob("oras/dir", config),
        size: 2,
      },
      layers: [
        {
          mediaType: "application/vnd.oci.image.layer.v1.tar+gzip",
          digest: await c.pushBlob("oras/dir", layer),
          size: layer.length,
          annotations: { "org.opencontainers.image.title": "web", "io.deis.oras.content.unpack": "true" },
        },
      ],
    };
    await c.pushManifest("oras/dir", "v1", Buffer.from(JSON.stringify(manifest)), manifest.mediaType);
    const pulled = await pullPackage(c, "oras/dir", "v1", "/");
    expect([...pulled.tree.keys()].sort()).toEqual(["Kptfile", "cm.yaml"]);
    expect(pulled.tree.get("Kptfile")?.equals(PKG.get("Kptfile") as Buffer)).toBe(true);
  });

  it("reads through an image index (the manifest without a platform) and a Docker v2 manifest list, locking the index's digest", async () => {
    const c = client(registry.host);
    const other = new Map([
      ...PKG,
      ["cm.yaml", Buffer.from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: arm\n")],
    ]);
    const arm = await pushPackage(c, "multi/app", "arm", other, {});
    const plain = await pushPackage(c, "multi/app", "plain", PKG, {});
    const sizeOf = async (d: string) => (await c.manifest("multi/app", d)).bytes.length;
    const index = {
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.index.v1+json",
      manifests: [
        {
          mediaType: OCI_MANIFEST,
          digest: arm.digest,
          size: await sizeOf(arm.digest),
          platform: { os: "linux", architecture: "arm64" },
        },
        { mediaType: OCI_MANIFEST, digest: plain.digest, size: await sizeOf(plain.digest) },
      ],
    };
    const indexBytes = Buffer.from(JSON.stringify(index));
    const indexDigest = await c.pushManifest("multi/app", "v1", indexBytes, index.mediaType);
    const pulled = await pullPackage(c, "multi/app", "v1", "/");
    expect(pulled.digest).toBe(indexDigest);
    expect(pulled.tree.get("cm.yaml")?.toString()).toContain("name: app");

    // Docker's schema 2: a manifest list, a v2 manifest, a rootfs.diff.tar.gzip layer
    const layer = await writeTarGz(PKG);
    const config = Buffer.from(
      '{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}',
    );
    const v2 = {
      schemaVersion: 2,
      mediaType: "application/vnd.docker.distribution.manifest.v2+json",
      config: {
        mediaType: "application/vnd.docker.container.image.v1+json",
        digest: await c.pushBlob("docker/app", config),
        size: config.length,
      },
      layers: [
        {
          mediaType: "application/vnd.docker.image.rootfs.diff.tar.gzip",
          digest: await c.pushBlob("docker/app", layer),
          size: layer.length,
        },
      ],
    };
    const v2Bytes = Buffer.from(JSON.stringify(v2));
    const v2Digest = await c.pushManifest("docker/app", sha256Digest(v2Bytes), v2Bytes, v2.mediaType);
    const list = {
      schemaVersion: 2,
      mediaType: "application/vnd.docker.distribution.manifest.list.v2+json",
      manifests: [
        {
          mediaType: v2.mediaType,
          digest: v2Digest,
          size: v2Bytes.length,
          platform: { os: "linux", architecture: "amd64" },
        },
      ],
    };
    await c.pushManifest("docker/app", "v1", Buffer.from(JSON.stringify(list)), list.mediaType);
    expect([...(await pullPackage(c, "docker/app", "v1", "/")).tree.keys()]).toEqual(["Kptfile", "cm.yaml"]);
  });

  /** An artifact of `layers` (bytes and title) at `repository:v1`. */
  const pushLayers = async (
    repository: string,
    layers: { bytes: Buffer; title?: string; tar?: boolean }[],
  ) => {
    const c = client(registry.host);
    const config = Buffer.from("{}");
    const manifest = {
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      artifactType: "application/vnd.example.kpt",
      config: {
        mediaType: "application/vnd.oci.empty.v1+json",
        digest: await c.pushBlob(repository, config),
        size: 2,
      },
      layers: await Promise.all(
        layers.map(async (l) => ({
          mediaType: `application/vnd.oci.image.layer.v1.tar${l.tar === false ? "" : "+gzip"}`,
          digest: await c.pushBlob(repository, l.bytes),
          size: l.bytes.length,
          ...(l.title ? { annotations: { "org.opencontainers.image.title": l.title } } : {}),
        })),
      ),
    };
    await c.pushManifest(repository, "v1", Buffer.from(JSON.stringify(manifest)), manifest.mediaType);
    return c;
  };

  it("refuses a layer holding an entry with an absolute path or `..`, naming the entry, instead of re-rooting it", async () => {
    const crafted = async (name: string) => {
      const p = pack();
      const chunks: Buffer[] = [];
      p.on("data", (b) => chunks.push(b as Buffer));
      const done = new Promise<void>((r) => p.on("end", () => r()));
      p.entry({ name: "Kptfile" }, PKG.get("Kptfile") as Buffer);
      p.entry({ name }, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n");
      p.finalize();
      await done;
      return gzipSync(Buffer.concat(chunks));
    };
    const abs = await pushLayers("evil/abs", [{ bytes: await crafted("/etc/cm.yaml") }]);
    await expect(pullPackage(abs, "evil/abs", "v1", "/")).rejects.toThrow(
      /^oci:\/\/.*\/evil\/abs@sha256:\w+ layer sha256:\w+: refused entry "\/etc\/cm\.yaml": an absolute path/,
    );
    const up = await pushLayers("evil/up", [{ bytes: await crafted("../../cm.yaml") }]);
    await expect(pullPackage(up, "evil/up", "v1", "/")).rejects.toThrow(
      /refused entry "\.\.\/\.\.\/cm\.yaml": `\.\.` climbs out of the archive's root/,
    );
  });

  it("refuses an ORAS-style layer titled with an absolute path or `..`, naming the layer", async () => {
    const kptfile = PKG.get("Kptfile") as Buffer;
    const abs = await pushLayers("evil/title-abs", [
      { bytes: kptfile, title: "Kptfile", tar: false },
      { bytes: Buffer.from("x: 1\n"), title: "/etc/cm.yaml", tar: false },
    ]);
    await expect(pullPackage(abs, "evil/title-abs", "v1", "/")).rejects.toThrow(
      /refused layer sha256:\w+ titled "\/etc\/cm\.yaml": an absolute path/,
    );
    const up = await pushLayers("evil/title-up", [
      { bytes: kptfile, title: "Kptfile", tar: false },
      { bytes: Buffer.from("x: 1\n"), title: "../cm.yaml", tar: false },
    ]);
    await expect(pullPackage(up, "evil/title-up", "v1", "/")).rejects.toThrow(
      /refused layer sha256:\w+ titled "\.\.\/cm\.yaml": `\.\.` climbs out/,
    );
  });

  it("names a missing tag as not found", async () => {
    await expect(client(registry.host).manifest("pkgs/app", "v9")).rejects.toThrow(
      /manifest pkgs\/app:v9 not found \(HTTP 404, MANIFEST_UNKNOWN/,
    );
  });
});
