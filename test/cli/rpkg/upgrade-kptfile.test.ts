import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { useRpkgWorld } from "./world.js";

const B = "--repository=acme/blueprints";
const D = "--repository=acme/deploy";

/** The Kptfile's `metadata:` block, as text: its keys and their order. */
const metadata = (kptfile: string) => /\nmetadata:\n((?: {2}.*\n)+)/.exec(kptfile)?.[1];

/**
 * Issue 40: `rpkg upgrade` reordered the Kptfile's metadata. The downstream's own metadata (a namespace,
 * labels and an annotation it added) comes out of an upgrade with its keys where they were.
 */
describe("rpkg upgrade and the downstream's Kptfile", () => {
  const w = useRpkgWorld();

  const edit = async (name: string, repo: string, change: (dir: string) => void) => {
    const dir = join(w.tmp, `${name}-edit`);
    expect((await w.rpkg(w.alice, ["pull", name, dir, repo])).code).toBe(0);
    change(dir);
    expect((await w.rpkg(w.alice, ["push", name, dir, repo])).code).toBe(0);
  };
  const kptfile = async (name: string) => {
    const dir = join(w.tmp, `${name}-read`);
    expect((await w.rpkg(w.alice, ["pull", name, dir, D])).code).toBe(0);
    return readFileSync(join(dir, "Kptfile"), "utf8");
  };

  it("keeps its metadata's keys and their order", async () => {
    const cm = (a: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: '${a}'\n`;
    expect((await w.rpkg(w.alice, ["init", "app", B, "--workspace=w1"])).code).toBe(0);
    await edit("blueprints.app.w1", B, (dir) => writeFileSync(join(dir, "cm.yaml"), cm("1")));
    expect((await w.publish("acme/blueprints", "blueprints.app.w1")).code).toBe(0);
    expect((await w.rpkg(w.alice, ["clone", "blueprints.app.w1", "app", D, "--workspace=c1"])).code).toBe(0);
    await edit("deploy.app.c1", D, (dir) => {
      const doc = parseDocument(readFileSync(join(dir, "Kptfile"), "utf8"));
      doc.setIn(["metadata", "labels", "env"], "prod");
      doc.setIn(["metadata", "namespace"], "prod");
      doc.setIn(["metadata", "annotations", "owner"], "sre");
      writeFileSync(join(dir, "Kptfile"), doc.toString());
    });
    expect((await w.publish("acme/deploy", "deploy.app.c1")).code).toBe(0);
    expect((await w.rpkg(w.alice, ["copy", "blueprints.app.w1", B, "--workspace=w2"])).code).toBe(0);
    await edit("blueprints.app.w2", B, (dir) => writeFileSync(join(dir, "cm.yaml"), cm("2")));
    expect((await w.publish("acme/blueprints", "blueprints.app.w2")).code).toBe(0);
    const before = await kptfile("deploy.app.c1");

    const up = await w.rpkg(w.alice, ["upgrade", "deploy.app.c1", D, "--workspace=up"]);
    expect(up).toMatchObject({ code: 0, stdout: "deploy.app.c1 upgraded to deploy.app.up\n" });

    const after = await kptfile("deploy.app.up");
    expect(metadata(before)).toContain("owner: sre");
    expect(metadata(after)).toBe(metadata(before));
    expect(after).toContain("ref: app/v2");
  });
});
