import { describe, expect, it } from "vitest";
import { evalX, starlarkCases } from "./helpers.js";

describe("starlark syntax", () => {
  it.each(starlarkCases("syntax.yaml"))("%s", (_name, src, want) => {
    expect(evalX(src)).toBe(want);
  });
});
