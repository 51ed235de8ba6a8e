import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitFiles, GitStore, runGit } from "../src/git.js";

const author = { name: "Test User", email: "test@example.com" };

/** The git subcommands started while `body` runs, from git's own trace (GIT_TRACE2_EVENT). */
async function gitStarted(tmp: string, body: () => Promise<void>): Promise<string[]> {
  const trace = join(tmp, `trace-${Math.random().toString(36).slice(2)}.json`);
  process.env.GIT_TRACE2_EVENT = trace;
  try {
    await body();
  } finally {
    delete process.env.GIT_TRACE2_EVENT;
  }
  if (!existsSync(trace)) return [];
  return readFileSync(trace, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { event: string; argv?: string[] })
    .filter((e) => e.event === "start")
    .map((e) => e.argv!.find((a, i) => i > 0 && !a.startsWith("-") && e.argv![i - 1] !== "--git-dir")!);
}

describe("questions about history answered from the commits where history is one line, else by git", () => {
  const tmp = mkdtempSync(join(tmpdir(), "forge-history-"));
  const root = join(tmp, "repos");
  let store = new GitStore(root);
  const dir = store.dir("acme", "history");
  /** main: c0 ← c1 ← c2 ← c3; side: c1 ← s1; merge: c3 + s1 ← m; tag: an annotated tag of c2 */
  const c: string[] = [];
  let s1: string;
  let m: string;
  let tag: string;

  async function commitOn(parent: string | null, i: string): Promise<string> {
    return commitFiles(store, dir, {
      parent,
      files: { [`${i}.txt`]: `${i}\n` },
      message: i,
      author,
      tmpIndex: join(tmp, "index"),
    });
  }

  /** Every answer the store gives for the pairs of `ids`, with git's beside it. */
  async function answers(ids: string[]) {
    const ours: unknown[] = [];
    const gits: unknown[] = [];
    for (const a of ids) {
      ours.push(await store.revList(dir, a));
      gits.push(
        (await runGit(dir, ["rev-list", "--reverse", "--topo-order", a])).stdout.split("\n").filter(Boolean),
      );
      for (const b of ids) {
        ours.push([a, b, await store.isAncestor(dir, a, b), await store.mergeBase(dir, a, b)]);
        const anc = await runGit(dir, ["merge-base", "--is-ancestor", a, b], { allowFail: true });
        const base = await runGit(dir, ["merge-base", a, b], { allowFail: true });
        gits.push([a, b, anc.code === 0, base.code === 0 ? base.stdout.trim() : null]);
        ours.push(await store.revList(dir, b, [a]));
        gits.push(
          (await runGit(dir, ["rev-list", "--reverse", "--topo-order", b, `^${a}`])).stdout
            .split("\n")
            .filter(Boolean),
        );
      }
    }
    return { ours, gits };
  }

  beforeAll(async () => {
    await store.init("acme", "history", "main");
    for (let i = 0; i < 4; i++) c.push(await commitOn(c.at(-1) ?? null, `c${i}`));
    s1 = await commitOn(c[1]!, "s1");
    const tree = (await runGit(dir, ["rev-parse", `${c[3]}^{tree}`])).stdout.trim();
    m = await store.commitTree(dir, tree, [c[3]!, s1], "merge", author);
    tag = await store.mktag(
      dir,
      `object ${c[2]}\ntype commit\ntag v1\ntagger Test User <t@example.com> 0 +0000\n\nv1\n`,
    );
  });
  afterAll(async () => {
    await store.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("each answer is git's: ancestry, merge bases and commit ranges, across a merge and a tag", async () => {
    const { ours, gits } = await answers([c[0]!, c[2]!, s1, m, tag]);
    expect(ours).toEqual(gits);
  });

  it("one line of history takes no git process; a merge on the way does", async () => {
    await store.close();
    store = new GitStore(root);
    await store.objectType(dir, c[0]!); // the reader, started before the trace
    const linear = await gitStarted(tmp, async () => {
      expect(await store.isAncestor(dir, c[0]!, c[3]!)).toBe(true);
      expect(await store.isAncestor(dir, s1, c[3]!)).toBe(false);
      expect(await store.mergeBase(dir, c[3]!, c[1]!)).toBe(c[1]);
      expect(await store.revList(dir, c[3]!, [c[1]!])).toEqual([c[2], c[3]]);
      expect(await store.revList(dir, tag)).toEqual(c.slice(0, 3));
    });
    expect(linear).toEqual([]);
    const merged = await gitStarted(tmp, async () => {
      expect(await store.revList(dir, m, [c[2]!])).toHaveLength(3);
      expect(await store.mergeBase(dir, c[3]!, s1)).toBe(c[1]);
    });
    expect(merged).toEqual(["rev-list", "merge-base"]);
  });

  it("a shallow file (git cuts history there) sends every question to git", async () => {
    writeFileSync(join(dir, "shallow"), `${c[1]}\n`);
    try {
      await store.close();
      store = new GitStore(root);
      expect(await store.revList(dir, c[3]!)).toEqual([c[1], c[2], c[3]]);
      expect(await store.isAncestor(dir, c[0]!, c[3]!)).toBe(false);
      const { ours, gits } = await answers([c[0]!, c[2]!, c[3]!]);
      expect(ours).toEqual(gits);
    } finally {
      rmSync(join(dir, "shallow"));
    }
  });

  it("a line longer than the walk goes to git", async () => {
    // 60 commits on c3 in one git process
    let script = "";
    for (let i = 0; i < 60; i++)
      script += `commit refs/heads/long\ncommitter T <t@example.com> ${i} +0000\ndata 0\n${i ? "" : `from ${c[3]}\n`}\n`;
    await runGit(dir, ["fast-import", "--quiet"], { input: script });
    const parent = (await runGit(dir, ["rev-parse", "refs/heads/long"])).stdout.trim();
    await store.objectType(dir, parent); // the reader, started before the trace
    const started = await gitStarted(tmp, async () => {
      expect(await store.isAncestor(dir, c[0]!, parent)).toBe(true);
      expect(await store.revList(dir, parent, [c[0]!])).toHaveLength(63);
    });
    expect(started).toEqual(["merge-base", "rev-list"]);
  });
});
