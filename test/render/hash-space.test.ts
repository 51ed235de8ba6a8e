import { type KptCase, kptCases } from "./kpt-cases.js";

/**
 * A comment that is `# ` (one space, nothing after it) keeps its space wherever it stands, as kpt
 * (yaml.v3) writes it back, with no function and through one; a bare `#` stays bare. The `yaml`
 * parser reads both as one space: porchlight wrote `#` for a nested one (`  a: 1 # `, `  # ` above a
 * key, `- # ` over an item, after a flow collection, a document's last comments). Where kpt moves
 * the comment or drops a blank line, the case says so.
 */
const SHAPES: KptCase[] = [
  ["after a nested scalar", "m:\n  a: 1 # \n"],
  ["after a nested scalar, a bare one before it", "m:\n  a: 1 #\n  b: 1 # \n"],
  [
    "after a scalar, a deeper `# ` line under it (written at the key's column)",
    "m:\n  k: c # \n      # \nn: 1\n",
    "m:\n  k: c # \n  # \nn: 1\n",
    "m:\n  k: c # \n  # \nn: 1\n",
  ],
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
  [
    "the document's last comments",
    'z: "d"\n\n# \n# end\n---\napiVersion: v1\nkind: Y\nmetadata:\n  name: y\n',
  ],
];

kptCases("a `# ` comment", SHAPES);
