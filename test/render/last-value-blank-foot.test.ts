import { type KptCase, kptCases } from "./kpt-cases.js";

/**
 * Comment lines after the document's last value, a scalar or a flow collection, when a blank line
 * comes before them and they stand right of column 0 (`k: b` or `k: b # t`, a blank line, `  # end`): yaml.v3 ends
 * the document with them, as at column 0, and kpt writes them at column 0 after a blank line, with no
 * function and through one. porchlight dropped the blank line (the `yaml` parser gives them to the
 * value). Found by comment-lines.property.test.ts; the expectations are kpt's, read off kpt
 * v1.0.0-beta.56 (kptCases checks them against kpt where it is installed).
 */
const NEXT = "---\napiVersion: v1\nkind: Y\nmetadata:\n  name: y\n";
/** A case kpt writes alike with no function and through `exec: cat`. */
const same = (name: string, body: string, kpt: string): KptCase => [name, body, kpt, kpt];
const CASES: KptCase[] = [
  same("a deeper comment", "k: b\n\n  # end\n", "k: b\n\n# end\n"),
  same("a deeper bare `#` after a line of spaces", "k: b\n  \n    #\n", "k: b\n\n#\n"),
  same("a deeper `# `", "k: b\n\n  # \n", "k: b\n\n# \n"),
  same("then one at column 0", "k: b\n\n  # end\n# e2\n", "k: b\n\n# end\n# e2\n"),
  same("a blank line between them", "k: b\n\n  # end\n\n# e2\n", "k: b\n\n# end\n\n# e2\n"),
  same("then another document", `k: b\n\n  # end\n${NEXT}`, `k: b\n\n# end\n${NEXT}`),
  same("no final line break", "k: 'q'\n\n # c", "k: 'q'\n\n# c\n"),
  same("after a flow list", "k: [a]\n\n    #\n", "k: [a]\n\n#\n"),
  same(
    "after a nested mapping's last value, as before",
    "k:\n  a: b\n\n    # end\n",
    "k:\n  a: b\n\n# end\n",
  ),
  same("with no blank line, as before", "k: b\n  # end\n", "k: b\n# end\n"),
  same("under a line comment", "k: a # c\n\n  # x\n", "k: a # c\n\n# x\n"),
  same("bare `#`s, the line comment's too", "k: a #\n\n  #\n", "k: a #\n\n#\n"),
  same("`# `s, the line comment's too", "k: a # \n\n  # \n", "k: a # \n\n# \n"),
  same("a line under the line comment first", "k: a # c\n  # d\n\n  # x\n", "k: a # c\n# d\n\n# x\n"),
];

kptCases("comments after a blank line that end a document", CASES);
