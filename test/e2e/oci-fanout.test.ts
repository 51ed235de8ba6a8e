import { describe, expect, it } from "vitest";
import { RegistryClient } from "../../src/sources/oci/client.js";
import { pushPackage } from "../../src/sources/oci/package.js";
import { parseVariantPullRequestBody } from "../../src/variants/index.js";
import { hasRegistry, REGISTRY_MISSING, startRegistry, type TestRegistry } from "../util/registry.js";
import {
  settingsWith as cm,
  webPackage as image,
  mirrorAccess,
  sourceVariant,
  useSourceWorld,
} from "./source-world.js";

/**
 * Fan-out from an OCI upstream, through the forge and a real registry: a PackageVariant following
 * `oci://…:stable` clones the image into its downstream with a pull request; a sweep with the tag
 * unchanged sends one manifest request and writes nothing; the tag moved to a new image gives an update
 * pull request whose 3-way merge keeps the downstream's own edits.
 */
describe.skipIf(!hasRegistry)(
  `fan-out from an OCI upstream, through the forge and a real registry ${REGISTRY_MISSING ?? ""}`,
  () => {
    let registry: TestRegistry;
    const requests: string[] = [];
    const owner = "acme";
    const rest = () => world.w.users.alice!.rest;
    const source = () => `oci://${registry.host}/blueprints/web:stable`;
    const push = (files: Record<string, string>) =>
      pushPackage(new RegistryClient(registry.host), "blueprints/web", "stable", image(files), {});
    let first = "";
    const world = useSourceWorld(async (stopAfter) => {
      registry = await startRegistry();
      stopAfter(() => registry.stop());
      first = (await push({ "cm.yaml": cm({ a: "1", v: "1" }) })).digest;
      const mirror = mirrorAccess({
        fetch: async (input, init) => {
          requests.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname}`);
          return fetch(input, init);
        },
      });
      return {
        variants: sourceVariant("web-01", `oci: oci://${registry.host}/blueprints/web:stable`),
        mirror,
      };
    });

    it("clones the image the tag points to into the downstream, with a pull request naming source, tag and digest", async () => {
      await world.sweep();
      const pulls = await world.openPulls();
      expect(pulls.map((p) => p.title)).toEqual([`Clone ${source()} (${first.slice(0, 19)}) into web`]);
      const pr = pulls[0]!;
      expect(pr.body).toContain(`\`${source()}\``);
      expect(pr.body).toContain(first);
      expect(parseVariantPullRequestBody(pr.body)).toMatchObject({
        kind: "clone",
        to: first,
        source: source(),
      });
      const kptfile = await world.file("web/Kptfile", pr.head.ref);
      expect(kptfile).toContain(`porchlight.dev/upstream: ${source()}`);
      expect(kptfile).toContain(
        `porchlight.dev/upstream-lock: oci://${registry.host}/blueprints/web@${first}`,
      );
      expect(kptfile).toContain("porchlight.dev/package-variant: web-01");
      expect(kptfile).not.toContain("upstreamLock");
      expect(await world.file("web/cm.yaml", pr.head.ref)).toContain('v: "1"');
      await rest().pulls.merge({ owner, repo: "cluster-01", pull_number: pr.number, sha: pr.head.sha });
      await world.w.settle();
    }, 120_000);

    it("the merged clone is published in the downstream and the management dashboard shows it at once, with no sweep", async () => {
      const tags = (await rest().repos.listTags({ owner, repo: "cluster-01" })).data.map((t) => t.name);
      expect(tags).toContain("web/v1");
      const board = await world.dashboard();
      const row = board.split("\n").find((l) => l.startsWith("| cluster-01/web "));
      expect(row).toBeDefined();
      // The Published column names the downstream's own revision, written by the run the publish started.
      expect(row?.split("|")[4]?.trim()).toMatch(/v1/);
    }, 120_000);

    it("a sweep with the tag unchanged sends one manifest request and writes nothing", async () => {
      await world.sweep(); // the first run after the merge rewrites the pull request's state: merged
      expect(await world.sweepLogging(requests)).toEqual({
        logged: ["HEAD /v2/blueprints/web/manifests/stable"],
        writes: 0,
      });
      expect(await world.openPulls()).toEqual([]);
    }, 120_000);

    it("the tag moved to a new image: an update pull request, the 3-way merge keeping the downstream's edits", async () => {
      await world.editFile("web/cm.yaml", (text) => text.replace('v: "1"', 'v: "1"\n  local: "yes"'));
      const second = (await push({ "cm.yaml": cm({ a: "1", v: "2" }), "extra.yaml": cm({ b: "2" }) })).digest;
      expect(second).not.toBe(first);

      requests.length = 0;
      await world.sweep();
      expect(requests[0]).toBe("HEAD /v2/blueprints/web/manifests/stable");
      // both images by digest: the new one, and the original of the 3-way merge the lock names
      expect(requests).toContain(`GET /v2/blueprints/web/manifests/${second}`);
      expect(requests).toContain(`GET /v2/blueprints/web/manifests/${first}`);
      const pulls = await world.openPulls();
      expect(pulls.map((p) => p.title)).toEqual([
        `Update web to ${source()} (${first.slice(0, 19)} → ${second.slice(0, 19)})`,
      ]);
      const pr = pulls[0]!;
      expect(parseVariantPullRequestBody(pr.body)).toMatchObject({ kind: "update", from: first, to: second });
      expect(pr.body).toContain(second);
      const merged = await world.file("web/cm.yaml", pr.head.ref);
      expect(merged).toContain('local: "yes"');
      expect(merged).toContain('v: "2"');
      expect(await world.file("web/extra.yaml", pr.head.ref)).toContain('b: "2"');
      expect(await world.file("web/Kptfile", pr.head.ref)).toContain(
        `porchlight.dev/upstream-lock: oci://${registry.host}/blueprints/web@${second}`,
      );

      // The same state again: the open pull request already proposes it.
      expect(await world.sweepLogging(requests)).toEqual({
        logged: ["HEAD /v2/blueprints/web/manifests/stable"],
        writes: 0,
      });
    }, 120_000);
  },
);
