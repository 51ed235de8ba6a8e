import { describe, expect, it } from "vitest";
import { skipWithoutKpt } from "../util/kpt.js";
import { withBoth } from "./fn-oracle.js";

const PKG = {
  "pkg/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n",
  "pkg/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n",
};

describe("a bad flag to fn render, eval, source or sink is refused in kpt's words", () => {
  it.for([
    [["render", "pkg", "--bogus"], "error: unknown flag: --bogus"],
    [["render", "pkg", "--results-dir"], "error: flag needs an argument: --results-dir"],
    [
      ["render", "pkg", "--truncate-output=maybe"],
      'error: invalid argument "maybe" for "--truncate-output" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    ],
    [["eval", "pkg", "--image"], "error: flag needs an argument: --image"],
    [["eval", "pkg", "-i"], "error: flag needs an argument: 'i' in -i"],
    [["eval", "pkg", "-z"], "error: unknown shorthand flag: 'z' in -z"],
    [["eval", "pkg", "-sx"], "error: unknown shorthand flag: 'x' in -x"],
    [
      ["eval", "pkg", "-s=maybe"],
      'error: invalid argument "maybe" for "-s, --save" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    ],
    [
      ["render", "pkg", "-h=x"],
      'error: invalid argument "x" for "-h, --help" flag: strconv.ParseBool: parsing "x": invalid syntax',
    ],
    [["source", "pkg", "--bogus"], "error: unknown flag: --bogus"],
    [["sink", "out", "--bogus"], "error: unknown flag: --bogus"],
  ] as const)("%j → %s, exit 1, nothing written", async ([args, text], ctx) => {
    const { pl, kpt } = await withBoth([...args], PKG);
    expect(pl.code).toBe(1);
    expect(pl.stderr).toBe(`${text}\n`);
    expect(pl.files).toEqual(PKG);
    skipWithoutKpt(ctx);
    expect(pl).toEqual(kpt);
  });

  it("takes the value after a value flag even when it looks like a flag, as pflag does", async (ctx) => {
    const { pl, kpt } = await withBoth(["eval", "pkg", "--exec", "--results-dir"], PKG);
    expect(pl.code).toBe(1);
    expect(pl.stderr).not.toContain("flag needs an argument");
    skipWithoutKpt(ctx);
    expect(pl.code).toBe(kpt.code);
  });
});
