import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { treeFromText } from "../../src/kpt/tree.js";
import { RegistryClient } from "../../src/sources/oci/client.js";
import { pushPackage } from "../../src/sources/oci/package.js";
import { type RpkgWorld, rpkgWorld } from "../cli/rpkg/world.js";
import { hasRegistry, REGISTRY_MISSING, startRegistry, type TestRegistry } from "../util/registry.js";

describe.skipIf(!hasRegistry)(`rpkg clone from an OCI image ${REGISTRY_MISSING ?? ""}`, () => {
  let w: RpkgWorld;
  let registry: TestRegistry;
  /** rpkg as alice, the operator allowing the test's registry (on loopback). */
  const rpkg = (args: string[]) => w.rpkg(w.alice, args, { env: { PORCHLIGHT_EGRESS_ALLOW: registry.host } });

  beforeAll(async () => {
    [w, registry] = await Promise.all([rpkgWorld(), startRegistry()]);
  });
  afterAll(async () => {
    await w?.stop();
    await registry?.stop();
  });

  it("creates a draft whose Kptfile records the image and the digest its tag resolved to", async () => {
    const { digest } = await pushPackage(
      new RegistryClient(registry.host),
      "blueprints/basens",
      "v2",
      treeFromText({
        Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n",
        "ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: example\n",
      }),
      {},
    );
    const source = `oci://${registry.host}/blueprints/basens:v2`;
    const r = await rpkg(["clone", source, "team-ns", "--repository=acme/deploy"]);
    expect(r.stderr).not.toContain("failed");
    expect(r).toMatchObject({ code: 0, stdout: "deploy.team-ns.v1 created\n" });

    const dir = join(w.tmp, "team-ns");
    await rpkg(["pull", "deploy.team-ns.v1", dir, "--repository=acme/deploy"]);
    const kf = parse(readFileSync(join(dir, "Kptfile"), "utf8"));
    expect(kf.metadata.name).toBe("team-ns");
    expect(kf.metadata.annotations).toEqual({
      "porchlight.dev/upstream": source,
      "porchlight.dev/upstream-lock": `oci://${registry.host}/blueprints/basens@${digest}`,
    });
    expect(readFileSync(join(dir, "ns.yaml"), "utf8")).toContain("name: example");
    // -o wide names the image and the tag it follows, as for a git upstream its repository and revision
    const wide = await rpkg(["get", "deploy.team-ns.v1", "-o", "wide", "--repository=acme/deploy"]);
    expect(wide.stdout).toMatch(
      new RegExp(
        `deploy\\.team-ns\\.v1 .* oci://${registry.host.replace(/\./g, "\\.")}/blueprints/basens +v2\\s*$`,
        "m",
      ),
    );

    const flags = await rpkg(["clone", source, "other", "--repository=acme/deploy", "--ref=v1"]);
    expect(flags.code).not.toBe(0);
    expect(flags.stderr).toContain("names its directory and version itself");
  });
});
