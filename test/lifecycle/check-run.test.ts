import { describe, expect, it } from "vitest";
import {
  batchAnnotations,
  type CheckAnnotation,
  fitCheckOutput,
  MAX_CHECK_OUTPUT_CHARS,
  truncateText,
} from "../../src/lifecycle/check-run.js";

const annotation = (line: number): CheckAnnotation => ({
  path: "apps/web/deployment.yaml",
  start_line: line,
  end_line: line,
  annotation_level: "failure",
  message: `problem on line ${line}`,
});

describe("check run annotations", () => {
  it.each([
    { count: 0, batches: [] },
    { count: 1, batches: [1] },
    { count: 50, batches: [50] },
    { count: 51, batches: [50, 1] },
    { count: 120, batches: [50, 50, 20] },
  ])("sends $count annotations in batches of at most 50: $batches", ({ count, batches }) => {
    const all = Array.from({ length: count }, (_, i) => annotation(i + 1));
    const result = batchAnnotations(all);
    expect(result.map((b) => b.length)).toEqual(batches);
    expect(result.flat()).toEqual(all);
  });

  it("drops columns from an annotation spanning lines, which GitHub rejects", () => {
    const [[fitted]] = batchAnnotations([
      { ...annotation(3), end_line: 5, start_column: 2, end_column: 9 },
    ]) as [[CheckAnnotation]];
    expect(fitted).not.toHaveProperty("start_column");
    expect(fitted).not.toHaveProperty("end_column");
  });

  it("refuses a batch size below one", () => {
    expect(() => batchAnnotations([], 0)).toThrow(/at least 1/);
  });
});

describe("check run output text", () => {
  it("leaves text within the limit as it is", () => {
    expect(truncateText("short", 10)).toBe("short");
  });

  it("cuts long text at a line break and says it was cut", () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    const cut = truncateText(text, 200, "(truncated)");
    expect(cut.length).toBeLessThanOrEqual(200);
    expect(cut).toMatch(/line \d+\n\n… \(truncated\)$/);
  });

  it("keeps title, summary and text under 65,535 characters", () => {
    const big = "x".repeat(70_000);
    const out = fitCheckOutput({ title: "t", summary: big, text: big, annotations: [] });
    expect(out.summary.length).toBeLessThanOrEqual(MAX_CHECK_OUTPUT_CHARS);
    expect(out.text?.length).toBeLessThanOrEqual(MAX_CHECK_OUTPUT_CHARS);
    expect(out.summary).toMatch(/truncated/);
  });
});
