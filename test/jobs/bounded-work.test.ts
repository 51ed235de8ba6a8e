import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { blobId } from "../../src/github/git-objects.js";
import { BoundedWork } from "../../src/jobs/bounded/bounded.js";
import { BoundedRenderer } from "../../src/jobs/bounded/renderer.js";
import { packChanges, packTree, unpackChanges, unpackTree } from "../../src/jobs/bounded/wire.js";
import { KptRenderer } from "../../src/jobs/kpt-renderer/index.js";
import { type FileTree, treeFromText, treeToText } from "../../src/kpt/tree.js";
import { MergeError, mergePackage } from "../../src/merge/index.js";

const kptfile = (name: string, pipeline = "") =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${pipeline}`;
const CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: '1'\n";
/**
 * A search-replace whose expression backtracks for ever in JavaScript's engine: in Go's, the functions'
 * own (RE2), it runs in time linear in the value, as it does here.
 */
const BACKTRACKING = treeFromText({
  Kptfile: kptfile(
    "redos",
    "pipeline:\n  mutators:\n  - image: gcr.io/kpt-fn/search-replace:v0.2.0\n    configMap:\n      by-value-regex: (a+)+$\n      put-value: b\n",
  ),
  "cm.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  v: ${"a".repeat(44)}!\n`,
});
/** A thread whose JavaScript never yields (the shape issue 55's five bytes had), standing for any such bug. */
const SPINNING = {
  kind: "built" as const,
  url: new URL("./bounded-fixtures/spinning-worker.mjs", import.meta.url),
};
/** A thread that fails while it loads its modules, before it says it is ready. */
const FAILING = {
  kind: "built" as const,
  url: new URL("./bounded-fixtures/failing-worker.mjs", import.meta.url),
};
const LABELLED = treeFromText({
  Kptfile: kptfile(
    "web",
    "pipeline:\n  mutators:\n  - image: gcr.io/kpt-fn/set-labels:v0.2.0\n    configMap:\n      team: blue\n",
  ),
  "cm.yaml": CM,
  "notes.txt": "",
});
const setup = { env: {}, allow: [] };

