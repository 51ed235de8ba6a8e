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
 * A comment on a list item's `-` line, through a function that hands its ResourceList back as it got
 * it (an exec `cat`): kpt writes it above the `-` too, after the comment that stood there, and keeps it
 * after the `- ` only where none stood there. Each case: the lines after a resource's header, and the
 * bytes kpt v1.0.0-beta.56's `fn render` wrote with `exec: cat` as its one mutator.
 */
const HEADER = "apiVersion: v1\nkind: X\nmetadata:\n  name: x\n";
const BARE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n";

const CASES: [string, string, string][] = [
  [
    "no comment above: above the `-` and after it",
    "l:\n- # C1\n  image: a\n",
    "l:\n# C1\n- # C1\n  image: a\n",
  ],
  [
    "a comment above: after it, and no longer after the `-`",
    "l:\n# H\n- # C1\n  image: a\n",
    "l:\n# H\n# C1\n- image: a\n",
  ],
  [
    "a later item, with a comment above it",
    "l:\n- a: 1\n# H\n- # C1\n  image: a\n",
    "l:\n- a: 1\n# H\n# C1\n- image: a\n",
  ],
  [
    "a later item, none above it",
    "l:\n- a: 1\n- # C1\n  image: a\n",
    "l:\n- a: 1\n# C1\n- # C1\n  image: a\n",
  ],
  [
    "a wide list, the comment's lines under the `-` with it",
    "l:\n  - # C1\n    # C2\n    image: a\n",
    "l:\n  # C1\n  # C2\n  - # C1\n    # C2\n    image: a\n",
  ],
  [
    "written so already: what was above and what was after the `-` both above it",
    "l:\n# C1\n- # C1\n  image: a\n",
    "l:\n# C1\n# C1\n- image: a\n",
  ],
  [
    "an item of an item's list on its line stays as it is",
    "l:\n- - # C1\n    image: a\n",
    "l:\n- - # C1\n    image: a\n",
  ],
  ["over a list of scalars: above the `-` and after it", "l:\n- # C1\n  - y\n", "l:\n# C1\n- # C1\n  - y\n"],
  [
    "over a list of scalars, a comment above: the list then starts on the `-` line",
    "l:\n# H\n- # C1\n  - y\n",
    "l:\n# H\n# C1\n- - y\n",
  ],
  ["over a list of mappings: stays as it is", "l:\n- # C1\n  - a: 1\n", "l:\n- # C1\n  - a: 1\n"],
  ["over a list of lists: stays as it is", "l:\n- # C1\n  - - y\n", "l:\n- # C1\n  - - y\n"],
  ["over a list of flow lists: stays as it is", "l:\n- # C1\n  - [y]\n", "l:\n- # C1\n  - [y]\n"],
  [
    "a list within a list's item stays as it is (kubeflow's jwtRules[].outputClaimToHeaders)",
    "s:\n- o:\n  - a: 1\n  - # C1\n    image: a\n  p: 1\n",
    "s:\n- o:\n  - a: 1\n  - # C1\n    image: a\n  p: 1\n",
  ],
  [
    "deeper within a list's item, too",
    "m:\n  s:\n  - m:\n      o:\n      - # C1\n        - y\n",
    "m:\n  s:\n  - m:\n      o:\n      - # C1\n        - y\n",
  ],
];

/** Files a render with no function writes back byte for byte, as kpt does (the `-` a comment follows kept). */
const UNCHANGED = [
  "l:\n- # C1\n  - a: 1\n",
  "l:\n- # C1\n  - a: 1\n    b: 2\n",
  "l:\n- # C1\n  - - y\n",
  "l:\n- # C1\n  - - - y\n",
  "l:\n- - # C1\n    a: 1\n",
  "l:\n- - - # C1\n      a: 1\n",
  "l:\n# H\n- # C1\n  - a: 1\n",
];

const { work, kptfile, throughCat } = catTrip("dash-trip");

describe("a comment on a list item's `-` line through a function goes where kpt puts it", () => {
  it.each(CASES)("%s", async (_name, input, kpt) => {
    expect(await throughCat(HEADER + input)).toBe(HEADER + kpt);
  });
});

describe("a comment on the `-` line of a list of collections, with no function", () => {
  it.each(UNCHANGED)("%j is written back as it was", async (input) => {
    const out = await render(treeFromText({ Kptfile: BARE, "f.yaml": HEADER + input }), "", {
      registry: defaultRegistry(),
      run: DEFAULT_RUN_OPTIONS,
    });
    expect(out.ok, out.error?.message).toBe(true);
    expect(treeToText(out.tree)["f.yaml"]).toBe(HEADER + input);
  });
});

describe.skipIf(!hasKpt)("the expectations are what kpt writes", () => {
  it("matches kpt fn render, with `exec: cat` and with no function", () => {
    const dir = join(work, "kpt");
    mkdirSync(dir);
    writeFileSync(join(dir, "Kptfile"), BARE);
    const packages: [string, string, string][] = [
      ...CASES.map(([, input, kpt], i): [string, string, string] => [`c${i}`, input, kpt]),
      ...UNCHANGED.map((input, i): [string, string, string] => [`u${i}`, input, input]),
    ];
    for (const [name, input] of packages) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, "Kptfile"), name.startsWith("c") ? kptfile(name) : BARE);
      writeFileSync(join(dir, name, "f.yaml"), HEADER + input);
    }
    execFileSync("kpt", ["fn", "render", dir, "--allow-exec"], { stdio: "pipe" });
    for (const [name, input, kpt] of packages) {
      expect(readFileSync(join(dir, name, "f.yaml"), "utf8"), `${name}: ${JSON.stringify(input)}`).toBe(
        HEADER + kpt,
      );
    }
  });
});
