import { type KptCase, kptCases } from "./kpt-cases.js";

/**
 * A comment on a list item's `-` line, with no function and through a function that hands its
 * ResourceList back as it got it (an exec `cat`): through it kpt writes the comment above the `-` too,
 * after the comment that stood there, and keeps it after the `- ` only where none stood there. Each
 * case: the lines after a resource's header, and the bytes kpt v1.0.0-beta.56's `fn render` wrote.
 */
const CASES: KptCase[] = [
  [
    "no comment above: above the `-` and after it",
    "l:\n- # C1\n  image: a\n",
    undefined,
    "l:\n# C1\n- # C1\n  image: a\n",
  ],
  [
    "a comment above: after it, and no longer after the `-`",
    "l:\n# H\n- # C1\n  image: a\n",
    undefined,
    "l:\n# H\n# C1\n- image: a\n",
  ],
  [
    "a later item, with a comment above it",
    "l:\n- a: 1\n# H\n- # C1\n  image: a\n",
    undefined,
    "l:\n- a: 1\n# H\n# C1\n- image: a\n",
  ],
  [
    "a later item, none above it",
    "l:\n- a: 1\n- # C1\n  image: a\n",
    undefined,
    "l:\n- a: 1\n# C1\n- # C1\n  image: a\n",
  ],
  [
    "a wide list, the comment's lines under the `-` with it",
    "l:\n  - # C1\n    # C2\n    image: a\n",
    undefined,
    "l:\n  # C1\n  # C2\n  - # C1\n    # C2\n    image: a\n",
  ],
  [
    "written so already: what was above and what was after the `-` both above it",
    "l:\n# C1\n- # C1\n  image: a\n",
    undefined,
    "l:\n# C1\n# C1\n- image: a\n",
  ],
  [
    "an item of an item's list on its line stays as it is",
    "l:\n- - # C1\n    image: a\n",
    undefined,
    "l:\n- - # C1\n    image: a\n",
  ],
  [
    "over a list of scalars: above the `-` and after it",
    "l:\n- # C1\n  - y\n",
    undefined,
    "l:\n# C1\n- # C1\n  - y\n",
  ],
  [
    "over a list of scalars, a comment above: the list then starts on the `-` line",
    "l:\n# H\n- # C1\n  - y\n",
    undefined,
    "l:\n# H\n# C1\n- - y\n",
  ],
  ["over a list of mappings: stays as it is", "l:\n- # C1\n  - a: 1\n", undefined, "l:\n- # C1\n  - a: 1\n"],
  ["over a list of lists: stays as it is", "l:\n- # C1\n  - - y\n", undefined, "l:\n- # C1\n  - - y\n"],
  ["over a list of flow lists: stays as it is", "l:\n- # C1\n  - [y]\n", undefined, "l:\n- # C1\n  - [y]\n"],
  [
    "a list within a list's item stays as it is (kubeflow's jwtRules[].outputClaimToHeaders)",
    "s:\n- o:\n  - a: 1\n  - # C1\n    image: a\n  p: 1\n",
    undefined,
    "s:\n- o:\n  - a: 1\n  - # C1\n    image: a\n  p: 1\n",
  ],
  [
    "deeper within a list's item, too",
    "m:\n  s:\n  - m:\n      o:\n      - # C1\n        - y\n",
    undefined,
    "m:\n  s:\n  - m:\n      o:\n      - # C1\n        - y\n",
  ],
  // a comment on the `-` line of a list of collections: a render with no function moved it onto the
  // inner item's line; kpt leaves each of these as it is, with no function and through one
  ["over a list of mappings, with no function too", "l:\n- # C1\n  - a: 1\n"],
  ["over a list of mappings of two keys", "l:\n- # C1\n  - a: 1\n    b: 2\n"],
  ["over a list of lists, with no function too", "l:\n- # C1\n  - - y\n"],
  ["over a list of lists of lists", "l:\n- # C1\n  - - - y\n"],
  ["on an inner `-` over a mapping", "l:\n- - # C1\n    a: 1\n"],
  ["on the innermost of three `-` over a mapping", "l:\n- - - # C1\n      a: 1\n"],
  ["over a list of mappings, a comment above", "l:\n# H\n- # C1\n  - a: 1\n"],
];

kptCases("a comment on a list item's `-` line", CASES);
