import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { houseCounts, tsSources } from "./house-counts.js";

const PROJECT = join(import.meta.dirname, "..");
const SRC = join(PROJECT, "src");

// src/forge/ is left out: it leaves src/ for a package of its own.
describe("non-null assertions in src/", () => {
  it("has a comment saying why on the line of each `!` or the line above", () => {
    const counts = houseCounts(tsSources(SRC, [join(SRC, "forge")]), PROJECT);
    expect(
      counts.nonNullUncommented.map((p) => `${p.file}:${p.line}: ${p.text}`),
      "check the value (a narrowing, an error naming what is missing, a default), or say in a comment why it cannot be null",
    ).toEqual([]);
  });
});
