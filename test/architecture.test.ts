import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

const PROJECT = join(import.meta.dirname, "..");
const SRC = join(PROJECT, "src");

/** docs/architecture.md's table: each layer of src/ and its rank. */
function ranks(): Map<string, number> {
  const text = readFileSync(join(PROJECT, "docs/architecture.md"), "utf8");
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^\| (\d+) \| `(\w+)` \|/gm)) out.set(m[2] as string, Number(m[1]));
  return out;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Every relative import or re-export of a module, as the layer it reaches. */
function importsOf(file: string): { spec: string; layer: string }[] {
  const text = readFileSync(file, "utf8");
  const out: { spec: string; layer: string }[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.[^"]+)"/g)) {
    const target = relative(SRC, normalize(join(dirname(file), m[1] as string)));
    if (target.startsWith("..")) continue;
    out.push({ spec: m[1] as string, layer: target.split("/")[0] as string });
  }
  for (const m of text.matchAll(/\bimport\(\s*"(\.[^"]+)"\s*\)/g)) {
    const target = relative(SRC, normalize(join(dirname(file), m[1] as string)));
    if (!target.startsWith("..")) out.push({ spec: m[1] as string, layer: target.split("/")[0] as string });
  }
  return out;
}

describe("src/'s layers (docs/architecture.md)", () => {
  const table = ranks();

  it("the table names every directory of src/", () => {
    const dirs = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect([...table.keys()].sort()).toEqual(dirs);
  });

  it("no import climbs: a module imports its own layer and lower ones only", () => {
    const climbing: string[] = [];
    for (const file of sources(SRC)) {
      const layer = relative(SRC, file).split("/")[0] as string;
      if (!table.has(layer)) continue;
      for (const { spec, layer: to } of importsOf(file)) {
        if (to === layer) continue;
        const from = table.get(layer) as number;
        const rank = table.get(to);
        if (rank === undefined || rank >= from)
          climbing.push(`${relative(PROJECT, file)}: ${spec} (${layer}, rank ${from} → ${to}, rank ${rank})`);
      }
    }
    expect(climbing).toEqual([]);
  });

  it("api, the floor, imports nothing of the project", () => {
    const reaching = sources(join(SRC, "api")).flatMap((file) =>
      importsOf(file)
        .filter((i) => i.layer !== "api")
        .map((i) => `${relative(PROJECT, file)}: ${i.spec}`),
    );
    expect(reaching).toEqual([]);
  });
});
