import { describe, expect, it } from "vitest";
import { skipWithoutKpt } from "../util/kpt.js";
import { withBoth } from "./fn-oracle.js";

const CM = (name: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  v: old\n`;
const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile # the package\nmetadata:\n  name: app # its name\n";
const PKG = { "pkg/Kptfile": KPTFILE, "pkg/cm.yaml": CM("one") };
const SED = "sed -e 's/v: old/v: new/'";

describe("fn eval flags, as kpt has them", () => {
  it("--save --type mutator adds the function to the Kptfile, keeping its comments", async (ctx) => {
    const { pl, kpt } = await withBoth(
      ["eval", "pkg", "-s", "-t", "mutator", "--exec", SED, "--match-kind", "ConfigMap"],
      PKG,
    );
    expect(pl.code).toBe(0);
    expect(pl.stderr).toContain(`Added "${SED}" as mutator in the Kptfile.\n`);
    expect(pl.files["pkg/Kptfile"]).toBe(
      `${KPTFILE}pipeline:\n  mutators:\n    - exec: 'sed -e ''s/v: old/v: new/'''\n      selectors:\n        - kind: ConfigMap\n`,
    );
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it("--save replaces the entry with the same function, as a validator with -t validator", async (ctx) => {
    const kptfile = `${KPTFILE}pipeline:\n  validators:\n  - exec: ./check.sh\n    configMap:\n      a: b\n`;
    const { pl, kpt } = await withBoth(
      ["eval", "pkg", "--save", "--type", "validator", "--exec", "./check.sh", "--", "x=z"],
      { "pkg/Kptfile": kptfile, "pkg/cm.yaml": CM("one"), "check.sh": "#!/bin/sh\ncat\n" },
    );
    expect(pl.stderr).toContain(`Updated "./check.sh" as validator in the Kptfile.\n`);
    expect(pl.files["pkg/Kptfile"]).toContain("    - exec: ./check.sh\n      configMap:\n        x: z\n");
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it("--save without a Kptfile runs the function and says it was not added", async (ctx) => {
    const { pl, kpt } = await withBoth(["eval", "pkg", "-s", "-t", "mutator", "--exec", SED], {
      "pkg/cm.yaml": CM("one"),
    });
    expect(pl.code).toBe(0);
    expect(pl.stderr).toContain("function not added: Kptfile not exists\n");
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it.for([
    [["--exec", SED, "-s"], "error: --type must be specified if saving functions to Kptfile (--save=true)"],
    [["--exec", SED, "-s", "-t", "both"], "error: --type must be either `mutator` or `validator`"],
    [
      ["--exec", SED, "--include-meta-resources"],
      "error: --include-meta-resources is no longer necessary because meta resources are now included by default",
    ],
    [[], "error: must specify --image or --exec"],
    [["extra", "--exec", SED], "error: 0 or 1 arguments supported, function arguments go after '--'"],
    [
      ["--exec", SED, "--fn-config", "c.yaml", "--", "a=b"],
      "error: function arguments can only be specified without function config file",
    ],
    [["--exec", SED, "--fn-config", "nope.yaml"], "error: missing function config file: nope.yaml"],
    [["--exec", SED, "--", "Kind", "a"], "error: args must have keys and values separated by ="],
    [
      ["--exec", "sed 's/a"],
      `error: exec command "sed 's/a" must be valid: EOF found when expecting closing quote`,
    ],
    [
      ["--exec", SED, "-o", "pkg"],
      'error: directory "pkg" already exists, please delete the directory and retry',
    ],
  ] as const)("refuses %j with kpt's text and exit code 1", async ([args, text], ctx) => {
    const { pl, kpt } = await withBoth(["eval", "pkg", ...args], { ...PKG, "c.yaml": CM("cfg") });
    expect(pl.code).toBe(1);
    expect(pl.stderr).toBe(`${text}\n`);
    expect(pl.files).toEqual({ ...PKG, "c.yaml": CM("cfg") });
    skipWithoutKpt(ctx);
    expect({ ...pl, stderr: pl.stderr.split("\n")[0] }).toEqual({
      ...kpt,
      stderr: kpt.stderr.split("\n")[0],
    });
  });

  it.for([
    [
      "bad.yaml",
      "I am not a valid config file\n",
      'failed to read functionConfig "<base>/bad.yaml": wrong node kind: expected MappingNode but got ScalarNode: node contents:\nI am not a valid config file\n',
    ],
    [
      "two.yaml",
      `${CM("a")}---\n${CM("b")}`,
      'functionConfig "<base>/two.yaml" must not contain more than one config, got 2\n',
    ],
    [
      "noname.yaml",
      "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n",
      'functionConfig "<base>/noname.yaml": resource must have `metadata.name`\n',
    ],
  ] as const)("refuses --fn-config %s with kpt's text", async ([file, text, message], ctx) => {
    const { pl, kpt } = await withBoth(["eval", "pkg", "--exec", SED, "--fn-config", file], {
      ...PKG,
      [file]: text,
    });
    expect(pl.code).toBe(1);
    expect(pl.stderr).toBe(`error: ${message}`);
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });
});
