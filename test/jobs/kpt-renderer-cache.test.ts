import { describe, expect, it } from "vitest";
import { KptRenderer } from "../../src/jobs/kpt-renderer/index.js";
import { renderDraft } from "../../src/jobs/render-draft/index.js";
import { type FileTree, treeFromText, treeToText } from "../../src/kpt/tree.js";
import { ParseCache } from "../../src/kpt/yaml/parse-cache.js";
import { kptfile, noBadValue, pipeline } from "../util/krm.js";
import { fakeRepoWith } from "./fake-repo.js";
import { jobContext } from "./helpers.js";

const KPTFILE = kptfile(
  "web",
  `${pipeline(["ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2", { team: "blue" }])}  validators:
    - image: gcr.io/kpt-fn/starlark:v0.5
      configPath: check.yaml
`,
);
const CHECK = noBadValue("check");
/** A file `yaml`'s parser reads (the fast reader leaves comment lines to it): what the cache keeps. */
const cm = (name: string, value = "1") =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name} # the ${name} map\ndata:\n  # the value\n  a: "${value}"\n`;
/** A file the fast reader reads: read again each time, never kept. */
const plain = (name: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n`;

/** A package of three ConfigMap files, the Kptfile and the validator's config. */
function pkg(values: Record<string, string> = {}): FileTree {
  return treeFromText({
    Kptfile: KPTFILE,
    "check.yaml": CHECK,
    "a.yaml": cm("a", values.a),
    "b.yaml": cm("b", values.b),
    "c.yaml": cm("c", values.c),
  });
}

const BUILTIN = { runtimes: ["builtin" as const] };

/** The package as it is once rendered: what a draft branch holds after the bot's render commit. */
async function rendered(tree: FileTree): Promise<FileTree> {
  const result = await new KptRenderer().render(tree, BUILTIN);
  expect(result.ok).toBe(true);
  return result.tree;
}

describe("KptRenderer across renders", () => {
  it("answers a tree that rendered to itself without running a function or parsing a file, the second time and after", async () => {
    const tree = await rendered(pkg());
    const renderer = new KptRenderer();
    const first = await renderer.render(tree, BUILTIN);
    expect(first.ok).toBe(true);
    expect(treeToText(first.tree)).toEqual(treeToText(tree));
    expect(first.findings.map((f) => f.message)).toEqual(["set 4 labels in total"]);
    // check.yaml is in the fast reader's subset: read, not parsed.
    expect(renderer.stats).toMatchObject({ functionsRun: 2, filesParsed: 3, filesRead: 1, unchanged: 0 });

    for (let i = 0; i < 2; i++) {
      const again = await renderer.render(tree, BUILTIN);
      expect(again).toEqual(first);
    }
    expect(renderer.stats).toMatchObject({
      renders: 3,
      functionsRun: 2,
      filesParsed: 3,
      filesRead: 1,
      unchanged: 2,
    });
  });

  it("gives the same answer after a restart (nothing remembered) as from memory", async () => {
    const tree = await rendered(pkg());
    const before = new KptRenderer();
    await before.render(tree, BUILTIN);
    const remembered = await before.render(tree, BUILTIN);
    const restarted = new KptRenderer();
    const fresh = await restarted.render(tree, BUILTIN);
    expect(fresh).toEqual(remembered);
    expect(restarted.stats).toMatchObject({ functionsRun: 2, filesParsed: 3, filesRead: 1, unchanged: 0 });
  });

  it("parses only the file a push changed, and renders it as a fresh renderer does", async () => {
    const renderer = new KptRenderer();
    const tree = await rendered(pkg());
    await renderer.render(tree, BUILTIN);
    const parsedBefore = renderer.stats.filesParsed;

    const pushed = new Map(tree);
    pushed.set("b.yaml", Buffer.from(cm("b", "2")));
    const result = await renderer.render(pushed, BUILTIN);
    expect(renderer.stats.filesParsed - parsedBefore).toBe(1);
    expect(renderer.stats.functionsRun).toBe(4);

    const fresh = await new KptRenderer().render(pushed, BUILTIN);
    expect(result).toEqual(fresh);
    expect(treeToText(result.tree)["b.yaml"]).toContain("team: blue");
    expect(treeToText(result.tree)["b.yaml"]).toContain('a: "2"');
  });

  it("hands each render its own documents: what one render's functions changed is not in the next", async () => {
    const renderer = new KptRenderer();
    const input = pkg();
    const first = await renderer.render(input, BUILTIN);
    const second = await renderer.render(input, BUILTIN);
    expect(renderer.stats).toMatchObject({ filesParsed: 3, filesRead: 2, functionsRun: 4 });
    expect(treeToText(second.tree)).toEqual(treeToText(first.tree));
    expect(second.findings).toEqual(first.findings);
  });

  it("runs the pipeline again when what may run differs, or when the Kptfile's pipeline changed", async () => {
    const renderer = new KptRenderer();
    const tree = await rendered(pkg());
    await renderer.render(tree, BUILTIN);
    await renderer.render(tree, { runtimes: ["builtin", "exec"] });
    expect(renderer.stats.functionsRun).toBe(4);
    const edited = new Map(tree);
    edited.set("Kptfile", Buffer.from(tree.get("Kptfile")!.toString().replaceAll("team: blue", "team: red")));
    const result = await renderer.render(edited, BUILTIN);
    expect(renderer.stats.functionsRun).toBe(6);
    expect(treeToText(result.tree)["a.yaml"]).toContain("team: red");
  });

  it("does not remember a render that failed: the next one runs again", async () => {
    const renderer = new KptRenderer();
    const broken = pkg({ b: "bad" });
    const first = await renderer.render(broken, BUILTIN);
    const second = await renderer.render(broken, BUILTIN);
    expect(first.ok).toBe(false);
    expect(second).toEqual(first);
    expect(renderer.stats.functionsRun).toBe(4);
  });
});

describe("ParseCache", () => {
  const yaml = (n: number) => Buffer.from(cm(`m${n}`));

  it("keeps none of the files the fast reader reads: it reads them again, as cheap as a copy", () => {
    const cache = new ParseCache();
    const bytes = Buffer.from(plain("p"));
    const first = cache.docs(bytes, bytes.toString(), "p.yaml");
    const second = cache.docs(bytes, bytes.toString(), "p.yaml");
    expect(cache).toMatchObject({ parsed: 0, hits: 0, read: 2, size: 0 });
    expect(second[0]).not.toBe(first[0]);
    expect(second[0]?.toString()).toBe(bytes.toString());
  });

  it("keeps files by content, whatever their path", () => {
    const cache = new ParseCache();
    const bytes = yaml(1);
    cache.docs(bytes, bytes.toString(), "one.yaml");
    const docs = cache.docs(Buffer.from(bytes), bytes.toString(), "elsewhere/two.yaml");
    expect(cache.parsed).toBe(1);
    expect(cache.hits).toBe(1);
    expect(docs[0]?.toString()).toBe(bytes.toString());
  });

  it("stays within its bound, dropping the least recently used file", () => {
    const one = yaml(1);
    const cache = new ParseCache(one.length * 2);
    const read = (b: Buffer) => cache.docs(b, b.toString(), "f.yaml");
    read(yaml(1));
    read(yaml(2));
    read(yaml(1)); // 1 is now the most recently used
    read(yaml(3)); // drops 2
    expect(cache.size).toBeLessThanOrEqual(one.length * 2);
    expect(cache.parsed).toBe(3);
    read(yaml(1));
    expect(cache.parsed).toBe(3);
    read(yaml(2));
    expect(cache.parsed).toBe(4);
  });

  it("hands out copies: changing what it gave does not change what it keeps", () => {
    const cache = new ParseCache();
    const bytes = yaml(1);
    const [doc] = cache.docs(bytes, bytes.toString(), "f.yaml");
    doc!.setIn(["data", "a"], "changed");
    const [again] = cache.docs(bytes, bytes.toString(), "f.yaml");
    expect(again!.getIn(["data", "a"])).toBe("1");
  });
});

describe("render on push to a draft branch, with the bot's renderer", () => {
  it("runs no function for a push that left the package's files as they rendered before", async () => {
    const branch = "drafts/apps/web/edit-1";
    const repo = fakeRepoWith({ "README.md": "hi\n" });
    repo.branch(branch, "main");
    repo.commit(branch, Object.fromEntries([...pkg()].map(([p, b]) => [`apps/web/${p}`, b.toString()])));
    const renderer = new KptRenderer();
    const ctx = { ...jobContext(repo), renderer };
    expect((await renderDraft(ctx, { branch })).kind).toBe("pushed");
    // The bot's render commit was rendered once as it was pushed (it renders to itself): the pushes
    // after it that leave the package as it is run nothing.
    const ran = renderer.stats.functionsRun;
    const first = repo.commit(branch, { "README.md": "edited outside the package\n" });
    expect(await renderDraft(ctx, { branch })).toEqual({ kind: "clean", headSha: first });

    const head = repo.commit(branch, { "README.md": "edited again\n" });
    const outcome = await renderDraft(ctx, { branch });
    expect(outcome).toEqual({ kind: "clean", headSha: head });
    expect(renderer.stats.functionsRun).toBe(ran);
    expect(renderer.stats.unchanged).toBe(2);
    const [check] = repo.runsOn(head, "porchlight/render");
    expect(check?.conclusion).toBe("success");
    expect(check?.annotations).toEqual(repo.runsOn(first, "porchlight/render")[0]?.annotations);

    // After a restart the same push gets the same check from a render that runs the pipeline.
    const restarted = new KptRenderer();
    const again = await renderDraft({ ...ctx, renderer: restarted }, { branch, force: true });
    expect(again).toEqual({ kind: "clean", headSha: head });
    expect(restarted.stats.functionsRun).toBe(2);
    expect(repo.runsOn(head, "porchlight/render")[0]?.annotations).toEqual(check?.annotations);
  });
});
