import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { treeFromText } from "../../src/kpt/tree.js";
import { RegistryClient } from "../../src/sources/oci/client.js";
import { pushPackage } from "../../src/sources/oci/package.js";
import { writeTarGz } from "../../src/sources/tar.js";
import { type RpkgWorld, rpkgWorld } from "../cli/rpkg/world.js";
import { type FileServer, serveFiles } from "../util/file-server.js";
import { hasRegistry, REGISTRY_MISSING, startRegistry, type TestRegistry } from "../util/registry.js";

const DOWN = "--repository=acme/deploy";
const files = (color: string) => ({
  Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n",
  "cm.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  color: ${color}\n  size: small\n`,
});

/**
 * `rpkg upgrade` of a package cloned from an image or a tarball: a new draft with what the source holds
 * now, 3-way merged into the published downstream's own changes, as for a package cloned from git.
 */
describe("rpkg upgrade of a package cloned from an OCI image or a tarball", () => {
  let w: RpkgWorld;
  let registry: TestRegistry | undefined;
  let server: FileServer;
  const served = new Map<string, Buffer>();
  let base = "";
  /** rpkg as alice, the operator allowing the test's tarball server and registry (both on loopback). */
  const rpkg = (args: string[]) =>
    w.rpkg(w.alice, args, {
      env: { PORCHLIGHT_EGRESS_ALLOW: [new URL(base).host, registry?.host ?? ""].join(" ") },
    });

  /** Clones SOURCE as PKG, changes its size to large (a downstream edit), publishes it as v1. */
  const cloneEditPublish = async (source: string, pkg: string) => {
    const cloned = await rpkg(["clone", source, pkg, DOWN, "--workspace=first"]);
    expect(cloned.stderr).not.toContain("failed");
    expect(cloned.code).toBe(0);
    const dir = join(w.tmp, `${pkg}-edit`);
    expect((await rpkg(["pull", `deploy.${pkg}.first`, dir, DOWN])).code).toBe(0);
    const cm = join(dir, "cm.yaml");
    writeFileSync(cm, readFileSync(cm, "utf8").replace("size: small", "size: large"));
    expect((await rpkg(["push", `deploy.${pkg}.first`, dir, DOWN])).code).toBe(0);
    expect((await w.publish("acme/deploy", `deploy.${pkg}.first`)).code).toBe(0);
  };
  const pulled = async (name: string) => {
    const dir = join(w.tmp, `${name}-pulled`);
    expect((await rpkg(["pull", name, dir, DOWN])).code).toBe(0);
    return {
      cm: readFileSync(join(dir, "cm.yaml"), "utf8"),
      annotations: parse(readFileSync(join(dir, "Kptfile"), "utf8")).metadata.annotations,
    };
  };

  beforeAll(async () => {
    [w, registry] = await Promise.all([rpkgWorld(), hasRegistry ? startRegistry() : undefined]);
    server = await serveFiles(served);
    base = server.base;
  });
  afterAll(async () => {
    await w?.stop();
    await registry?.stop();
    await server?.close();
  });

  it.skipIf(!hasRegistry)(
    `an image: the tag resolved again, merged into the downstream's edits ${REGISTRY_MISSING ?? ""}`,
    async () => {
      const host = (registry as TestRegistry).host;
      const push = (color: string) =>
        pushPackage(new RegistryClient(host), "blueprints/web", "stable", treeFromText(files(color)), {});
      const first = (await push("blue")).digest;
      const source = `oci://${host}/blueprints/web:stable`;
      await cloneEditPublish(source, "web");

      const same = await rpkg(["upgrade", "web/v1", "--workspace=same", DOWN]);
      expect(same).toMatchObject({
        code: 0,
        stdout: "deploy.web.first is up to date with its upstream; no draft created\n",
      });
      const revision = await rpkg(["upgrade", "web/v1", "--workspace=x", "--revision=2", DOWN]);
      expect(revision.code).toBe(2);
      expect(revision.stderr).toContain("which has no package revisions: name a tag, digest or tarball URL");

      const second = (await push("green")).digest;
      const r = await rpkg(["upgrade", "web/v1", "--workspace=up", DOWN]);
      expect(r.stderr).not.toContain("failed");
      expect(r).toMatchObject({ code: 0, stdout: "deploy.web.first upgraded to deploy.web.up\n" });
      const up = await pulled("deploy.web.up");
      expect(up.cm).toContain("color: green");
      expect(up.cm).toContain("size: large");
      expect(up.annotations).toEqual({
        "porchlight.dev/upstream": source,
        "porchlight.dev/upstream-lock": `oci://${host}/blueprints/web@${second}`,
      });

      // --ref: back to the first image, by digest
      const back = await rpkg(["upgrade", "web/v1", "--workspace=back", `--ref=${first}`, DOWN]);
      expect(back.stdout).toBe("deploy.web.first is up to date with its upstream; no draft created\n");
    },
  );

  it("a tarball: another URL with --ref, merged against the content the lock names", async () => {
    served.set("/web-1.tar.gz", await writeTarGz(treeFromText(files("blue"))));
    await cloneEditPublish(`${base}/web-1.tar.gz`, "site");
    served.set("/web-2.tar.gz", await writeTarGz(treeFromText(files("red"))));

    const none = await rpkg(["upgrade", "site/v1", "--workspace=none", DOWN]);
    expect(none.stdout).toBe("deploy.site.first is up to date with its upstream; no draft created\n");
    const r = await rpkg(["upgrade", "site/v1", "--workspace=up", `--ref=${base}/web-2.tar.gz`, DOWN]);
    expect(r.stderr).not.toContain("failed");
    expect(r).toMatchObject({ code: 0, stdout: "deploy.site.first upgraded to deploy.site.up\n" });
    const up = await pulled("deploy.site.up");
    expect(up.cm).toContain("color: red");
    expect(up.cm).toContain("size: large");
    expect(up.annotations["porchlight.dev/upstream"]).toBe(`${base}/web-2.tar.gz`);
    expect(up.annotations["porchlight.dev/upstream-lock"]).toMatch(
      new RegExp(`^${base}/web-2.tar.gz#sha256=[0-9a-f]{64}$`),
    );

    // The original gone from its URL: refused with what to do, nothing pushed.
    served.delete("/web-1.tar.gz");
    const gone = await rpkg(["upgrade", "site/v1", "--workspace=gone", `--ref=${base}/web-2.tar.gz`, DOWN]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`upgrading site/v1 from ${base}/web-1.tar.gz: cannot download`);
  });
});
