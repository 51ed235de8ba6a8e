import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultRegistry } from "../../src/fn/registry.js";
import { DEFAULT_RUN_OPTIONS } from "../../src/fn/runtime/types.js";
import { type FileTree, readTree, treeToText } from "../../src/kpt/tree.js";
import { ParseCache } from "../../src/kpt/yaml/parse-cache.js";
import { type RenderOutcome, render } from "../../src/render/render.js";
import { listPackages, REALWORLD_DIR, replacePipeline } from "../conformance/realworld.js";

/**
 * A render whose files come from the parse cache (copies of documents parsed by an earlier render)
 * writes what a render that parses them writes, byte for byte: over every kpt-style render case, and
 * every real-world package with its pipelines removed (only reading, formatting and writing).
 */
const FIXTURES = join(import.meta.dirname, "../fixtures/render");
const env = { registry: defaultRegistry(), run: DEFAULT_RUN_OPTIONS, rootDir: "/pkg" };

async function fixtureInput(name: string): Promise<FileTree> {
  const tree = await readTree(join(FIXTURES, name));
  for (const path of [...tree.keys()]) if (path.startsWith(".expected/")) tree.delete(path);
  return tree;
}

async function realworldInput(pkg: string): Promise<FileTree> {
  const tree = await readTree(join(REALWORLD_DIR!, pkg));
  for (const [path, bytes] of tree) {
    if (path === "Kptfile" || path.endsWith("/Kptfile")) {
      tree.set(path, Buffer.from(replacePipeline(bytes.toString("utf8"))));
    }
  }
  return tree;
}

function seen(o: RenderOutcome) {
  return { ok: o.ok, error: o.error?.message, files: treeToText(o.tree), functions: o.functionCount };
}

async function sameFromCache(input: () => Promise<FileTree>): Promise<void> {
  const parsed = await render(await input(), "", env);
  const cache = new ParseCache();
  await render(await input(), "", { ...env, parseCache: cache });
  const parsedBefore = cache.parsed;
  const cached = await render(await input(), "", { ...env, parseCache: cache });
  if (parsed.ok) expect(cache.parsed).toBe(parsedBefore);
  expect(seen(cached)).toEqual(seen(parsed));
}

const fixtures = readdirSync(FIXTURES).filter((c) => existsSync(join(FIXTURES, c, "Kptfile")));

describe("render from parsed files kept across renders", () => {
  it.each(fixtures)("render case %s", async (name) => {
    await sameFromCache(() => fixtureInput(name));
  });

  it.skipIf(REALWORLD_DIR === undefined).each(listPackages())("real-world package %s", async (pkg) => {
    await sameFromCache(() => realworldInput(pkg));
  });
});
