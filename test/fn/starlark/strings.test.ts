import { describe, expect, it } from "vitest";
import { evalX, starlarkCases } from "./helpers.js";

describe("strings are byte strings (testdata/string.star)", () => {
  it.each(starlarkCases("strings.yaml"))("%s", (_name, src, want) => {
    expect(evalX(src)).toBe(want);
  });
});
