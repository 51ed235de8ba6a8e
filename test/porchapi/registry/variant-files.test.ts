import { describe, expect, it } from "vitest";
import { editFile } from "../../../src/porchapi/registry/variant-files.js";

const A =
  "# team A\napiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: a # first\n";
const B = "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: b\n";
const C = "apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata:\n  name: c\n";

/** One document of a variant file written through the API: the others keep their bytes and comments. */
describe("editing one document of a variant file", () => {
  it.each([
    ["replaces the middle one", `${A}---\n${B}---\n${C}`, 1, "new: 1\n", `${A}---\nnew: 1\n---\n${C}`],
    ["removes the first one", `${A}---\n${B}`, 0, undefined, B],
    ["removes the last one", `${A}---\n${B}`, 1, undefined, A],
    ["drops a leading --- (the same documents)", `---\n${A}---\n${B}`, 1, "new: 1\n", `${A}---\nnew: 1\n`],
    ["adds the newline a last document lacks", `${A}---\n${B.trimEnd()}`, 0, "new: 1\n", `new: 1\n---\n${B}`],
  ])("%s", (_, file, index, text, expected) => {
    expect(editFile(file, index, text)).toBe(expected);
  });

  it("refuses to rewrite a file with a document that is not YAML, which it could not write back", () => {
    expect(() => editFile(`${A}---\nkey: [unclosed\n`, 0, "new: 1\n")).toThrow(
      /the variant file holding it is not valid YAML .*: fix the file in git, then try again/,
    );
  });

  it("leaves nothing when its one document is removed", () => {
    expect(editFile(A, 0, undefined)).toBeUndefined();
  });
});
