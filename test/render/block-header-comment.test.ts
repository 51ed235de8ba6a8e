import { type KptCase, kptCases } from "./kpt-cases.js";

/**
 * A block scalar's header with a bare `#` or `# ` after it (`k: | #`): yaml.v3 keeps it as the
 * scalar's line comment, and kpt writes it back as it was; the `yaml` parser drops a bare `#` there
 * and reads `# ` as `#`, so a render with no function lost the one and the other's space. Found by the
 * generated files of comment-lines.property.test.ts. The expectations are kpt's (read off kpt
 * v1.0.0-beta.56; kptCases checks them against kpt where it is installed).
 */
const CASES: KptCase[] = [
  ["a bare `#` after `|`", "k: | #\n  l1\n"],
  ["`# ` after `|`", "k: | # \n  l1\n"],
  ["a bare `#` after `|-`", "k: |- #\n  l1\n"],
  ["`# ` after `|-`", "k: |- # \n  l1\n"],
  ["a bare `#` after a list item's `|`", "k:\n- | #\n  l1\n- b\n"],
  ["`# ` after a list item's `|`", "k:\n- | # \n  l1\n"],
  ["a bare `#` after a nested `|`, an entry after it", "k:\n  a: | #\n    l1\n  b: 1\n"],
  ["`# ` after a nested `|`, an entry after it", "k:\n  a: | # \n    l1\n  b: 1\n"],
  ["a comment with text after `|`, as before", "k: | # c\n  l1\n"],
  // a folded scalar ending the file gets a blank line after it (as without a comment); through a
  // function kpt writes it double-quoted, its comment after it
  ["a bare `#` after `>`", "k: > #\n  l1\n", "k: > #\n  l1\n\n", 'k: "l1\\n" #\n'],
  ["`# ` after `>`", "k: > # \n  l1\n", "k: > # \n  l1\n\n", 'k: "l1\\n" # \n'],
];

kptCases("a block scalar's header comment", CASES);
