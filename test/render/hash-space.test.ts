import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultRegistry } from "../../src/fn/registry.js";
import { DEFAULT_RUN_OPTIONS } from "../../src/fn/runtime/types.js";
import { treeFromText, treeToText } from "../../src/kpt/tree.js";
import { render } from "../../src/render/render.js";
import { catTrip } from "./cat-trip.js";
import { hasKpt } from "./kpt-oracle.js";

/**
 * A comment that is `# ` (one space, nothing after it) keeps its space wherever it stands, as kpt
 * (yaml.v3) writes it back, with no function and through one; a bare `#` stays bare. Where kpt moves
 * the comment or drops a blank line, the case says so. The `yaml`
 * parser reads both as one space: porchlight wrote `#` for a nested one (`  a: 1 # `, `  # ` above a
 * key, `- # ` over an item, after a flow collection).
 */
const HEADER = "apiVersion: v1\nkind: X\nmetadata:\n  name: x\n";
const BARE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n";

/** [name, file, what kpt writes with no function, through `exec: cat`] (unset: the file as it was) */
const SHAPES: [string, string, string?, string?][] = [
  ["after a nested scalar", "m:\n  a: 1 # \n"],
  ["after a nested scalar, a bare one before it", "m:\n  a: 1 #\n  b: 1 # \n"],
  ["above a nested key", "m:\n  # \n  a: 1\n"],
  ["among other lines above a nested key", "m:\n  # x\n  # \n  #\n  a: 1\n"],
  [
    "after a blank line, above a key (the blank line goes, as kpt drops it)",
    "m:\n  a: 1\n\n  # \n  b: 1\n",
    "m:\n  a: 1\n  # \n  b: 1\n",
    "m:\n  a: 1\n  # \n  b: 1\n",
  ],
  [
    "on a list item's `-` line (through a function, above it too)",
    "l:\n- # \n  a: 1\n",
    undefined,
    "l:\n# \n- # \n  a: 1\n",
  ],
  ["above a list item", "l:\n# \n- a: 1\n"],
  ["after a list item's mapping", "l:\n- a: 1 # \n"],
  ["after flow collections", "m: [a] # \nn: {b: 1} # \n"],
  ["after a block scalar", "m:\n  a: |\n    x\n  # \n  b: 1\n"],
];

describe("a `# ` comment with no function", () => {
  it.each(SHAPES)("%s", async (_name, body, kpt = body) => {
    const out = await render(treeFromText({ Kptfile: BARE, "f.yaml": HEADER + body }), "", {
      registry: defaultRegistry(),
      run: DEFAULT_RUN_OPTIONS,
    });
    expect(out.ok, out.error?.message).toBe(true);
    expect(treeToText(out.tree)["f.yaml"]).toBe(HEADER + kpt);
  });
});

const cat = catTrip("hash-space");

describe("a `# ` comment through `exec: cat`", () => {
  it.each(SHAPES)("%s", async (_name, body, _none, kpt = body) => {
    expect(await cat.throughCat(HEADER + body)).toBe(HEADER + kpt);
  });
});

describe.skipIf(!hasKpt)("the expectations are what kpt writes", () => {
  it("with no function and with `exec: cat`", () => {
    const dir = join(cat.work, "kpt");
    mkdirSync(dir);
    writeFileSync(join(dir, "Kptfile"), BARE);
    SHAPES.forEach(([, body], i) => {
      for (const [name, kptfile] of [
        [`n${i}`, BARE],
        [`c${i}`, cat.kptfile(`c${i}`)],
      ] as const) {
        mkdirSync(join(dir, name));
        writeFileSync(join(dir, name, "Kptfile"), kptfile);
        writeFileSync(join(dir, name, "f.yaml"), HEADER + body);
      }
    });
    execFileSync("kpt", ["fn", "render", dir, "--allow-exec"], { stdio: "pipe" });
    SHAPES.forEach(([shape, body, none = body, throughCat = body], i) => {
      expect(readFileSync(join(dir, `n${i}`, "f.yaml"), "utf8"), `no function: ${shape}`).toBe(HEADER + none);
      expect(readFileSync(join(dir, `c${i}`, "f.yaml"), "utf8"), `exec: cat: ${shape}`).toBe(
        HEADER + throughCat,
      );
    });
  });
});
