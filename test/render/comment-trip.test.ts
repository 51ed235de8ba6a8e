import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { catTrip } from "./cat-trip.js";
import { hasKpt } from "./kpt-oracle.js";

/**
 * Comment lines after a nested block, through a function that hands its ResourceList back as it got it
 * (an exec `cat`). kpt reads the function's output back and gives each node the input's comment only
 * where the output's node has none (kyaml's copyFieldComments): a foot the trip split (the first piece
 * the last value's, the rest before the next key) is not written again, whole, from the input. A foot
 * the trip gave to another node is written twice, the second after a blank line. Each case: the lines
 * after a resource's header, and the bytes kpt v1.0.0-beta.56's `fn render` wrote with `exec: cat` as
 * its one mutator (rook's StorageClasses, the GKE samples' `# [END …]` with no final line break).
 */
const HEADER = "apiVersion: v1\nkind: X\nmetadata:\n  name: x\n";

const CASES: [string, string, string][] = [
  [
    "a nested mapping's foot of two pieces after a blank line: the first stays, the second moves out",
    "p:\n  a: 1\n\n  # A\n\n  # B\nr: 1\n",
    "p:\n  a: 1\n  # A\n# B\n\nr: 1\n",
  ],
  [
    "three pieces: the later two before the next key, the blank lines between them kept",
    "p:\n  a: 1\n\n  # A\n\n  # B\n\n  # C\nr: 1\n",
    "p:\n  a: 1\n  # A\n# B\n\n# C\n\nr: 1\n",
  ],
  [
    "the foot of the entry before a key, held apart from the key's head: written again where it was",
    "m:\n  l1:\n  - v1\n # c0\n\n  # c2\n  s2: x2\n",
    "m:\n  l1:\n  - v1\n  # c0\n\n  # c0\n\n  # c2\n  s2: x2\n",
  ],
  [
    "no final line break, the last comment a list item's mapping's foot: twice, a blank line between",
    "spec:\n  c:\n  - n: 1\n    args:\n    - x\n# END",
    "spec:\n  c:\n  - n: 1\n    args:\n    - x\n    # END\n\n    # END\n",
  ],
  [
    "the same in a mapping: twice, a blank line between (as before)",
    "spec:\n  c:\n    n: 1\n    args:\n    - x\n# END",
    "spec:\n  c:\n    n: 1\n    args:\n    - x\n    # END\n\n    # END\n",
  ],
];

const { work, kptfile, throughCat } = catTrip("comment-trip");

describe("comments after a nested block through a function go where kpt puts them", () => {
  it.each(CASES)("%s", async (_name, input, kpt) => {
    expect(await throughCat(HEADER + input)).toBe(HEADER + kpt);
  });
});

describe("a resource's head comment through a function", () => {
  it("keeps a `# ` line's space (kustomize's license headers end in `# `)", async () => {
    // kpt v1.0.0-beta.56 writes it back as it was; porchlight's reading of the function's output
    // trimmed the line, and the input's comment no longer overwrites the output's
    const input = `# Copyright\n# \n${HEADER}`;
    expect(await throughCat(input)).toBe(input);
  });
});

describe.skipIf(!hasKpt)("the cases' expectations are what kpt writes", () => {
  it("matches a kpt fn render with `exec: cat`", () => {
    const dir = join(work, "kpt");
    mkdirSync(dir);
    writeFileSync(join(dir, "Kptfile"), "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: root\n");
    CASES.forEach(([, input], i) => {
      mkdirSync(join(dir, `c${i}`));
      writeFileSync(join(dir, `c${i}`, "Kptfile"), kptfile(`c${i}`));
      writeFileSync(join(dir, `c${i}`, "f.yaml"), HEADER + input);
    });
    execFileSync("kpt", ["fn", "render", dir, "--allow-exec"], { stdio: "pipe" });
    CASES.forEach(([name, , kpt], i) => {
      expect(readFileSync(join(dir, `c${i}`, "f.yaml"), "utf8"), name).toBe(HEADER + kpt);
    });
  });
});
