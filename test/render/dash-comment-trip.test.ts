import { describe, expect, it } from "vitest";
import { catTrip } from "./cat-trip.js";

/**
 * A comment on a list item's `-` line, through a function that hands its ResourceList back as it got
 * it (an exec `cat`): kpt writes it above the `-` too, after the comment that stood there, and keeps it
 * after the `- ` only where none stood there. Each case: the lines after a resource's header, and the
 * bytes kpt v1.0.0-beta.56's `fn render` wrote with `exec: cat` as its one mutator.
 */
const HEADER = "apiVersion: v1\nkind: X\nmetadata:\n  name: x\n";

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
];

const { throughCat } = catTrip("dash-trip");

describe("a comment on a list item's `-` line through a function goes where kpt puts it", () => {
  it.each(CASES)("%s", async (_name, input, kpt) => {
    expect(await throughCat(HEADER + input)).toBe(HEADER + kpt);
  });
});
