import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { docPages, PROJECT } from "../util/doc-blocks.js";

/** A page's lines outside its fenced blocks, numbered from 1 (links in a code block are text). */
function prose(file: string): { line: number; text: string }[] {
  const lines = readFileSync(join(PROJECT, file), "utf8").split("\n");
  const out: { line: number; text: string }[] = [];
  let fence: string | undefined;
  lines.forEach((text, i) => {
    const open = /^ *(`{3,})/.exec(text)?.[1];
    if (fence === undefined && open) fence = open;
    else if (fence !== undefined && text.trim() === fence) fence = undefined;
    else if (fence === undefined) out.push({ line: i + 1, text });
  });
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as `-`; a repeat gets `-1`, `-2`. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of prose(file)) {
    const heading = /^#{1,6} +(.*?) *#*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Why a relative link of `page` does not resolve, or undefined where it does. */
function brokenLink(page: string, target: string): string | undefined {
  const [path = "", anchor] = target.split("#");
  const file = path === "" ? page : relative(PROJECT, join(PROJECT, dirname(page), path));
  if (file.startsWith("..") || !existsSync(join(PROJECT, file))) return `no file ${file}`;
  if (anchor !== undefined && file.endsWith(".md") && !anchorsOf(file).has(anchor))
    return `no heading in ${file} gives #${anchor}`;
  return undefined;
}

/**
 * Every relative link of README.md and docs/ resolves: to a file of the project, and where it names a
 * heading of a page, to a heading that page has. A section moved or renamed fails here, naming the
 * page and line of each link left pointing at it.
 */
describe("the docs' links", () => {
  it("resolve to a file of the project, and to a heading of the page they name", () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of docPages()) {
      for (const { line, text } of prose(page)) {
        for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = m[1] as string;
          if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
          checked++;
          const why = brokenLink(page, target);
          if (why) broken.push(`${page}:${line}: (${target}) ${why}`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  it("are read as GitHub anchors them (headings with code and punctuation)", () => {
    expect(brokenLink("docs/update-deviations.md", "")).toBeUndefined();
    expect(
      brokenLink("README.md", "docs/operations.md#data-npm-start-on-the-embedded-forge"),
    ).toBeUndefined();
    expect(
      brokenLink("docs/fanout.md", "catalog.md#rules-checked-on-every-read-and-every-change"),
    ).toBeUndefined();
    expect(brokenLink("README.md", "docs/kpt-compat.md#pkg-init-pkg-tree-and-errors")).toBeUndefined();
    expect(brokenLink("docs/benchmarks.md", "#the-bots-renderer")).toBeUndefined();
    expect(brokenLink("docs/benchmarks.md", "rpkg.md#the-cache-on-disk")).toBeUndefined();
    expect(brokenLink("docs/benchmarks.md", "#benchmarks-that-are-not-there")).toMatch(/no heading/);
    expect(brokenLink("README.md", "docs/nowhere.md")).toMatch(/no file docs\/nowhere.md/);
    expect(brokenLink("docs/rpkg.md", "../../outside.md")).toMatch(/no file/);
  });
});
