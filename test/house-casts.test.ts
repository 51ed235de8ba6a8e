import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const PROJECT = join(import.meta.dirname, "..");
const SRC = join(PROJECT, "src");
/** The forge, a workspace package beside src/, keeps the same rule; its files are named from the project. */
const FORGE = join(PROJECT, "packages/forge/src");

/**
 * The `as unknown as` casts src/ keeps, each for a reason no check at the door can serve: a library
 * whose published types are wrong or whose internals porchlight relies on by design. Anything else is
 * data entering from outside: check it where it enters (zod, a type guard), as src/github/responses.ts
 * does. The counts only go down: lower one here when a cast goes.
 */
const KEPT: Record<string, { count: number; why: string }> = {
  "packages/forge/src/catfile.ts": {
    count: 2,
    why: "a stream's undocumented ref/unref (the forge's own cat-file pool)",
  },
  "kpt/yaml/yaml-fast.ts": {
    count: 2,
    why: "yaml's schema internals the fast reader relies on (pinned, test/kpt/yaml/yaml-internals.test.ts)",
  },
  "kpt/yaml/yaml-nodes.ts": {
    count: 7,
    why: "yaml's node classes made without their constructors' work (pinned, as above)",
  },
  "github/octokit.ts": {
    count: 2,
    why: "probot's Octokit class and Bottleneck's script hook, typed apart by their packages",
  },
};

/** The file a key of KEPT names. */
function fileOf(key: string): string {
  return key.startsWith("packages/") ? join(PROJECT, key) : join(SRC, key);
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

describe("casts in src/ and the forge", () => {
  const counts = new Map<string, number>();
  for (const file of [...sources(SRC), ...sources(FORGE)]) {
    const n = readFileSync(file, "utf8").split("as unknown as").length - 1;
    if (n > 0) counts.set(file.startsWith(FORGE) ? relative(PROJECT, file) : relative(SRC, file), n);
  }

  it("adds no `as unknown as`: data from outside is checked where it enters", () => {
    const over = [...counts]
      .filter(([file, n]) => n > (KEPT[file]?.count ?? 0))
      .map(
        ([file, n]) =>
          `${relative(PROJECT, fileOf(file))}: ${n} \`as unknown as\` (kept: ${KEPT[file]?.count ?? 0})`,
      );
    expect(over, "check the value where it enters (zod, a type guard) instead of casting it").toEqual([]);
  });

  it("keeps the list honest: a cast that went is struck from it", () => {
    const stale = Object.entries(KEPT)
      .filter(([file, k]) => (counts.get(file) ?? 0) < k.count)
      .map(([file, k]) => `${file}: kept ${k.count}, now ${counts.get(file) ?? 0}`);
    expect(stale, "lower the count in test/house-casts.test.ts").toEqual([]);
  });
});
