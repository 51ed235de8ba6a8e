import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SOURCES_BRANCH } from "../../src/jobs/fanout/source-store.js";
import type { MirrorAccess } from "../../src/jobs/mirror/index.js";
import { writeTarGz } from "../../src/sources/tar.js";
import { TarballCache } from "../../src/sources/tarball-fetch.js";
import { parseVariantPullRequestBody } from "../../src/variants/index.js";
import {
  settingsWith as cm,
  mirrorAccess,
  serveLoopback,
  sourceVariant,
  useSourceWorld,
  webPackage,
} from "./source-world.js";

const archive = (files: Record<string, string>) => writeTarGz(webPackage(files));
const sha = (b: Buffer) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

/**
 * Fan-out from tarball upstreams, through the forge and a tarball server on loopback (plain http, as for
 * registries): one variant follows a URL whose content changes (checked with one conditional request per
 * run, updated when the sha256 of the bytes changes, 3-way merged against the content fan-out kept), one
 * is pinned by sha256 (never asked again). A run with nothing new writes nothing.
 */
describe("fan-out from a tarball upstream, through the forge and an http server on loopback", () => {
  let base = "";
  let body: Buffer = Buffer.alloc(0);
  /** What the server was asked: `GET /web.tar.gz 200` or `… 304`. */
  const served: string[] = [];
  const owner = "acme";
  const rest = () => world.w.users.alice!.rest;
  const url = () => `${base}/web.tar.gz`;
  let first = "";
  let access: MirrorAccess;
  const world = useSourceWorld(async (stopAfter) => {
    body = await archive({ "cm.yaml": cm({ a: "1", v: "1" }) });
    first = sha(body);
    const server = await serveLoopback((req, res) => {
      const etag = `"${sha(body).slice(7, 23)}"`;
      if (req.headers["if-none-match"] === etag) {
        served.push(`${req.method} ${req.url} 304`);
        res.writeHead(304, { etag }).end();
        return;
      }
      served.push(`${req.method} ${req.url} 200`);
      if (req.url !== "/web.tar.gz") return void res.writeHead(404).end();
      res.writeHead(200, { etag, "content-type": "application/gzip" }).end(body);
    });
    stopAfter(server.close);
    base = server.base;
    access = mirrorAccess({ tarballs: new TarballCache() });
    return {
      variants: [
        sourceVariant("web-01", `tarball: ${base}/web.tar.gz`),
        sourceVariant("pinned-01", `tarball: ${base}/web.tar.gz#sha256=${first.slice(7)}`, "pinned"),
      ].join("---\n"),
      mirror: access,
    };
  });

  it("clones the tarball into each downstream, the Kptfile locked at the sha256 of its bytes", async () => {
    await world.sweep();
    const pulls = await world.openPulls();
    expect(pulls.map((p) => p.title)).toEqual([
      `Clone ${url()}#sha256=${first.slice(7)} (${first.slice(0, 19)}) into pinned`,
      `Clone ${url()} (${first.slice(0, 19)}) into web`,
    ]);
    const web = pulls[1]!;
    expect(web.body).toContain(`from the tarball \`${url()}\``);
    expect(parseVariantPullRequestBody(web.body)).toMatchObject({
      kind: "clone",
      to: first,
      source: url(),
      management: "acme/blueprints",
    });
    const kptfile = await world.file("web/Kptfile", web.head.ref);
    expect(kptfile).toContain(`porchlight.dev/upstream: ${url()}`);
    expect(kptfile).toContain(`porchlight.dev/upstream-lock: ${url()}#sha256=${first.slice(7)}`);
    // The unpinned URL's content is kept, as the original of the next update; the pinned one needs none.
    const kept = await rest().git.getTree({
      owner,
      repo: "cluster-01",
      tree_sha: SOURCES_BRANCH,
      recursive: "1",
    });
    expect(
      kept.data.tree
        .filter((t) => t.type === "blob")
        .map((t) => t.path)
        .sort(),
    ).toEqual([`${first.slice(7)}/Kptfile`, `${first.slice(7)}/cm.yaml`]);
    for (const pr of pulls) {
      await rest().pulls.merge({ owner, repo: "cluster-01", pull_number: pr.number, sha: pr.head.sha });
    }
    await world.w.settle();
  }, 120_000);

  it("a run with the content unchanged asks once, conditionally (304), and writes nothing", async () => {
    // the runs after the merges rewrite the dashboard: the clones merged, then published downstream
    await world.sweep();
    await world.sweep();
    expect(await world.sweepLogging(served)).toEqual({ logged: ["GET /web.tar.gz 304"], writes: 0 });
    expect(await world.openPulls()).toEqual([]);

    // The validators live in memory: a restarted bot downloads once, finds the same digest, writes nothing.
    access.tarballs = new TarballCache();
    expect(await world.sweepLogging(served)).toEqual({ logged: ["GET /web.tar.gz 200"], writes: 0 });
  }, 120_000);

  it("new content at the URL: an update whose 3-way merge keeps the downstream's edits; the pinned variant stays", async () => {
    await world.editFile("web/cm.yaml", (text) => text.replace('v: "1"', 'v: "1"\n  local: "yes"'));
    body = await archive({ "cm.yaml": cm({ a: "1", v: "2" }), "extra.yaml": cm({ b: "2" }) });
    const second = sha(body);

    served.length = 0;
    await world.sweep();
    // one read of the URL (the new bytes); the original comes from the kept copy, not the server. The
    // fan-outs the new pull request's finished checks ask for only revalidate it (304, no body).
    expect(served[0]).toBe("GET /web.tar.gz 200");
    expect(served.slice(1).filter((r) => r !== "GET /web.tar.gz 304")).toEqual([]);
    const pulls = await world.openPulls();
    expect(pulls.map((p) => p.title)).toEqual([
      `Update web to ${url()} (${first.slice(0, 19)} → ${second.slice(0, 19)})`,
    ]);
    const pr = pulls[0]!;
    expect(parseVariantPullRequestBody(pr.body)).toMatchObject({ kind: "update", from: first, to: second });
    const merged = await world.file("web/cm.yaml", pr.head.ref);
    expect(merged).toContain('local: "yes"');
    expect(merged).toContain('v: "2"');
    expect(await world.file("web/extra.yaml", pr.head.ref)).toContain('b: "2"');
    expect(await world.file("web/Kptfile", pr.head.ref)).toContain(
      `porchlight.dev/upstream-lock: ${url()}#sha256=${second.slice(7)}`,
    );
    expect(await world.file("pinned/cm.yaml")).toContain('v: "1"');

    // The same state again: the open pull request already proposes it; one 304, no write.
    expect(await world.sweepLogging(served)).toEqual({ logged: ["GET /web.tar.gz 304"], writes: 0 });
  }, 120_000);

  it("closed, it is not proposed again; reopened, fan-out takes it up at once, without waiting for a sweep", async () => {
    const dashboardRow = async () => {
      const [issue] = (
        await rest().issues.listForRepo({ owner, repo: "blueprints", labels: "porchlight/dashboard" })
      ).data;
      return (issue?.body ?? "").split("\n").find((l) => l.startsWith("| cluster-01/web ")) ?? "";
    };
    const [pr] = await world.openPulls();
    await rest().pulls.update({ owner, repo: "cluster-01", pull_number: pr!.number, state: "closed" });
    await world.w.settle();
    await world.sweep();
    expect(await world.openPulls()).toEqual([]);
    expect(await dashboardRow()).toContain(`skipped: #${pr!.number} closed`);
    await rest().pulls.update({ owner, repo: "cluster-01", pull_number: pr!.number, state: "open" });
    await world.w.settle(); // the reopened webhook only: no sweep
    expect(await dashboardRow()).toContain(`waiting for approval: pull request #${pr!.number} proposes`);
  }, 120_000);
});
