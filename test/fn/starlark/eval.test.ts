import { describe, expect, it } from "vitest";
import { execFile } from "../../../src/fn/starlark/interp.js";
import { setIndex } from "../../../src/fn/starlark/ops.js";
import { evalX, KPT_DIALECT, starlarkCases, starlarkSections } from "./helpers.js";

describe("starlark evaluation (Go dialect)", () => {
  for (const [section, cases] of starlarkSections("eval.yaml")) {
    describe(section, () => {
      it.each(cases)("%s", (_name, src, want) => {
        expect(evalX(src)).toBe(want);
      });
    });
  }
});

describe("starlark evaluation (kpt dialect: set, while, recursion, global reassign)", () => {
  it.each(starlarkCases("eval-kpt.yaml"))("%s", (_name, src, want) => {
    expect(evalX(src, KPT_DIALECT)).toBe(want);
  });
});

describe("frozen values", () => {
  it("freezes module globals after execution, so later mutation fails as in Go", () => {
    const { globals } = execFile("l = [1]\nd = {'a': [2]}\n", new Map(), { name: "t.star" });
    expect(() => setIndex(globals.get("l")!, 0, 5)).toThrow("cannot assign to element of frozen list");
    expect(() => setIndex(globals.get("d")!, "b", 5)).toThrow("cannot insert into frozen hash table");
  });
});
