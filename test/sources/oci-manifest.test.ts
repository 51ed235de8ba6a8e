import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { RegistryClient } from "../../src/sources/oci/client.js";
import { OCI_LAYER_TAR_GZIP, OCI_MANIFEST } from "../../src/sources/oci/media-types.js";
import { pullPackage } from "../../src/sources/oci/package.js";
import { RefusedBlobs } from "../../src/sources/oci/refused-blobs.js";
import { writeTarGz } from "../../src/sources/tar.js";

const INDEX = "application/vnd.oci.image.index.v1+json";
const digestOf = (b: Buffer) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

/** A registry of fixed answers, by path: what `pullPackage` reads through the client's fetch. */
function registry(answers: Map<string, { type: string; body: Buffer }>): RegistryClient {
  const fetch = async (url: string | URL | Request) => {
    const a = answers.get(new URL(String(url)).pathname);
    if (!a) return new Response("not found", { status: 404 });
    return new Response(new Uint8Array(a.body), { status: 200, headers: { "content-type": a.type } });
  };
  return new RegistryClient("127.0.0.1:5000", { fetch: fetch as typeof globalThis.fetch });
}

async function packageRegistry(manifestOf: (layer: { digest: string; size: number }) => unknown) {
  const layer = await writeTarGz(
    new Map([["Kptfile", Buffer.from("apiVersion: kpt.dev/v1\nkind: Kptfile\n")]]),
  );
  const manifest = Buffer.from(JSON.stringify(manifestOf({ digest: digestOf(layer), size: layer.length })));
  const index = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: INDEX,
      manifests: [{ mediaType: OCI_MANIFEST, digest: digestOf(manifest), size: manifest.length }],
    }),
  );
  return registry(
    new Map([
      ["/v2/pkgs/hello/manifests/v1", { type: INDEX, body: index }],
      [`/v2/pkgs/hello/manifests/${digestOf(manifest)}`, { type: OCI_MANIFEST, body: manifest }],
      [`/v2/pkgs/hello/blobs/${digestOf(layer)}`, { type: "application/octet-stream", body: layer }],
    ]),
  );
}

describe("reading an OCI package's manifests", () => {
  it("follows an index to its manifest and the manifest to the layer holding the Kptfile", async () => {
    const client = await packageRegistry((layer) => ({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      layers: [{ mediaType: OCI_LAYER_TAR_GZIP, ...layer }],
    }));
    const pulled = await pullPackage(client, "pkgs/hello", "v1", "/");
    expect([...pulled.tree.keys()]).toEqual(["Kptfile"]);
  });

  it.each([
    [
      "a layer digest that is no digest",
      { mediaType: OCI_LAYER_TAR_GZIP, digest: "../../../etc" },
      "layers.0.digest",
    ],
    ["a layer that is no object", "layer.tar.gz", "layers.0"],
  ])("refuses a manifest with %s, naming the field", async (_what, layer, field) => {
    const client = await packageRegistry(() => ({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      layers: [layer],
    }));
    await expect(pullPackage(client, "pkgs/hello", "v1", "/")).rejects.toThrow(
      `127.0.0.1:5000/pkgs/hello:v1: the manifest: ${field}: `,
    );
  });
});

describe("a token service's answer to a Bearer challenge", () => {
  /** A registry that asks for a Bearer token, and a token service answering `body`. */
  const challenged = (body: string) => {
    const fetch = async (url: string | URL | Request, init?: RequestInit) => {
      const u = new URL(String(url));
      if (u.pathname === "/token") return new Response(body, { status: 200 });
      if (new Headers(init?.headers).get("authorization") === "Bearer t0k3n")
        return Response.json({ name: "pkgs/hello", tags: ["v1"] });
      return new Response("", {
        status: 401,
        headers: { "www-authenticate": 'Bearer realm="http://127.0.0.1:5001/token",service="test"' },
      });
    };
    return new RegistryClient("127.0.0.1:5000", { fetch: fetch as typeof globalThis.fetch });
  };

  it("takes the token, under either name", async () => {
    expect(await challenged('{"token": "t0k3n"}').tags("pkgs/hello")).toEqual(["v1"]);
    expect(await challenged('{"access_token": "t0k3n"}').tags("pkgs/hello")).toEqual(["v1"]);
  });

  it("refuses a token that is no string, naming the field", async () => {
    await expect(challenged('{"token": 5}').tags("pkgs/hello")).rejects.toThrow(
      /access denied \(the token service http:\/\/127\.0\.0\.1:5001 sent no token \(token: Invalid input: expected string, received number\)\)/,
    );
  });

  it("says no token came where the answer is not JSON, or names none", async () => {
    for (const body of ["<html>", '{"expires_in": 300}'])
      await expect(challenged(body).tags("pkgs/hello")).rejects.toThrow(
        /access denied \(the token service http:\/\/127\.0\.0\.1:5001 sent no token\);/,
      );
  });
});

