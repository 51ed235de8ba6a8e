import { describe, expect, it } from "vitest";
import { skipWithoutKpt } from "../util/kpt.js";
import { withBoth } from "./fn-oracle.js";

const CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n";
const KPTFILE = (name: string, exec: string): string =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\npipeline:\n  mutators:\n    - exec: "${exec}"\n`;

describe("where fn render puts what a function moved, as kpt does", () => {
  it("an absolute path lands below the package", async (ctx) => {
    const { pl, kpt } = await withBoth(["render", "pkg", "--allow-exec"], {
      "pkg/Kptfile": KPTFILE("app", "sed -e s|'cm.yaml'|'/another/out.yaml'|"),
      "pkg/cm.yaml": CM,
    });
    expect(pl.code).toBe(0);
    expect(pl.files["pkg/another/out.yaml"]).toBe(CM);
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it("a subpackage's resource may not climb to its parent", async (ctx) => {
    const { pl, kpt } = await withBoth(["render", "pkg", "--allow-exec"], {
      "pkg/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n",
      "pkg/db/Kptfile": KPTFILE("db", "sed -e s|'cm.yaml'|'../up.yaml'|"),
      "pkg/db/cm.yaml": CM,
    });
    expect(pl.code).toBe(1);
    expect(pl.stderr).toContain(
      "Error: function must not modify resources outside of package: resource has path ../up.yaml \n",
    );
    expect(pl.files["pkg/up.yaml"]).toBeUndefined();
    skipWithoutKpt(ctx);
    expect(pl.files).toEqual(kpt.files);
  });
});
