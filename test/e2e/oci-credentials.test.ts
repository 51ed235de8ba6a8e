import { describe, expect, it } from "vitest";
import { RegistryClient } from "../../src/sources/oci/client.js";
import { OperatorCredentials } from "../../src/sources/oci/operator-credentials.js";
import { pushPackage } from "../../src/sources/oci/package.js";
import { hasRegistry, REGISTRY_MISSING, startRegistry, type TestRegistry } from "../util/registry.js";
import { editFile } from "./harness.js";
import { mirrorAccess, sourceVariant, useSourceWorld, webPackage } from "./source-world.js";

const b64 = (s: string) => Buffer.from(s).toString("base64");

/**
 * Fan-out from a private image with the operator's named credentials: the management repository reads
 * it with the login the operator allows it, and a configuration naming another's login is refused on the
 * dashboard, naming the field.
 */
describe.skipIf(!hasRegistry)(
  `fan-out reads a private image with the credential its repository may use ${REGISTRY_MISSING ?? ""}`,
  () => {
    let registry: TestRegistry;
    const owner = "acme";
    const rest = () => world.w.users.alice!.rest;
    const world = useSourceWorld(async (stopAfter) => {
      const login = { username: "acme-bot", password: "s3cret" };
      registry = await startRegistry({ login });
      stopAfter(() => registry.stop());
      await pushPackage(
        new RegistryClient(registry.host, { credentials: async () => login }),
        "private/web",
        "stable",
        webPackage({}),
        {},
      );
      const operator = OperatorCredentials.parse(
        `credentials:
  acme-local: {registry: "${registry.host}", auth: ${b64("acme-bot:s3cret")}, repositories: ["acme/*"]}
  other-local: {registry: "${registry.host}", auth: ${b64("other:x")}, repositories: ["other/*"]}
`,
        "registries.yaml",
      );
      return {
        variants: sourceVariant("web-01", `oci: oci://${registry.host}/private/web:stable`),
        mirror: mirrorAccess({ operator }),
        files: { ".github/porchlight.yml": `registries:\n  "${registry.host}": other-local\n` },
      };
    });

    it("naming a login the operator keeps for another owner: refused on the dashboard, naming the field", async () => {
      await world.sweep();
      expect(await world.dashboard()).toContain(
        `registries.${registry.host}: the app's operator does not allow acme/blueprints to use the credential "other-local"`,
      );
      const pulls = await rest().pulls.list({ owner, repo: "cluster-01", state: "open" });
      expect(pulls.data).toEqual([]);
    }, 120_000);

    it("naming none, the one the operator allows it reads the private image and fan-out clones it", async () => {
      await editFile(world.w, "acme/blueprints", ".github/porchlight.yml", () => "requiredApprovals: 1\n", {
        message: "use the default login",
      });
      await world.w.settle();
      await world.sweep();
      const pulls = await rest().pulls.list({ owner, repo: "cluster-01", state: "open" });
      expect(pulls.data.map((p) => p.title)).toEqual([
        expect.stringMatching(new RegExp(`^Clone oci://${registry.host}/private/web:stable \\(sha256:`)),
      ]);
    }, 120_000);
  },
);
