import { type KptCase, kptCases } from "./kpt-cases.js";

/**
 * A key's line comment over its block value (`k: # c`), then comment lines above the value's first
 * entry: a `# ` among them kept its space nowhere (the `yaml` parser gives the key's comment to the
 * value's head with them, and the space was looked for in lines that left the key's line out), and a
 * blank line right under the key's line, which kpt drops, was written back. Found by
 * comment-lines.property.test.ts; the expectations are kpt's (read off kpt v1.0.0-beta.56, and checked
 * against kpt where it is installed), alike with no function and through `exec: cat`.
 */
const same = (name: string, body: string, kpt = body): KptCase => [name, body, kpt, kpt];
const CASES: KptCase[] = [
  same("`# ` under `k: # c`", "k: # c\n  # \n  a: 1\n"),
  same("`# ` under `k: #`", "k: #\n  # \n  a: 1\n"),
  same("`# ` under `k: # `", "k: # \n  # \n  a: 1\n"),
  same("`# ` over a list under `k: # c`", "k: # c\n  # \n  - a\n"),
  same("a blank line, then `# d`", "k: # c\n\n  # d\n  a: 1\n", "k: # c\n  # d\n  a: 1\n"),
  same("a blank line, then `# `", "k: # c\n\n  # \n  a: 1\n", "k: # c\n  # \n  a: 1\n"),
  same("a blank line only, as before", "k: # c\n\n  a: 1\n", "k: # c\n  a: 1\n"),
  same("a bare `#` under it, as before", "k: # c\n  #\n  a: 1\n"),
];

kptCases("a key's line comment over its block value", CASES);
