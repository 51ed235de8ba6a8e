import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { skipWithoutKpt } from "../util/kpt.js";
import { withBoth } from "./fn-oracle.js";

const CM = (name: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  v: old\n`;
const KPTFILE = (name: string): string =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n`;
const SED = ["--exec", "sed -e 's/v: old/v: new/'"];

describe("what fn eval reads", () => {
  it("skips what .krmignore names, each subpackage by its own .krmignore", async (ctx) => {
    const { pl, kpt } = await withBoth(["eval", "pkg", ...SED], {
      "pkg/.krmignore": ".expected\nskip.yaml\n",
      "pkg/.expected/config.yaml": "exitCode: 1\n",
      "pkg/skip.yaml": CM("skip"),
      "pkg/keep.yaml": CM("keep"),
      "pkg/sub/Kptfile": KPTFILE("sub"),
      "pkg/sub/skip.yaml": CM("sub-skip"),
    });
    expect(pl.code).toBe(0);
    expect(pl.files["pkg/skip.yaml"]).toContain("v: old");
    expect(pl.files["pkg/keep.yaml"]).toContain("v: new");
    expect(pl.files["pkg/sub/skip.yaml"]).toContain("v: new");
    expect(pl.files["pkg/.expected/config.yaml"]).toBe("exitCode: 1\n");
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it("hands kustomization.yaml to the function although it is not KRM, as kpt does", async (ctx) => {
    const { pl, kpt } = await withBoth(["eval", "pkg", ...SED], {
      "pkg/kustomization.yaml": "metadata:\n  name: k\nresources:\n- cm.yaml\n",
      "pkg/cm.yaml": CM("one"),
    });
    expect(pl.code).toBe(0);
    expect(pl.files["pkg/cm.yaml"]).toContain("v: new");
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it("reads a package given through a symbolic link, with kpt's warning", async (ctx) => {
    const { pl, kpt } = await withBoth(["eval", "link", ...SED], { "pkg/cm.yaml": CM("one") }, "", (base) => {
      symlinkSync("./pkg", join(base, "link"));
    });
    expect(pl.code).toBe(0);
    expect(pl.stderr).toContain(
      '[WARN] resolved symlink "link" to "pkg", please note that the symlinks within the package are ignored\n',
    );
    expect(pl.files["pkg/cm.yaml"]).toContain("v: new");
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });
});
