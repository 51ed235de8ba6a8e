import { describe, expect, it } from "vitest";
import { GitObjectCache } from "../../src/github/object-cache.js";

describe("GitObjectCache", () => {
  it("keeps files by repository and blob id: one repository's blob never answers another's", () => {
    const cache = new GitObjectCache();
    cache.set("/cache/a.git", "1111", Buffer.from("a\n"));
    expect(cache.get("/cache/a.git", "1111")?.toString()).toBe("a\n");
    expect(cache.get("/cache/b.git", "1111")).toBeUndefined();
    expect([cache.hits, cache.misses]).toEqual([1, 1]);
  });

  it("stays within its bound, dropping the least recently used file", () => {
    const cache = new GitObjectCache(10);
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

  it("cuts a directory's listing from the whole tree's, and keeps one repository's trees from another's", () => {
    const cache = new GitObjectCache();
    const entry = (path: string) => ({ mode: "100644", id: path, size: 1, path });
    cache.setTree("r", "c1", "", [
      entry("README.md"),
      entry("app/Kptfile"),
      entry("app/sub/a.yaml"),
      entry("apps/b.yaml"),
    ]);
    expect(cache.tree("r", "c1", "app")?.map((e) => e.path)).toEqual(["Kptfile", "sub/a.yaml"]);
    expect(cache.tree("other", "c1", "app")).toBeUndefined();
    expect(cache.tree("r", "c2", "")).toBeUndefined();
    expect(cache.holds("r", "c1")).toBe(true);
    expect(cache.holds("r", "c2")).toBe(false);
  });
});