describe("package work on worker threads, bounded", () => {
  const roomy = new BoundedWork({ timeoutMs: 120_000, workers: 1, memoryMb: 1024 }, setup);
  const tight = new BoundedWork({ timeoutMs: 1500, workers: 1, memoryMb: 1024 }, setup);
  const spinning = new BoundedWork({ timeoutMs: 1500, workers: 1, memoryMb: 1024 }, setup, SPINNING);
  afterAll(async () => {
    await roomy.close();
    await tight.close();
    await spinning.close();
  });

  it("renders as the renderer on this thread does, files, findings and all", async () => {
    const here = await new KptRenderer().render(LABELLED, { runtimes: ["builtin"] });
    const there = await new BoundedRenderer(roomy).render(LABELLED, { runtimes: ["builtin"] });
    expect(there.ok).toBe(true);
    expect(treeToText(there.tree)).toEqual(treeToText(here.tree));
    expect(there.findings).toEqual(here.findings);
  });

  it("answers a render that changed nothing with the files it was given, and one that changed a file with its output", async () => {
    const renderer = new BoundedRenderer(roomy);
    const first = await renderer.render(LABELLED, { runtimes: ["builtin"] });
    // the labels set: a file changed, the output sent back
    expect(treeToText(first.tree)["cm.yaml"]).toContain("team: blue");
    expect(first.tree).not.toBe(LABELLED);
    // only the files written cross back: the others are the Buffers given (notes.txt)
    const written = [...first.tree].filter(([path, bytes]) => bytes !== LABELLED.get(path)).map(([p]) => p);
    const changed = [...first.tree].filter(([path, bytes]) => !LABELLED.get(path)?.equals(bytes));
    expect(written).toEqual(changed.map(([p]) => p));
    expect(written).toContain("cm.yaml");
    expect(written).not.toContain("notes.txt");
    const onThisThread = await new KptRenderer().render(LABELLED, { runtimes: ["builtin"] });
    expect([...first.tree.keys()]).toEqual([...onThisThread.tree.keys()]);
    expect(treeToText(first.tree)).toEqual(treeToText(onThisThread.tree));
    // rendered again, the output renders to itself: no tree comes back, the one given is the result's
    const again = await renderer.render(first.tree, { runtimes: ["builtin"] });
    expect(again.ok).toBe(true);
    expect(again.tree).toBe(first.tree);
    const here = await new KptRenderer().render(first.tree, { runtimes: ["builtin"] });
    expect(treeToText(again.tree)).toEqual(treeToText(here.tree));
    expect(again.findings).toEqual(here.findings);
  });

  it("renders a push after its own write-back as a renderer that remembers nothing does (the write-back's files alone crossed back)", async () => {
    const renderer = new BoundedRenderer(roomy);
    const options = (tree: FileTree) => ({
      runtimes: ["builtin" as const],
      blobIds: new Map([...tree].map(([p, b]) => [p, blobId(b)])),
    });
    const first = await renderer.render(LABELLED, options(LABELLED));
    await renderer.committed(first.tree, options(first.tree));
    const pushed: FileTree = new Map(first.tree);
    pushed.set("cm.yaml", Buffer.from(treeToText(first.tree)["cm.yaml"]!.replace("a: '1'", "a: '2'")));
    pushed.set("more.yaml", Buffer.from(CM.replace("name: web", "name: more")));
    const next = await renderer.render(pushed, options(pushed));
    const fresh = await new KptRenderer(undefined, undefined, true, undefined, null).render(pushed, {
      runtimes: ["builtin"],
    });
    expect(next.ok).toBe(true);
    expect(treeToText(next.tree)).toEqual(treeToText(fresh.tree));
    expect(next.findings).toEqual(fresh.findings);
    expect(treeToText(next.tree)["more.yaml"]).toContain("team: blue");
  });

  it("answers the same files rendered again with the same options from its memo, not a worker: by blob ids, and only renders that changed nothing", async () => {
    const work = new BoundedWork({ timeoutMs: 120_000, workers: 1, memoryMb: 1024 }, setup);
    try {
      const renderer = new BoundedRenderer(work);
      const asked = vi.spyOn(work, "run");
      const ids = (tree: FileTree, edited = "") =>
        new Map([...tree].map(([p, b]) => [p, p === edited ? "f".repeat(40) : blobId(b)]));
      // the labels set: a render that changed a file is not kept
      const first = await renderer.render(LABELLED, { runtimes: ["builtin"], blobIds: ids(LABELLED) });
      await renderer.render(LABELLED, { runtimes: ["builtin"], blobIds: ids(LABELLED) });
      expect(asked).toHaveBeenCalledTimes(2);
      const out = first.tree;
      const once = await renderer.render(out, { runtimes: ["builtin"], blobIds: ids(out) });
      const again = await renderer.render(out, { runtimes: ["builtin"], blobIds: ids(out) });
      expect(asked).toHaveBeenCalledTimes(3);
      expect(again).toEqual(once);
      expect(again.tree).toBe(out);
      // kept while another render was kept after it: answered from the memo all the same
      const other = new Map(out).set("notes.txt", Buffer.from("other files\n"));
      await renderer.render(other, { runtimes: ["builtin"], blobIds: ids(other) });
      const back = await renderer.render(out, { runtimes: ["builtin"], blobIds: ids(out) });
      expect(asked).toHaveBeenCalledTimes(4);
      expect(back).toEqual(once);
      // another file's id, other options, no ids: the worker renders
      await renderer.render(out, { runtimes: ["builtin"], blobIds: ids(out, "cm.yaml") });
      await renderer.render(out, { runtimes: ["builtin", "exec"], blobIds: ids(out) });
      await renderer.render(out, { runtimes: ["builtin"] });
      expect(asked).toHaveBeenCalledTimes(7);
    } finally {
      await work.close();
    }
  });

  it("answers the bot's commit of a render, told by settled(), from its memo the next time, though the caller knew only the ids of the files the render kept", async () => {
    const work = new BoundedWork({ timeoutMs: 120_000, workers: 1, memoryMb: 1024 }, setup);
    try {
      const renderer = new BoundedRenderer(work);
      const ids = (tree: FileTree) => new Map([...tree].map(([p, b]) => [p, blobId(b)]));
      const first = await renderer.render(LABELLED, { runtimes: ["builtin"], blobIds: ids(LABELLED) });
      // What the draft's render job knows of the commit: the ids of the files the render left alone.
      const kept = new Map([...ids(LABELLED)].filter(([p]) => first.tree.get(p) === LABELLED.get(p)));
      expect(kept.has("cm.yaml")).toBe(false);
      const told = await renderer.settled(first.tree, { runtimes: ["builtin"], blobIds: kept });
      expect(told?.ok).toBe(true);
      const asked = vi.spyOn(work, "run");
      // The next push with the same files (a change outside the package): every id listed by git.
      const again = await renderer.render(first.tree, { runtimes: ["builtin"], blobIds: ids(first.tree) });
      expect(asked).not.toHaveBeenCalled();
      expect(again.tree).toBe(first.tree);
      expect(again.findings).toEqual(told?.findings);
      const here = await new KptRenderer().render(first.tree, { runtimes: ["builtin"] });
      expect(again.findings).toEqual(here.findings);
    } finally {
      await work.close();
    }
  });

  it("keeps its memo within a byte bound: a render past it is rendered again by a worker", async () => {
    const work = new BoundedWork({ timeoutMs: 120_000, workers: 1, memoryMb: 1024 }, setup);
    try {
      // room for one kept render (set-labels' one finding: some 150 bytes serialized), not two
      const renderer = new BoundedRenderer(work, 200);
      const asked = vi.spyOn(work, "run");
      const ids = (tree: FileTree) => new Map([...tree].map(([p, b]) => [p, blobId(b)]));
      const out = (await renderer.render(LABELLED, { runtimes: ["builtin"], blobIds: ids(LABELLED) })).tree;
      const other = new Map(out).set("notes.txt", Buffer.from("other files\n"));
      const first = await renderer.render(out, { runtimes: ["builtin"], blobIds: ids(out) });
      await renderer.render(out, { runtimes: ["builtin"], blobIds: ids(out) });
      expect(asked).toHaveBeenCalledTimes(2);
      await renderer.render(other, { runtimes: ["builtin"], blobIds: ids(other) });
      const again = await renderer.render(out, { runtimes: ["builtin"], blobIds: ids(out) });
      expect(asked).toHaveBeenCalledTimes(4);
      expect(again).toEqual(first);
    } finally {
      await work.close();
    }
  });

  it("starts its threads before any request (a server's start), idle, and renders on them as on threads started by a request", async () => {
    const work = new BoundedWork({ timeoutMs: 120_000, workers: 2, memoryMb: 1024 }, setup);
    try {
      work.start();
      work.start();
      const renderer = new BoundedRenderer(work);
      const here = await new KptRenderer().render(LABELLED, { runtimes: ["builtin"] });
      const there = await renderer.render(LABELLED, { runtimes: ["builtin"] });
      expect(there.ok).toBe(true);
      expect(treeToText(there.tree)).toEqual(treeToText(here.tree));
      expect(there.findings).toEqual(here.findings);
    } finally {
      await work.close();
    }
  });

  it("fails the first request on a thread started early that could not start, and the next request starts a new one", async () => {
    const work = new BoundedWork({ timeoutMs: 120_000, workers: 1, memoryMb: 1024 }, setup, FAILING);
    try {
      work.start();
      // the thread's failure to start is no unhandled rejection: the app goes on until a request takes it
      await new Promise((r) => setTimeout(r, 300));
      const first = await new BoundedRenderer(work).render(LABELLED, { runtimes: ["builtin"] });
      expect(first.ok).toBe(false);
      expect(first.error).toMatch(/did not start: .*this worker cannot load/);
      const second = await new BoundedRenderer(work).render(LABELLED, { runtimes: ["builtin"] });
      expect(second.error).toMatch(/did not start: .*this worker cannot load/);
    } finally {
      await work.close();
    }
  });

  it("stops a render whose thread never yields, says it took too long, and the app's thread kept running", async () => {
    const renderer = new BoundedRenderer(spinning);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 50);
    const result = await renderer.render(LABELLED, { runtimes: ["builtin"] });
    clearInterval(ticker);
    expect(result.ok).toBe(false);
    expect(result.tookTooLong).toEqual({ afterMs: 1500 });
    expect(result.error).toMatch(/^Rendering the package took too long: porchlight stopped it after 2 s/);
    expect(treeToText(result.tree)).toEqual(treeToText(LABELLED));
    expect(ticks).toBeGreaterThan(5);
  });

  it("runs an expression JavaScript's engine backtracks on for ever in linear time, as Go's does", async () => {
    const result = await new BoundedRenderer(tight).render(BACKTRACKING, { runtimes: ["builtin"] });
    expect(result.ok).toBe(true);
    // no match (the value ends in "!"), so nothing changes: the answer Go gives, at once
    expect(result.findings.map((f) => f.message)).toEqual(["no matches"]);
    expect(treeToText(result.tree)).toEqual(treeToText(BACKTRACKING));
  });

  it("kills a function process still running when its render is stopped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "porchlight-bounded-"));
    const pidFile = join(dir, "pid");
    const script = join(dir, "sleepy.sh");
    writeFileSync(script, `#!/bin/sh\necho $$ > ${pidFile}\nexec sleep 120\n`);
    chmodSync(script, 0o755);
    const tree = treeFromText({
      Kptfile: kptfile("sleepy", `pipeline:\n  mutators:\n  - exec: ${script}\n`),
      "cm.yaml": CM,
    });
    const renderer = new BoundedRenderer(tight);
    expect((await renderer.render(LABELLED, { runtimes: ["builtin"] })).ok).toBe(true);
    const result = await renderer.render(tree, { runtimes: ["builtin", "exec"] });
    expect(result.tookTooLong).toBeDefined();
    // a new thread takes the next request
    expect((await renderer.render(LABELLED, { runtimes: ["builtin"] })).ok).toBe(true);
    const pid = Number(readFileSync(pidFile, "utf8"));
    // running or sleeping, not gone and not a zombie left unreaped
    const alive = () => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 60 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toBe(false);
  });

  it("merges as mergePackage does, and a merge refused there is refused here with its class", async () => {
    const original = treeFromText({ Kptfile: kptfile("web"), "cm.yaml": CM });
    const updated = treeFromText({ Kptfile: kptfile("web"), "cm.yaml": CM.replace("'1'", "'2'") });
    const local = treeFromText({
      Kptfile: kptfile("web"),
      "cm.yaml": CM,
      "mine.yaml": CM.replace("web", "mine"),
    });
    const engine = new BoundedRenderer(roomy);
    const there = await engine.merge({ original, updated, local });
    const here = mergePackage({ original, updated, local });
    expect(treeToText(there.tree)).toEqual(treeToText(here.tree));
    expect(there.changes).toEqual(here.changes);
    const refused = engine.merge({ original, updated, local: treeFromText({ "cm.yaml": CM }) });
    await expect(refused).rejects.toBeInstanceOf(MergeError);
    await expect(refused).rejects.toThrow("the local package has no Kptfile");
  });
});

