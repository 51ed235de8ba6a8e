import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/resolve.js";
import { type MirrorAccess, mirrorRevision, sweepMirror } from "../../src/jobs/mirror/index.js";
import { noCredentials } from "../../src/sources/oci/credentials.js";
import { hasRegistry, REGISTRY_MISSING, startRegistry, type TestRegistry } from "../util/registry.js";
import { fakeRepoWith } from "./fake-repo.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n";

function skopeo(...args: string[]): string {
  return execFileSync("skopeo", args, { stdio: ["ignore", "pipe", "pipe"] }).toString();
}

describe.skipIf(!hasRegistry)(
  `mirror on publish (publish.oci) into a real registry ${REGISTRY_MISSING ?? ""}`,
  () => {
    let registry: TestRegistry;
    const requests: string[] = [];
    let access: MirrorAccess;

    beforeAll(async () => {
      registry = await startRegistry();
      access = {
        credentials: noCredentials,
        serverUrl: "https://github.example.com",
        fetch: (input, init) => {
          requests.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname}`);
          return fetch(input, init);
        },
      };
    });
    afterAll(() => registry?.stop());

    const setup = () => {
      const port = fakeRepoWith({
        "basens/Kptfile": KPTFILE,
        "basens/ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: example\n",
      });
      const commit = port.refs.get("refs/heads/main") as string;
      port.refs.set("refs/tags/basens/v1", commit);
      const config = { ...defaultConfig(), publish: { oci: { repository: `${registry.host}/mirror/acme` } } };
      return { ctx: { port, config, log: pino({ level: "silent" }) }, commit };
    };

    it("pushes <package>:vN that skopeo reads back with the annotations and digest, and pushes it once", async () => {
      const { ctx, commit } = setup();
      const first = await mirrorRevision(ctx, access, { package: "basens", revision: 1, commit });
      expect(first).toMatchObject({ image: `${registry.host}/mirror/acme/basens:v1`, pushed: true });

      const ref = `docker://${registry.host}/mirror/acme/basens:v1`;
      const raw = skopeo("inspect", "--raw", "--tls-verify=false", ref);
      expect(`sha256:${createHash("sha256").update(raw).digest("hex")}`).toBe(first?.digest);
      expect(JSON.parse(raw).annotations).toEqual({
        "org.opencontainers.image.revision": commit,
        "org.opencontainers.image.source": "https://github.example.com/acme/blueprints",
        "org.opencontainers.image.title": "basens",
        "org.opencontainers.image.version": "v1",
      });
      expect(JSON.parse(skopeo("inspect", "--tls-verify=false", ref)).Digest).toBe(first?.digest);

      requests.length = 0;
      const again = await mirrorRevision(ctx, access, { package: "basens", revision: 1, commit });
      expect(again).toMatchObject({ digest: first?.digest, pushed: false });
      expect(requests.filter((r) => r.startsWith("PUT") || r.startsWith("POST"))).toEqual([]);
    });

    it("the sweep pushes a latest revision missing from the registry, then checks it with one HEAD", async () => {
      const { ctx, commit } = setup();
      const v2 = ctx.port.commit("main", {
        "basens/Kptfile": KPTFILE,
        "basens/ns.yaml": "kind: Namespace\n",
      });
      ctx.port.refs.set("refs/tags/basens/v2", v2);
      expect(commit).not.toBe(v2);
      const swept = await sweepMirror(ctx, access);
      expect(swept.map((r) => r.image)).toEqual([`${registry.host}/mirror/acme/basens:v2`]);

      requests.length = 0;
      expect(await sweepMirror(ctx, access)).toEqual([]);
      expect(requests).toEqual(["HEAD /v2/mirror/acme/basens/manifests/v2"]);
    });

    it("mounts the blobs of a package alike another already mirrored, instead of uploading them; else uploads", async () => {
      const files = {
        Kptfile: KPTFILE,
        "ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: mounted\n",
      };
      const port = fakeRepoWith({
        ...Object.fromEntries(Object.entries(files).map(([p, t]) => [`ns-a/${p}`, t])),
        ...Object.fromEntries(Object.entries(files).map(([p, t]) => [`ns-b/${p}`, t])),
        ...Object.fromEntries(Object.entries(files).map(([p, t]) => [`ns-c/${p}`, t])),
      });
      const commit = port.refs.get("refs/heads/main") as string;
      for (const pkg of ["ns-a", "ns-b", "ns-c"]) port.refs.set(`refs/tags/${pkg}/v1`, commit);
      const config = { ...defaultConfig(), publish: { oci: { repository: `${registry.host}/mount/acme` } } };
      const ctx = { port, config, log: pino({ level: "silent" }) };
      const log: string[] = [];
      const logged: MirrorAccess = {
        ...access,
        fetch: async (input, init) => {
          const url = new URL(String(input));
          const res = await fetch(input, init);
          log.push(`${init?.method ?? "GET"} ${url.pathname}${url.search} ${res.status}`);
          return res;
        },
      };
      // ns-a first: its siblings have never been mirrored, so the mount is declined (202) and it uploads
      await mirrorRevision(ctx, logged, { package: "ns-a", revision: 1, commit });
      const posts = log.filter((l) => l.startsWith("POST"));
      expect(posts).toHaveLength(2);
      for (const post of posts) {
        expect(post).toMatch(
          /^POST \/v2\/mount\/acme\/ns-a\/blobs\/uploads\/\?mount=sha256%3A[0-9a-f]{64}&from=mount%2Facme%2Fns-b 202$/,
        );
      }
      expect(log.filter((l) => l.startsWith("PUT") && l.includes("/blobs/uploads/"))).toHaveLength(2);

      // ns-b holds the same files: both blobs mounted from ns-a, nothing uploaded
      log.length = 0;
      const b = await mirrorRevision(ctx, logged, { package: "ns-b", revision: 1, commit });
      expect(
        log.filter((l) => l.startsWith("POST")).map((l) => l.replace(/sha256%3A[0-9a-f]{64}/, "D")),
      ).toEqual([
        "POST /v2/mount/acme/ns-b/blobs/uploads/?mount=D&from=mount%2Facme%2Fns-a 201",
        "POST /v2/mount/acme/ns-b/blobs/uploads/?mount=D&from=mount%2Facme%2Fns-a 201",
      ]);
      expect(log.filter((l) => l.startsWith("PUT")).map((l) => l.split("?")[0])).toEqual([
        "PUT /v2/mount/acme/ns-b/manifests/v1 201",
      ]);
      // what was mounted reads back: skopeo reads the config blob and the manifest
      const inspected = JSON.parse(
        skopeo("inspect", "--tls-verify=false", `docker://${registry.host}/mount/acme/ns-b:v1`),
      );
      expect(inspected.Digest).toBe(b?.digest);
      expect(inspected.Layers).toHaveLength(1);
    });

    it("does nothing without publish.oci", async () => {
      const { ctx, commit } = setup();
      const none = { ...ctx, config: defaultConfig() };
      expect(await mirrorRevision(none, access, { package: "basens", revision: 1, commit })).toBeUndefined();
      expect(await sweepMirror(none, access)).toEqual([]);
    });
  },
);
