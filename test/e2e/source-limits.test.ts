import { describe, expect, it } from "vitest";
import { RegistryClient } from "../../src/sources/oci/client.js";
import { pushPackage } from "../../src/sources/oci/package.js";
import { RefusedBlobs } from "../../src/sources/oci/refused-blobs.js";
import { writeTarGz } from "../../src/sources/tar.js";
import { TarballCache } from "../../src/sources/tarball-fetch.js";
import { hasRegistry, startRegistry } from "../util/registry.js";
import {
  settingsWith as cm,
  mirrorAccess,
  serveLoopback,
  sourceVariant,
  useSourceWorld,
  webPackage,
} from "./source-world.js";

/** The management repository lowers the package limits, as a repository may (docs/config.md "Limits"). */
const CONFIG = "limits:\n  packageFiles: 5\n  packageBytes: 4096\n";
/** A package of 8 files (the Kptfile and seven ConfigMaps): over `packageFiles`. */
const MANY = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`cm-${i}.yaml`, cm({ i: String(i) })]));
/** A package of 2 files, one of 10,000 bytes: over `packageBytes`. */
const BIG = { "big.yaml": cm({ blob: "x".repeat(10_000) }) };

/**
 * An upstream that is an OCI image or a tarball is read within the package limits before fan-out builds
 * or pushes anything: a package over a limit is a problem on the dashboard naming the limit, the figure
 * and the setting, the downstream gets no branch and no pull request; a refused image layer is not
 * downloaded again by the next run.
 */
describe("fan-out from an image or a tarball over the package limits", () => {
  let base = "";
  const requests: string[] = [];
  const bodies = new Map<string, Buffer>();
  const world = useSourceWorld(async (stopAfter) => {
    bodies.set("/many.tar.gz", await writeTarGz(webPackage(MANY)));
    bodies.set("/big.tar.gz", await writeTarGz(webPackage(BIG)));
    const server = await serveLoopback((req, res) => {
      const body = bodies.get(req.url ?? "");
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "application/gzip" }).end(body);
    });
    stopAfter(server.close);
    base = server.base;
    const variants = [
      sourceVariant("many-01", `tarball: ${base}/many.tar.gz`, "many"),
      sourceVariant("big-01", `tarball: ${base}/big.tar.gz`, "big"),
    ];
    if (hasRegistry) {
      const registry = await startRegistry();
      stopAfter(() => registry.stop());
      await pushPackage(new RegistryClient(registry.host), "blueprints/many", "stable", webPackage(MANY), {});
      variants.push(sourceVariant("image-01", `oci: oci://${registry.host}/blueprints/many:stable`, "image"));
    }
    const mirror = mirrorAccess({
      tarballs: new TarballCache(),
      refusedBlobs: new RefusedBlobs(),
      fetch: async (input, init) => {
        requests.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname}`);
        return fetch(input, init);
      },
    });
    return { variants: variants.join("---\n"), mirror, files: { ".github/porchlight.yml": CONFIG } };
  });

  const rowOf = (board: string, pkg: string) =>
    board.split("\n").find((l) => l.startsWith(`| cluster-01/${pkg} `));
  const branches = async () =>
    (await world.w.users.alice!.rest.repos.listBranches({ owner: "acme", repo: "cluster-01" })).data.map(
      (b) => b.name,
    );

  it("a tarball over packageFiles or packageBytes: the dashboard names the limit and the setting; nothing is pushed", async () => {
    await world.sweep();
    const board = await world.dashboard();
    expect(rowOf(board, "many")).toContain(
      `reading the upstream tarball ${base}/many.tar.gz: \`${base}/many.tar.gz\`: holds 8 files, more than the limit of 5 files per package (\`packageFiles\`); split the package into smaller ones, or this repository set it: raise \`limits.packageFiles\` in .github/porchlight.yml; nothing was pushed`,
    );
    expect(rowOf(board, "big")).toMatch(
      /holds 10,\d{3} bytes, more than the limit of 4,096 bytes per package \(`packageBytes`\); .*raise `limits.packageBytes` in .github\/porchlight.yml; nothing was pushed/,
    );
    expect(await world.openPulls()).toEqual([]);
    // no variant branch, and no kept copy of the content: nothing reached the downstream
    expect(await branches()).toEqual(["main"]);
    expect(world.w.forge.errors).toEqual([]);
  }, 120_000);

  it.skipIf(!hasRegistry)(
    "an image over packageFiles: the same problem, and its layer is not downloaded again by the next run",
    async () => {
      const board = await world.dashboard();
      const row = rowOf(board, "image");
      expect(row).toContain(
        "holds 8 files, more than the limit of 5 files per package (`packageFiles`); split the package into smaller ones, or this repository set it: raise `limits.packageFiles` in .github/porchlight.yml; nothing was pushed",
      );
      expect(requests.some((r) => r.startsWith("GET /v2/blueprints/many/blobs/"))).toBe(true);
      requests.length = 0;
      await world.sweep();
      expect(requests.filter((r) => r.includes("/blobs/"))).toEqual([]);
      expect(rowOf(await world.dashboard(), "image")).toContain("(`packageFiles`)");
      expect(await world.openPulls()).toEqual([]);
      expect(await branches()).toEqual(["main"]);
    },
    120_000,
  );
});