describe("a file tree across threads", () => {
  it("keeps every file's bytes, empty ones and shared buffers' slices included", () => {
    const pool = Buffer.from("abcdef");
    const tree = new Map([
      ["a", pool.subarray(1, 3)],
      ["empty", Buffer.alloc(0)],
      ["dir/b", Buffer.from([0, 255, 10])],
    ]);
    const back = unpackTree(structuredClone(packTree(tree)));
    expect([...back.keys()]).toEqual(["a", "empty", "dir/b"]);
    expect(back.get("a")?.toString()).toBe("bc");
    expect(back.get("empty")?.length).toBe(0);
    expect([...(back.get("dir/b") ?? [])]).toEqual([0, 255, 10]);
    expect(Buffer.isBuffer(back.get("a"))).toBe(true);
  });

  it("carries a tree made from another as the files it wrote, in its own order; the others are the first's own Buffers", () => {
    const from = treeFromText({ Kptfile: "k", "a.yaml": "a", "b.yaml": "b", "gone.yaml": "g" });
    // b.yaml the same bytes in another Buffer, a.yaml changed, gone.yaml removed, new.yaml added, the order changed
    const made: FileTree = new Map([
      ["new.yaml", Buffer.from("n")],
      ["b.yaml", Buffer.from("b")],
      ["Kptfile", from.get("Kptfile")!],
      ["a.yaml", Buffer.from("a2")],
    ]);
    const wire = structuredClone(packChanges(made, from));
    expect(unpackTree(wire.written).size).toBe(2);
    const back = unpackChanges(wire, from);
    expect([...back.keys()]).toEqual(["new.yaml", "b.yaml", "Kptfile", "a.yaml"]);
    expect(treeToText(back)).toEqual(treeToText(made));
    expect(back.get("b.yaml")).toBe(from.get("b.yaml"));
    expect(back.get("Kptfile")).toBe(from.get("Kptfile"));
  });
});
