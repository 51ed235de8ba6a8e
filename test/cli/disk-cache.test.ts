import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cacheRoot, DiskCache } from "../../src/cli/disk-cache.js";

const SHA = "1f3e".padEnd(40, "0");
const OTHER = "2a2a".padEnd(40, "0");
const answer = (etag: string, data: unknown) => ({
  etag,
  url: "https://x/repos/o/r",
  headers: { etag },
  data,
});

describe("the command line's cache on disk", () => {
  let home: string;
  let root: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "disk-cache-test-"));
    root = join(home, "porchlight");
  });
  afterEach(() => {
    chmodSync(home, 0o700);
    rmSync(home, { recursive: true, force: true });
  });

  it("lives in XDG_CACHE_HOME when it is an absolute path, else in HOME's .cache, else nowhere", () => {
    expect(cacheRoot({ XDG_CACHE_HOME: "/c", HOME: "/h" })).toBe("/c/porchlight");
    expect(cacheRoot({ XDG_CACHE_HOME: "relative", HOME: "/h" })).toBe("/h/.cache/porchlight");
    expect(cacheRoot({ HOME: "/h" })).toBe("/h/.cache/porchlight");
    expect(cacheRoot({})).toBeUndefined();
  });

  it("keeps a commit's facts across instances, under the commit's SHA", () => {
    new DiskCache(root).keepCommitFact(SHA, "package-dirs", ["", "net/dns"]);
    const again = new DiskCache(root);
    expect(again.commitFact(SHA, "package-dirs")).toEqual(["", "net/dns"]);
    expect(again.commitFact(SHA, "message")).toBeUndefined();
    expect(again.commitFact(OTHER, "package-dirs")).toBeUndefined();
    expect(readdirSync(join(root, "commits"))).toEqual([`${SHA}.package-dirs`]);
  });

  it("takes no key that is not a SHA and a fact's name", () => {
    const cache = new DiskCache(root);
    cache.keepCommitFact("../../etc", "message", "x");
    cache.keepCommitFact(SHA, "../message", "x");
    expect(cache.commitFact("../../etc", "message")).toBeUndefined();
    expect(() => readdirSync(join(root, "commits"))).toThrow();
  });

  it("ignores an entry that is corrupt, names another key or another format", () => {
    const cache = new DiskCache(root);
    cache.keepCommitFact(SHA, "message", "kept");
    const file = join(root, "commits", `${SHA}.message`);
    for (const bad of [
      "{not json",
      "",
      "null",
      JSON.stringify({ format: 1, key: `${OTHER} message`, value: "other" }),
      JSON.stringify({ format: 0, key: `${SHA} message`, value: "old" }),
    ]) {
      writeFileSync(file, bad);
      expect(cache.commitFact(SHA, "message")).toBeUndefined();
    }
    // a directory where the file should be: unreadable, ignored too
    rmSync(file);
    mkdirSync(file);
    expect(cache.commitFact(SHA, "message")).toBeUndefined();
  });

  it("is the user's alone: directories 0700, files 0600, a wider directory made so", () => {
    mkdirSync(root, { mode: 0o755 });
    chmodSync(root, 0o755);
    const cache = new DiskCache(root);
    cache.keepCommitFact(SHA, "message", "m");
    cache.forToken("t").keep("https://x/a", "", answer('W/"1"', { a: 1 }));
    for (const dir of [root, join(root, "commits"), join(root, "answers")])
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const part of ["commits", "answers"])
      for (const name of readdirSync(join(root, part)))
        expect(statSync(join(root, part, name)).mode & 0o777).toBe(0o600);
  });

  it("keeps answers per token, under a digest that is not the token, and none without an ETag", () => {
    const cache = new DiskCache(root);
    cache.forToken("secret-one").keep("https://x/a", "application/json", answer('W/"1"', { n: 1 }));
    cache
      .forToken("secret-one")
      .keep("https://x/b", "application/json", { ...answer("", 2), etag: undefined });
    const again = new DiskCache(root);
    expect(again.forToken("secret-one").lookup("https://x/a", "application/json")).toEqual(
      answer('W/"1"', { n: 1 }),
    );
    expect(again.forToken("secret-one").lookup("https://x/a", "raw")).toBeUndefined();
    expect(again.forToken("secret-one").lookup("https://x/b", "application/json")).toBeUndefined();
    expect(again.forToken("secret-two").lookup("https://x/a", "application/json")).toBeUndefined();
    const names = readdirSync(join(root, "answers"));
    expect(names).toHaveLength(1);
    expect(JSON.stringify(names)).not.toContain("secret");
  });

  it("holds at most its bound of entries, the oldest written going first", () => {
    const cache = new DiskCache(root, 8);
    const sha = (i: number) => i.toString(16).padStart(40, "0");
    for (let i = 0; i < 8; i++) cache.keepCommitFact(sha(i), "message", `m${i}`);
    // written in order, each a second older than the next
    for (let i = 0; i < 8; i++) {
      const t = Date.now() / 1000 - 100 + i;
      utimesSync(join(root, "commits", `${sha(i)}.message`), t, t);
    }
    cache.keepCommitFact(sha(8), "message", "m8");
    const left = readdirSync(join(root, "commits")).sort();
    expect(left).toHaveLength(6);
    expect(left).toEqual([3, 4, 5, 6, 7, 8].map((i) => `${sha(i)}.message`));
    // a new instance counts what is there before its first write
    const next = new DiskCache(root, 8);
    for (let i = 9; i < 12; i++) next.keepCommitFact(sha(i), "message", `m${i}`);
    expect(readdirSync(join(root, "commits")).length).toBeLessThanOrEqual(8);
  });

  it("goes on without keeping where it cannot write", () => {
    // a file where its directory should be (a read-only home is no obstacle to root, who runs CI)
    writeFileSync(root, "");
    const cache = new DiskCache(root);
    expect(() => cache.keepCommitFact(SHA, "message", "m")).not.toThrow();
    expect(() => cache.forToken("t").keep("https://x/a", "", answer('W/"1"', 1))).not.toThrow();
    expect(cache.commitFact(SHA, "message")).toBeUndefined();
  });
});
