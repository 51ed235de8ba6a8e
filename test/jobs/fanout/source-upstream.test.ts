import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FanoutStepError } from "../../../src/jobs/fanout/context.js";
import type { RepoSnapshot } from "../../../src/jobs/fanout/snapshot.js";
import { resolveSourceUpstreams, sourceUpstream } from "../../../src/jobs/fanout/source-upstream.js";
import type { RegistryAccess } from "../../../src/jobs/mirror/index.js";
import { RegistryClient } from "../../../src/sources/oci/client.js";
import { noCredentials } from "../../../src/sources/oci/credentials.js";
import { pushPackage } from "../../../src/sources/oci/package.js";
import type { FanoutAction } from "../../../src/variants/index.js";
import {
  freePort,
  hasRegistry,
  REGISTRY_MISSING,
  startRegistry,
  type TestRegistry,
} from "../../util/registry.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n";
const tree = (v: string) =>
  new Map([
    ["Kptfile", Buffer.from(KPTFILE)],
    ["cm.yaml", Buffer.from(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  v: "${v}"\n`)],
  ]);

describe.skipIf(!hasRegistry)(
  `OCI upstreams of fan-out, against a real registry ${REGISTRY_MISSING ?? ""}`,
  () => {
    let registry: TestRegistry;
    let digest = "";
    const requests: string[] = [];
    const access: RegistryAccess = {
      credentials: noCredentials,
      fetch: async (input, init) => {
        requests.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname}`);
        return fetch(input, init);
      },
    };
    beforeAll(async () => {
      registry = await startRegistry();
      digest = (await pushPackage(new RegistryClient(registry.host), "pkgs/web", "stable", tree("1"), {}))
        .digest;
    });
    afterAll(async () => {
      await registry?.stop();
    });

    it("asks once per image, however many variants follow it; a pinned digest is not asked", async () => {
      requests.length = 0;
      const host = registry.host;
      const index = await resolveSourceUpstreams(
        [
          { oci: `oci://${host}/pkgs/web:stable` },
          { oci: `oci://${host}/pkgs/web//sub:stable` },
          { oci: `oci://${host}/pkgs/web@sha256:${"0".repeat(64)}` },
          { repo: "blueprints", package: "basens", revision: "v1" },
        ],
        access,
      );
      expect(index).toEqual({ [`${host}/pkgs/web:stable`]: { digest } });
      expect(requests).toEqual(["HEAD /v2/pkgs/web/manifests/stable"]);
    });

    it("a missing tag and an unreachable registry are problems of their variants, not errors of the run", async () => {
      const down = `127.0.0.1:${await freePort()}`;
      const index = await resolveSourceUpstreams(
        [{ oci: `oci://${registry.host}/pkgs/web:nope` }, { oci: `oci://${down}/pkgs/web:stable` }],
        access,
      );
      expect(index[`${registry.host}/pkgs/web:nope`]).toEqual({
        problem: `oci://${registry.host}/pkgs/web:nope does not exist: the registry has no tag nope in pkgs/web`,
      });
      expect(index[`${down}/pkgs/web:stable`]).toMatchObject({
        problem: expect.stringMatching(new RegExp(`^cannot resolve oci://${down}/pkgs/web:stable: `)),
      });
    });

    it("an update whose locked image is gone from the registry stops that variant with both references", async () => {
      const action = {
        kind: "update",
        from: `sha256:${"1".repeat(64)}`,
        to: digest,
        toCommit: digest,
        source: { source: `oci://${registry.host}/pkgs/web:stable`, digest },
      } as Extract<FanoutAction, { kind: "update" }> & { source: { source: string; digest: string } };
      const source = sourceUpstream(action, {} as RepoSnapshot, access, new Map());
      expect([...(await source.target()).keys()].sort()).toEqual(["Kptfile", "cm.yaml"]);
      const local = new Map([
        [
          "Kptfile",
          Buffer.from(
            `${KPTFILE}  annotations:\n    porchlight.dev/upstream: oci://${registry.host}/pkgs/web:stable\n    porchlight.dev/upstream-lock: oci://${registry.host}/pkgs/web@sha256:${"1".repeat(64)}\n`,
          ),
        ],
      ]);
      const failed = source.original(local, "cluster-01/web");
      await expect(failed).rejects.toBeInstanceOf(FanoutStepError);
      await expect(failed).rejects.toThrow(
        `reading the image the downstream was fetched from, oci://${registry.host}/pkgs/web@sha256:${"1".repeat(64)}`,
      );
    });
  },
);
