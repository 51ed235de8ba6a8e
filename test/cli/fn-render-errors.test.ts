import { describe, expect, it } from "vitest";
import { skipWithoutKpt } from "../util/kpt.js";
import { withBoth } from "./fn-oracle.js";

const CM = (name: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  tier: web\n`;
const KPTFILE = (configPath: string): string =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n    - exec: cat\n    - exec: cat\n      configPath: ${configPath}\n`;

describe("fn render's errors start with kpt's text", () => {
  it("a directory without a Kptfile", async (ctx) => {
    const { pl, kpt } = await withBoth(["render", "pkg"], { "pkg/cm.yaml": CM("a") });
    expect(pl.code).toBe(1);
    expect(pl.stderr).toBe('Error: No Kptfile found at "<base>/pkg". \n');
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it.for([
    ["a configPath with no file", "nope.yaml", {}, "functionConfig must exist in the current package"],
    [
      "a configPath into a subpackage",
      "db/cfg.yaml",
      {
        "pkg/db/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: db\n",
        "pkg/db/cfg.yaml": CM("cfg"),
      },
      "functionConfig must exist in the current package",
    ],
    [
      "a configPath with two resources",
      "two.yaml",
      { "pkg/two.yaml": `${CM("a")}---\n${CM("b")}` },
      'functionConfig "two.yaml" must not contain more than one config, got 2',
    ],
    ["an absolute configPath", "/etc/cfg.yaml", {}, "path must be relative"],
    ["a configPath outside the package", "../cfg.yaml", {}, "path must not be outside the package"],
  ] as const)(
    "%s: Kptfile is invalid, with kpt's field, value and reason",
    async ([_, configPath, extra, reason], ctx) => {
      const files = { "pkg/Kptfile": KPTFILE(configPath), "pkg/cm.yaml": CM("a"), ...extra };
      const { pl, kpt } = await withBoth(["render", "pkg", "--allow-exec"], files);
      expect(pl.code).toBe(1);
      const text = `Kptfile is invalid:\nField: \`pipeline.mutators[1].configPath\`\nValue: ${JSON.stringify(configPath)}\nReason: ${reason}\n`;
      expect(pl.stderr).toContain(text);
      expect(pl.files).toEqual(files);
      // kpt's text, then one line of porchlight's saying where; otherwise what kpt prints.
      skipWithoutKpt(ctx);
      {
        const withoutOurLine = pl.stderr.replace(/(Reason: [^\n]*\n)[^\n]*\n/, "$1");
        expect({ ...pl, stderr: withoutOurLine }).toEqual(kpt);
      }
    },
  );

  it.for([
    [
      "an unknown field",
      "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n    - exec: cat\n      targetResources: []\n",
      "yaml: unmarshal errors:\n  line 8: field targetResources not found in type v1.Function\n",
    ],
    [
      "a list where a string belongs",
      "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n  mutators:\n    - exec: cat\n      configMap:\n        envs:\n          - a\n",
      "yaml: unmarshal errors:\n  line 10: cannot unmarshal !!seq into string\n",
    ],
  ] as const)("a Kptfile with %s can't be read, in kpt's words", async ([_, kptfile, detail], ctx) => {
    const files = { "pkg/Kptfile": kptfile, "pkg/cm.yaml": CM("a") };
    const { pl, kpt } = await withBoth(["render", "pkg", "--allow-exec"], files);
    expect(pl.code).toBe(1);
    expect(pl.stderr).toContain(`Error: Kptfile at "<base>/pkg" can't be read.\n\nDetails:\n${detail}`);
    skipWithoutKpt(ctx);
    {
      const withoutOurLine = pl.stderr.replace(/(\n {2}line [^\n]*\n)[^\n]*\n$/, "$1");
      expect({ ...pl, stderr: withoutOurLine.replace(/\n$/, " \n") }).toEqual(kpt);
    }
  });
});

describe("fn render names a missing or wrong package directory, and a Kptfile of the wrong type, as kpt does", () => {
  it.for([
    [
      "a directory that does not exist",
      ["render", "pkg/nope/x"],
      {},
      "error: lstat pkg/nope: no such file or directory\n",
    ],
    [
      "a file where the package directory should be",
      ["render", "pkg/cm.yaml"],
      {},
      'Error: Kptfile at "<base>/pkg/cm.yaml" can\'t be read.\n\nDetails:\nopen <base>/pkg/cm.yaml/Kptfile: not a directory \n',
    ],
  ] as const)("%s", async ([, args, _, stderr], ctx) => {
    const { pl, kpt } = await withBoth([...args], { "pkg/cm.yaml": CM("a") });
    expect({ code: pl.code, stderr: pl.stderr }).toEqual({ code: 1, stderr });
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it.for([
    [
      "another kind",
      "apiVersion: kpt.dev/v1\nkind: Package\nmetadata:\n  name: app\n",
      'Kptfile at "<base>/pkg" has an unknown resource type ("kpt.dev/v1, Kind=Package").',
      "Kptfile:2:7 (field kind): a Kptfile has apiVersion kpt.dev/v1 and kind Kptfile",
    ],
    [
      "a version kpt never had",
      "apiVersion: kpt.dev/v2\nkind: Kptfile\nmetadata:\n  name: app\n",
      'Kptfile at "<base>/pkg" has an unknown resource type ("kpt.dev/v2, Kind=Kptfile").',
      "Kptfile:1:13 (field apiVersion): a Kptfile has apiVersion kpt.dev/v1",
    ],
    [
      "no apiVersion",
      "kind: Kptfile\nmetadata:\n  name: app\n",
      'Kptfile at "<base>/pkg" has an unknown resource type ("/, Kind=Kptfile").',
      "(field apiVersion): a Kptfile has apiVersion kpt.dev/v1",
    ],
    [
      "the first schema",
      "apiVersion: kpt.dev/v1alpha1\nkind: Kptfile\nmetadata:\n  name: app\n",
      'Kptfile at "<base>/pkg" has an old version ("v1alpha1") of the Kptfile schema.\nPlease update the package to the latest format by following https://kpt.dev/installation/migration.',
      "Kptfile:1:13 (field apiVersion): the Kptfile has an old version",
    ],
    [
      "the second schema",
      "apiVersion: kpt.dev/v1alpha2\nkind: Kptfile\nmetadata:\n  name: app\n",
      'Kptfile at "<base>/pkg" has an old version ("v1alpha2") of the Kptfile schema.\nPlease run "kpt fn eval <PKG_PATH> -i gcr.io/kpt-fn/fix:v0.2 --include-meta-resources" to upgrade the package and retry.',
      "Kptfile:1:13 (field apiVersion): the Kptfile has an old version",
    ],
    [
      "an empty Kptfile",
      "",
      'Kptfile at "<base>/pkg" can\'t be read.\n\nDetails:\nEOF',
      "Kptfile: the Kptfile is empty; it needs apiVersion kpt.dev/v1, kind Kptfile and metadata.name",
    ],
  ] as const)(
    "a Kptfile with %s: kpt's text, then porchlight's line naming the field",
    async ([, kptfile, text, ours], ctx) => {
      const files = { "pkg/Kptfile": kptfile, "pkg/cm.yaml": CM("a") };
      const { pl, kpt } = await withBoth(["render", "pkg"], files);
      expect(pl.code).toBe(1);
      expect(pl.stderr.startsWith(`Error: ${text}\n`)).toBe(true);
      expect(pl.stderr).toContain(ours);
      expect(pl.files).toEqual(files);
      skipWithoutKpt(ctx);
      expect({ ...pl, stderr: pl.stderr.replace(/\n[^\n]*\n$/, " \n") }).toEqual(kpt);
    },
  );
});
