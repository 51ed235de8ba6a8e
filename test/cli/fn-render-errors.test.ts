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
