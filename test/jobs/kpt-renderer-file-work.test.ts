import { describe, expect, it } from "vitest";
import { FileWorkMemo } from "../../src/jobs/kpt-renderer/incremental.js";

/** A kept file render counted at `size`. */
const work = (size: number) => ({ out: "same" as const, docs: 1, shares: [], size });

describe("the renders of files the bot's renderer keeps", () => {
  it("lets the least recently used go past its bound", () => {
    const memo = new FileWorkMemo(300);
    memo.set("a", work(100));
    memo.set("b", work(100));
    memo.set("c", work(100));
    expect(memo.get("a")).toBeDefined();
    memo.set("d", work(100));
    expect(memo.get("b")).toBeUndefined();
    expect(memo.get("a")).toBeDefined();
    expect(memo.get("c")).toBeDefined();
    expect(memo.get("d")).toBeDefined();
    expect(memo.size).toBe(300);
  });

  it("keeps nothing larger than its bound, and counts a replaced entry once", () => {
    const memo = new FileWorkMemo(300);
    memo.set("big", work(301));
    expect(memo.get("big")).toBeUndefined();
    memo.set("a", work(100));
    memo.set("a", work(200));
    expect(memo.size).toBe(200);
  });
});