describe("a refused layer is remembered by digest", () => {
  /** A registry holding one image whose single layer is `layer`, counting the blob requests. */
  const oneLayer = (layer: Buffer, failBlob = false) => {
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: OCI_MANIFEST,
        layers: [{ mediaType: OCI_LAYER_TAR_GZIP, digest: digestOf(layer), size: layer.length }],
      }),
    );
    const blobs: string[] = [];
    const fetch = async (url: string | URL | Request) => {
      const path = new URL(String(url)).pathname;
      if (path === "/v2/pkgs/hello/manifests/v1")
        return new Response(new Uint8Array(manifest), { headers: { "content-type": OCI_MANIFEST } });
      if (path !== `/v2/pkgs/hello/blobs/${digestOf(layer)}`) return new Response("", { status: 404 });
      blobs.push(path);
      return failBlob ? new Response("down", { status: 500 }) : new Response(new Uint8Array(layer));
    };
    const client = new RegistryClient("127.0.0.1:5000", {
      fetch: fetch as typeof globalThis.fetch,
      retries: 0,
    });
    return { client, blobs };
  };

  it("a layer unpacking past the bytes porchlight reads is refused once, then without a download", async () => {
    // 65 MiB of one file, a few hundred KiB compressed
    const bomb = gzipSync(Buffer.alloc(65 * 1024 * 1024), { level: 9 });
    const { client, blobs } = oneLayer(bomb);
    const refused = new RefusedBlobs();
    await expect(pullPackage(client, "pkgs/hello", "v1", "/", { refused })).rejects.toThrow(
      `layer ${digestOf(bomb)}: unpacks to more than the 67108864 bytes porchlight reads`,
    );
    expect(blobs).toHaveLength(1);
    await expect(pullPackage(client, "pkgs/hello", "v1", "/", { refused })).rejects.toThrow(
      "(refused when first read; not downloaded again)",
    );
    expect(blobs).toHaveLength(1);
  });

  it("a package a limit refused is refused again without a download, and read again once the limit allows it", async () => {
    const layer = await writeTarGz(
      new Map([
        ["Kptfile", Buffer.from("apiVersion: kpt.dev/v1\nkind: Kptfile\n")],
        ["a.yaml", Buffer.from("a: 1\n")],
      ]),
    );
    const { client, blobs } = oneLayer(layer);
    const refused = new RefusedBlobs();
    let max = 1;
    const admit = (size: { files: number }) =>
      size.files > max ? `${size.files} files, more than ${max}` : undefined;
    await expect(pullPackage(client, "pkgs/hello", "v1", "/", { refused, admit })).rejects.toThrow(
      "2 files, more than 1",
    );
    await expect(pullPackage(client, "pkgs/hello", "v1", "/", { refused, admit })).rejects.toThrow(
      "2 files, more than 1 (counted when first read; not downloaded again)",
    );
    expect(blobs).toHaveLength(1);
    max = 2;
    const pulled = await pullPackage(client, "pkgs/hello", "v1", "/", { refused, admit });
    expect([...pulled.tree.keys()]).toEqual(["Kptfile", "a.yaml"]);
    expect(blobs).toHaveLength(2);
  });

  it("a registry that fails is not remembered: the next pull asks again", async () => {
    const layer = await writeTarGz(
      new Map([["Kptfile", Buffer.from("apiVersion: kpt.dev/v1\nkind: Kptfile\n")]]),
    );
    const { client, blobs } = oneLayer(layer, true);
    const refused = new RefusedBlobs();
    await expect(pullPackage(client, "pkgs/hello", "v1", "/", { refused })).rejects.toThrow("HTTP 500");
    await expect(pullPackage(client, "pkgs/hello", "v1", "/", { refused })).rejects.toThrow("HTTP 500");
    expect(blobs).toHaveLength(2);
  });
});
