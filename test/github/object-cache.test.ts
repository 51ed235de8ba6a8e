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

  it("lists a commit like its parent with the parent's unchanged entries, whatever was edited, added or removed", () => {
    const cache = new GitObjectCache();
    const entry = (path: string, id = `id-${path}`) => ({ mode: "100644", id, size: 1, path });
    const files = Array.from({ length: 40 }, (_, i) => `pkg/f${String(i).padStart(2, "0")}.yaml`);
    cache.setTree(
      "r",
      "c1",
      "",
      files.map((p) => entry(p)),
    );
    const first = cache.tree("r", "c1", "")!;
    // f03 edited, f10 removed, a file added before f20, f21-f35 removed (past any few entries on), mode of f38 changed
    const next = files
      .filter((p) => p !== "pkg/f10.yaml" && !/f(2[1-9]|3[0-5])/.test(p))
      .flatMap((p) => (p === "pkg/f20.yaml" ? [entry("pkg/f19b.yaml"), entry(p)] : [entry(p)]))
      .map((e) => (e.path === "pkg/f03.yaml" ? { ...e, id: "edited" } : e))
      .map((e) => (e.path === "pkg/f38.yaml" ? { ...e, mode: "100755" } : e));
    const expected = next.map((e) => ({ ...e }));
    cache.setTree("r", "c2", "", next);
    const second = cache.tree("r", "c2", "")!;
    expect(second).toEqual(expected);
    const byPath = new Map(first.map((e) => [e.path, e]));
    const shared = second.filter((e) => byPath.get(e.path) === e).map((e) => e.path);
    expect(shared).toEqual(
      expected
        .map((e) => e.path)
        .filter((p) => !["pkg/f03.yaml", "pkg/f19b.yaml", "pkg/f38.yaml"].includes(p)),
    );
    // the first commit's listing is unchanged
    expect(cache.tree("r", "c1", "")!.map((e) => e.id)).toEqual(files.map((p) => `id-${p}`));
  });
});
