import { type KptCase, kptCases } from "./kpt-cases.js";

/**
 * Comment lines under the line comment of a document's last value (`k: b # t` then `  # end`): the
 * `yaml` parser gives them to the value with its line comment, and porchlight kept the line comment
 * only — the lines under it were lost, with no function too. yaml.v3 ends the root mapping with them.
 * After a blank line, they are the document's foot: last-value-blank-foot.test.ts.
 */
const NEXT = "---\napiVersion: v1\nkind: Y\nmetadata:\n  name: y\n";
const CASES: KptCase[] = [
  ["a deeper line under it", "k: b # t\n  # end\n", "k: b # t\n# end\n", "k: b # t\n# end\n"],
  [
    "then another document",
    `k: b # t\n  # end\n${NEXT}`,
    `k: b # t\n# end\n${NEXT}`,
    `k: b # t\n# end\n${NEXT}`,
  ],
  ["a bare `#` line comment", `k: b #\n  # end\n${NEXT}`, `k: b #\n# end\n${NEXT}`, `k: b #\n# end\n${NEXT}`],
  ["under a quoted scalar", "k: 'b' # t\n  # end\n", "k: 'b' # t\n# end\n", "k: 'b' # t\n# end\n"],
  ["under a flow list", "k: [b] # t\n  # end\n", "k: [b] # t\n# end\n", "k: [b] # t\n# end\n"],
  [
    "two lines, the second at column 0",
    "k: b # t\n  # e1\n# e2\n",
    "k: b # t\n# e1\n# e2\n",
    "k: b # t\n# e1\n# e2\n",
  ],
  ["no final line break", "k: b # t\n  # end", "k: b # t\n# end\n", "k: b # t\n# end\n"],
  // a bare `#` is " " to the `yaml` parser: the lines under were taken for blank lines and lost
  // (comment-lines.property.test.ts found it)
  ["a deeper bare `#` under it", "k: b # t\n    #\n", "k: b # t\n#\n", "k: b # t\n#\n"],
  ["a deeper bare `#`, then one at column 0", "k: b # t\n  #\n#\n", "k: b # t\n#\n#\n", "k: b # t\n#\n#\n"],
  [
    "a deeper bare `#`, then another document",
    `k: b # t\n  #\n${NEXT}`,
    `k: b # t\n#\n${NEXT}`,
    `k: b # t\n#\n${NEXT}`,
  ],
];

kptCases("comments under the last value's line comment", CASES);
