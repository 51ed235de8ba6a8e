import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTarGz } from "../../src/sources/tar.js";
import { fetchTarball, TarballCache } from "../../src/sources/tarball-fetch.js";

describe("watching a tarball with conditional requests", () => {
  let server: Server;
  let base = "";
  let body: Buffer = Buffer.alloc(0);
  let headers: Record<string, string> = {};
  const seen: { url?: string; inm?: string; ims?: string }[] = [];
  beforeAll(async () => {
    body = await writeTarGz(new Map([["Kptfile", Buffer.from("kind: Kptfile\n")]]));
    server = createServer((req, res) => {
      seen.push({
        ...(req.url ? { url: req.url } : {}),
        ...(req.headers["if-none-match"] ? { inm: String(req.headers["if-none-match"]) } : {}),
        ...(req.headers["if-modified-since"] ? { ims: String(req.headers["if-modified-since"]) } : {}),
      });
      if (
        (headers.etag && req.headers["if-none-match"] === headers.etag) ||
        (headers["last-modified"] && req.headers["if-modified-since"] === headers["last-modified"])
      ) {
        return void res.writeHead(304).end();
      }
      res.writeHead(200, headers).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("asks with If-None-Match once the ETag is known, and a 304 gives the same digest and files", async () => {
    headers = { etag: '"v1"' };
    seen.length = 0;
    const cache = new TarballCache();
    const a = await fetchTarball(`${base}/a.tar.gz`, { cache });
    const b = await fetchTarball(`${base}/a.tar.gz`, { cache });
    expect(seen).toEqual([{ url: "/a.tar.gz" }, { url: "/a.tar.gz", inm: '"v1"' }]);
    expect(b).toMatchObject({ digest: a.digest, notModified: true });
    expect([...b.tree.keys()]).toEqual(["Kptfile"]);
  });

  it("falls back to If-Modified-Since, and without validators hashes the bytes every time", async () => {
    headers = { "last-modified": "Mon, 23 Nov 2026 10:00:00 GMT" };
    seen.length = 0;
    const cache = new TarballCache();
    await fetchTarball(`${base}/b.tar.gz`, { cache });
    expect((await fetchTarball(`${base}/b.tar.gz`, { cache })).notModified).toBe(true);
    expect(seen[1]).toEqual({ url: "/b.tar.gz", ims: "Mon, 23 Nov 2026 10:00:00 GMT" });
    headers = {};
    const first = await fetchTarball(`${base}/c.tar.gz`, { cache });
    const again = await fetchTarball(`${base}/c.tar.gz`, { cache });
    expect(again).toMatchObject({ digest: first.digest, notModified: false });
  });

  it("new validators for the same bytes give the same digest; new bytes a new one", async () => {
    const cache = new TarballCache();
    headers = { etag: '"x1"' };
    const a = await fetchTarball(`${base}/d.tar.gz`, { cache });
    headers = { etag: '"x2"' };
    expect((await fetchTarball(`${base}/d.tar.gz`, { cache })).digest).toBe(a.digest);
    body = await writeTarGz(new Map([["Kptfile", Buffer.from("kind: Kptfile # v2\n")]]));
    headers = { etag: '"x3"' };
    expect((await fetchTarball(`${base}/d.tar.gz`, { cache })).digest).not.toBe(a.digest);
  });

  it("forgets the oldest URL past its byte budget, and then reads it in full again", async () => {
    headers = { etag: '"e"' };
    const cache = new TarballCache(body.length + 10);
    await fetchTarball(`${base}/e1.tar.gz`, { cache });
    await fetchTarball(`${base}/e2.tar.gz`, { cache });
    expect(cache.get(`${base}/e1.tar.gz`)).toBeUndefined();
    seen.length = 0;
    expect((await fetchTarball(`${base}/e1.tar.gz`, { cache })).notModified).toBe(false);
    expect(seen).toEqual([{ url: "/e1.tar.gz" }]);
  });
});
