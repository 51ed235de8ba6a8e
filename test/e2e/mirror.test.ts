import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MirrorAccess } from "../../src/jobs/mirror/index.js";
import { RegistryClient } from "../../src/sources/oci/client.js";
import { noCredentials } from "../../src/sources/oci/credentials.js";
import { pullPackage } from "../../src/sources/oci/package.js";
import { hasRegistry, REGISTRY_MISSING, startRegistry, type TestRegistry } from "../util/registry.js";
import { startWorld, sweep, type World } from "./harness.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n";
const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;

/**
 * publish.oci end to end: a proposal approved on the forge is merged and tagged, and the bot pushes
 * the revision to a real registry; a registry down at publish time gets the revision on the next
 * sweep; a sweep with nothing missing sends one HEAD per package and writes nothing.
 */
describe.skipIf(!hasRegistry)(
  `mirror on publish, through the forge and a real registry ${REGISTRY_MISSING ?? ""}`,
  () => {
    let w: World;
    let registry: TestRegistry;
    let down = false;
    const requests: string[] = [];
    const tags = async () =>
      Object.fromEntries(
        (
          await w.users.alice!.rest.git.listMatchingRefs({ owner: "acme", repo: "blueprints", ref: "tags/" })
        ).data.map((r) => [r.ref.slice(10), r.object.sha]),
      );
    const inspect = (tag: string) =>
      JSON.parse(
        execFileSync(
          "skopeo",
          ["inspect", "--raw", "--tls-verify=false", `docker://${registry.host}/mirror/apps/web:${tag}`],
          {
            stdio: ["ignore", "pipe", "pipe"],
          },
        ).toString(),
      );

    beforeAll(async () => {
      registry = await startRegistry();
      const mirror: MirrorAccess = {
        credentials: noCredentials,
        serverUrl: "https://github.com",
        fetch: async (input, init) => {
          if (down) throw new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED") });
          requests.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname}`);
          return fetch(input, init);
        },
      };
      w = await startWorld(
        {
          ".github/porchlight.yml": `publish:\n  oci:\n    repository: ${registry.host}/mirror\n`,
          "apps/web/Kptfile": KPTFILE,
          "apps/web/cm.yaml": cm("web"),
        },
        { mirror },
      );
    });
    afterAll(async () => {
      await w?.stop();
      await registry?.stop();
    });

    it("pushes apps/web:v1 on publish, with the tag's files and its commit in the annotations", async () => {
      const { number } = await w.propose("drafts/apps/web/first", { "apps/web/extra.yaml": cm("extra") });
      expect(await w.say("bob", number, "/approve")).toContain("`apps/web/v1`");
      await w.settle();
      const commit = (await tags())["apps/web/v1"];
      expect(inspect("v1").annotations).toEqual({
        "org.opencontainers.image.revision": commit,
        "org.opencontainers.image.source": "https://github.com/acme/blueprints",
        "org.opencontainers.image.title": "apps/web",
        "org.opencontainers.image.version": "v1",
      });
      const pulled = await pullPackage(new RegistryClient(registry.host), "mirror/apps/web", "v1", "/");
      expect([...pulled.tree.keys()].sort()).toEqual(["Kptfile", "cm.yaml", "extra.yaml"]);
    });

    it("a registry down at publish time gets the revision on the next sweep; a sweep after that only asks", async () => {
      down = true;
      const { number } = await w.propose("drafts/apps/web/second", { "apps/web/more.yaml": cm("more") });
      expect(await w.say("bob", number, "/approve")).toContain("`apps/web/v2`");
      await w.settle();
      down = false;
      expect(Object.keys(await tags()).sort()).toEqual(["apps/web/v1", "apps/web/v2"]);
      await expect(
        new RegistryClient(registry.host).digestOf("mirror/apps/web", "v2"),
      ).resolves.toBeUndefined();

      await sweep(w);
      expect(inspect("v2").annotations["org.opencontainers.image.revision"]).toBe(
        (await tags())["apps/web/v2"],
      );

      requests.length = 0;
      await sweep(w);
      expect(requests).toEqual(["HEAD /v2/mirror/apps/web/manifests/v2"]);
    });
  },
);
