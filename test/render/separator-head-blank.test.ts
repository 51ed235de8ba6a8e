import { type KptCase, kptCases } from "./kpt-cases.js";

/**
 * A document after a `---` that kyaml's cut leaves first in its piece (a file's first line, the second
 * of two), then comment lines with a blank line among them: yaml.v3 reads them all as the first key's
 * head, and kpt writes them to a function after the item's `- `, the blank line kept (`- # a`, blank,
 * `  # b`). Reading the function's output back, porchlight left those lines where the `yaml` parser put
 * them, and the comments came back twice. Found by comment-lines.property.test.ts; each case is a whole
 * file, the expectations kpt's (read off kpt v1.0.0-beta.56, and checked against kpt where installed).
 */
const K = "apiVersion: v1\nkind: X\nmetadata:\n  name: x\n";
/** A case kpt writes alike with no function and through `exec: cat`. */
const same = (name: string, file: string, kpt: string): KptCase => [name, file, kpt, kpt];
const CASES: KptCase[] = [
  same("a file's first `---`, then `# a`, blank, `# b`", `---\n# a\n\n# b\n${K}`, `# a\n\n# b\n${K}`),
  same("a bare `#` first", `---\n#\n\n#x\n${K}`, `#\n\n#x\n${K}`),
  same("two blank lines, read as one", `---\n# a\n\n\n# b\n${K}`, `# a\n\n# b\n${K}`),
  same("two blank lines apart", `---\n# a\n\n# b\n\n# c\n${K}`, `# a\n\n# b\n\n# c\n${K}`),
  same("a comment on the `---` line", `--- # s\n# a\n\n# b\n${K}`, `# s\n# a\n\n# b\n${K}`),
  same("after two `---` lines", `${K}---\n---\n#\n\n#x\n${K}`, `${K}---\n#\n\n#x\n${K}`),
  same("no blank line, as before", `---\n# a\n# b\n${K}`, `# a\n# b\n${K}`),
];

kptCases("a head with a blank line after a `---` left first", CASES, "");
