import { describe, expect, it } from "vitest";
import { skipWithoutKpt } from "../util/kpt.js";
import { withBoth } from "./fn-oracle.js";

const CM = (name: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  v: old\n`;
const PKG = {
  "pkg/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n",
  "pkg/.krmignore": "ignored.yaml\n",
  "pkg/ignored.yaml": CM("ignored"),
  "pkg/cms.yaml": `${CM("one")}---\n${CM("two")}`,
  "pkg/sub/deploy.yaml":
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: a\n",
};

describe("fn source, fn sink and fn eval -", () => {
  it("fn source writes the package as a ResourceList, as kpt does", async (ctx) => {
    const { pl, kpt } = await withBoth(["source", "pkg"], PKG);
    expect(pl.code).toBe(0);
    expect(pl.stdout).toContain("      config.kubernetes.io/path: 'cms.yaml'\n");
    expect(pl.stdout).not.toContain("ignored");
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it("fn source -o unwrap writes plain YAML", async (ctx) => {
    const { pl, kpt } = await withBoth(["source", "pkg", "-o", "unwrap"], PKG);
    expect(pl.stdout).not.toContain("config.kubernetes.io");
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it("fn source | fn eval - | fn sink writes the edited package to a new directory", async (ctx) => {
    const source = await withBoth(["source", "pkg"], PKG);
    const evaluated = await withBoth(
      ["eval", "-", "--exec", "sed -e 's/v: old/v: new/'"],
      {},
      source.kpt.stdout,
    );
    expect(evaluated.pl.stdout).toContain("v: new");
    const sunk = await withBoth(["sink", "out"], {}, evaluated.pl.stdout);
    expect(sunk.pl.code).toBe(0);
    expect(sunk.pl.files["out/cms.yaml"]).toBe(`${CM("one")}---\n${CM("two")}`.replaceAll("old", "new"));
    expect(sunk.pl.files["out/sub/deploy.yaml"]).toBe(PKG["pkg/sub/deploy.yaml"]);
    skipWithoutKpt(ctx);
    expect(evaluated.pl).toEqual(evaluated.kpt);
    expect(sunk.pl).toEqual(sunk.kpt);
  });

  it("fn eval - keeps a ResourceList's items as they came: no path added, comments where they were", async (ctx) => {
    const list = [
      "apiVersion: config.kubernetes.io/v1",
      "kind: ResourceList",
      "items:",
      "# license",
      "#",
      "# of a",
      "- apiVersion: v1",
      "  kind: ConfigMap",
      "  metadata:",
      "    name: a",
      "- # of b's first key",
      "  apiVersion: v1",
      "  kind: ConfigMap",
      "  metadata:",
      "    name: b",
      "    namespace: x",
      "    annotations:",
      "      foo: bar",
      "",
    ].join("\n");
    const { pl, kpt } = await withBoth(["eval", "-", "--exec", "cat"], {}, list);
    expect(pl.code).toBe(0);
    expect(pl.stdout).toBe(list);
    skipWithoutKpt(ctx);
    expect(pl.stdout).toBe(kpt.stdout);
  });

  it("fn sink refuses a directory that exists", async (ctx) => {
    const { pl, kpt } = await withBoth(
      ["sink", "pkg"],
      PKG,
      "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n",
    );
    expect(pl.code).toBe(1);
    expect(pl.stderr).toBe('error: directory "pkg" already exists, please delete the directory and retry\n');
    skipWithoutKpt(ctx);
    expect({ ...pl, stderr: pl.stderr.split("\n")[0] }).toEqual({
      ...kpt,
      stderr: kpt.stderr.split("\n")[0],
    });
  });
});
