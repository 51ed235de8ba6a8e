import { type KptCase, kptCases } from "./kpt-cases.js";

/**
 * Comments after a flow collection, as kpt (yaml.v3) writes them: a flow collection is one node on
 * its line, as a scalar is, so comment lines under it are what follows it (the next key's head, or
 * its block's foot), not its line comment — porchlight wrote them after the `}` on its line, and two
 * of them as a line that was no comment at all (`- {k: v} # a` then ` b`). And yaml.v3's encoder
 * ends a list's last flow mapping with a `,` when the list's foot follows it: `- {k: v,}`.
 */
const CASES: KptCase[] = [
  [
    "a deeper comment under a flow mapping at the top",
    "z: {k: v}\n  # end\n",
    "z: {k: v}\n# end\n",
    "z: {k: v}\n# end\n",
  ],
  [
    "under a flow list, then a key",
    "z: [a]\n  # end\nn: 1\n",
    "z: [a]\n# end\nn: 1\n",
    "z: [a]\n# end\nn: 1\n",
  ],
  [
    "under a nested flow mapping, deeper",
    "m:\n  z: {k: v}\n    # a\n  n: 1\n",
    "m:\n  z: {k: v}\n  # a\n  n: 1\n",
    "m:\n  z: {k: v}\n  # a\n  n: 1\n",
  ],
  [
    "two lines under a list's flow mapping, then a key",
    "l:\n- {k: v}\n  # a\n  # b\nn: 1\n",
    "l:\n- {k: v}\n# a\n# b\nn: 1\n",
    "l:\n- {k: v}\n# a\n# b\nn: 1\n",
  ],
  [
    "a line comment, then a deeper one",
    "m:\n  z: {k: v} # t\n    # a\n  n: 1\n",
    "m:\n  z: {k: v} # t\n  # a\n  n: 1\n",
    "m:\n  z: {k: v} # t\n  # a\n  n: 1\n",
  ],
  [
    "the list's foot after its last flow mapping: a `,`",
    "l:\n- {k: v}\n  # a\n",
    "l:\n- {k: v,}\n# a\n",
    "l:\n- {k: v,}\n# a\n",
  ],
  [
    "the same with a line comment",
    "l:\n- {k: v} # t\n  # a\n",
    "l:\n- {k: v,} # t\n# a\n",
    "l:\n- {k: v,} # t\n# a\n",
  ],
  [
    "a nested list's foot",
    "m:\n  l:\n  - {k: v}\n  # a\nn: 1\n",
    "m:\n  l:\n  - {k: v,}\n  # a\nn: 1\n",
    "m:\n  l:\n  - {k: v,}\n  # a\nn: 1\n",
  ],
  [
    "after a blank line the foot is the document's: no `,`",
    "l:\n- {k: v}\n\n  # a\n",
    "l:\n- {k: v}\n\n# a\n",
    "l:\n- {k: v}\n\n# a\n",
  ],
  [
    "a flow list or an empty mapping last: no `,`",
    "l:\n- [a, b]\n- {}\n  # a\n",
    "l:\n- [a, b]\n- {}\n# a\n",
    "l:\n- [a, b]\n- {}\n# a\n",
  ],
  [
    "a list item's list after a `-` alone on its line: the comment after the `-`",
    "l:\n-\n  # c\n  - a\n",
    "l:\n- # c\n  - a\n",
    "l:\n# c\n- # c\n  - a\n",
  ],
];

kptCases("comments after a flow collection", CASES);
