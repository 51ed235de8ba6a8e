import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { catTrip } from "./cat-trip.js";
import { type KptCase, kptCases } from "./kpt-cases.js";

/**
 * A wide list's foot, then the root mapping's foot, ending a document (`  - a` / `  # n` / `# end`). kpt
 * writes the resource to a function with the list compact, both feet at the item's column and a blank
 * line between them (yaml.v3 writes one after a block's foot before what follows at its column), and
 * reads the root's foot back as the item's: written once. porchlight wrote no blank line there, and
 * read the foot back as a document's, then wrote it twice.
 */
const NEXT = "---\napiVersion: v1\nkind: Y\nmetadata:\n  name: y\n";
const CASES: KptCase[] = [
  ["ending the file", "k:\n  - a\n  # n\n# end\n"],
  ["a compact list's", "k:\n- a\n# n\n# end\n"],
  ["with a blank line between", "k:\n- a\n# n\n\n# end\n"],
  ["a mapping's foot, then another document", `k:\n  a: 1\n  # n\n# end\n${NEXT}`],
];

kptCases("a list's foot, then the document's last comment", CASES);

describe("the ResourceList the function gets", () => {
  const seen = catTrip("document-feet-rl", 'tee "$(dirname "$0")/rl.yaml"');
  it("holds both feet at the item's column, a blank line between them, as kpt writes it", async () => {
    await seen.throughCat("apiVersion: v1\nkind: X\nmetadata:\n  name: x\nk:\n  - a\n  # n\n# end\n");
    const rl = readFileSync(join(seen.work, "rl.yaml"), "utf8");
    expect(rl.endsWith("  k:\n  - a\n  # n\n\n  # end\n")).toBe(true);
  });
});
