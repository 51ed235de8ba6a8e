import { describe, expect, it } from "vitest";
import { BlobCache } from "../../src/github/blob-cache.js";

describe("BlobCache", () => {
  it("keeps files by repository and blob id: one repository's blob never answers another's", () => {
    const cache = new BlobCache();
    cache.set("/cache/a.git", "1111", Buffer.from("a\n"));
    expect(cache.get("/cache/a.git", "1111")?.toString()).toBe("a\n");
    expect(cache.get("/cache/b.git", "1111")).toBeUndefined();
    expect([cache.hits, cache.misses]).toEqual([1, 1]);
  });

  it("stays within its bound, dropping the least recently used file", () => {
    const cache = new BlobCache(10);
    cache.set("r", "a", Buffer.from("aaaa"));
    cache.set("r", "b", Buffer.from("bbbb"));
    expect(cache.get("r", "a")).toBeDefined();
    cache.set("r", "c", Buffer.from("cccc"));
    expect(cache.get("r", "b")).toBeUndefined();
    expect(cache.get("r", "a")?.toString()).toBe("aaaa");
    expect(cache.size).toBeLessThanOrEqual(10);
    // A file larger than the bound is not kept.
    cache.set("r", "big", Buffer.alloc(11));
    expect(cache.get("r", "big")).toBeUndefined();
  });
});
