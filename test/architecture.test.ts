import { existsSync, readdirSync, readFileSync } from "node:fs";
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

/** Every module a file imports or re-exports, statically or with `import()`, as written. */
function specifiersOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/g),
    ...text.matchAll(/(?:^|\n)\s*import\s+"([^"]+)"/g),
    ...text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g),
  ].map((m) => m[1] as string);
}

/** Every relative import or re-export of a module, as the layer it reaches. */
function importsOf(file: string): { spec: string; layer: string }[] {
  return specifiersOf(file)
    .filter((spec) => spec.startsWith("."))
    .map((spec) => ({ spec, target: relative(SRC, normalize(join(dirname(file), spec))) }))
    .filter(({ target }) => !target.startsWith(".."))
    .map(({ spec, target }) => ({ spec, layer: target.split("/")[0] as string }));
}

/** docs/architecture.md's table of workspace packages: each one's folder, name, and who in src/ imports it. */
function packages(): { dir: string; name: string; importers: string[] }[] {
  const text = readFileSync(join(PROJECT, "docs/architecture.md"), "utf8");
  return [...text.matchAll(/^\| `(packages\/[\w-]+)` \(`([^`]+)`\) \|[^|]*\| ([^|]*) \|$/gm)].map((m) => ({
    dir: m[1] as string,
    name: m[2] as string,
    importers: [...(m[3] as string).matchAll(/`([^`]+)`/g)].map((f) => f[1] as string),
  }));
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

  it("no file of src/ reaches into a workspace package's files, only to its name", () => {
    const reaching = sources(SRC).flatMap((file) =>
      specifiersOf(file)
        .filter((spec) => spec.startsWith(".") && relative(SRC, join(dirname(file), spec)).startsWith(".."))
        .map((spec) => `${relative(PROJECT, file)}: ${spec}`),
    );
    expect(reaching).toEqual([]);
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

/** docs/architecture.md's table of rooms: a folder inside a layer, and what else of its layer it may import. */
function rooms(): { room: string; allowed: string[] }[] {
  const text = readFileSync(join(PROJECT, "docs/architecture.md"), "utf8");
  return [...text.matchAll(/^\| `(\w+(?:\/[\w-]+)+)` \|[^|]*\| ([^|]*) \|$/gm)].map((m) => ({
    room: m[1] as string,
    allowed: [...(m[2] as string).matchAll(/`([^`]+)`/g)].map((f) => f[1] as string),
  }));
}

describe("the rooms inside a layer (docs/architecture.md)", () => {
  const table = rooms();
  const layerOf = (path: string) => path.split("/")[0] as string;
  /** The outermost room that holds `path` (a room inside a room shares its floor). */
  const roomOf = (path: string) =>
    table
      .map((r) => r.room)
      .find((room) => path.startsWith(`${room}/`) && !table.some((o) => room.startsWith(`${o.room}/`)));

  it("the table names folders that exist", () => {
    expect(table.length).toBeGreaterThan(0);
    for (const { room, allowed } of table) {
      expect(existsSync(join(SRC, room)), room).toBe(true);
      for (const a of allowed) expect(existsSync(join(SRC, a)), `${room}: ${a}`).toBe(true);
    }
  });

  it("a room imports, of its own layer, only itself and the files its row names", () => {
    const leaving: string[] = [];
    for (const file of sources(SRC)) {
      const path = relative(SRC, file);
      const room = roomOf(path);
      if (!room) continue;
      const allowed = table.filter((r) => path.startsWith(`${r.room}/`)).flatMap((r) => r.allowed);
      for (const { spec } of importsOf(file)) {
        const target = relative(SRC, normalize(join(dirname(file), spec))).replace(/\.js$/, ".ts");
        if (layerOf(target) !== layerOf(path) || target.startsWith(`${room}/`)) continue;
        if (allowed.some((a) => target === a || target.startsWith(`${a}/`))) continue;
        leaving.push(`${relative(PROJECT, file)}: ${spec} (room ${room})`);
      }
    }
    expect(leaving).toEqual([]);
  });
});

describe("the workspace packages beside src/ (docs/architecture.md)", () => {
  const table = packages();

  it("the table names every package of packages/, by its package.json's name", () => {
    const dirs = readdirSync(join(PROJECT, "packages"), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `packages/${e.name}`);
    expect(table.map((p) => p.dir).sort()).toEqual(dirs.sort());
    for (const p of table)
      expect(JSON.parse(readFileSync(join(PROJECT, p.dir, "package.json"), "utf8")).name).toBe(p.name);
  });

  it.each(table)("$dir imports nothing of src/ nor of the project outside it", ({ dir }) => {
    const root = join(PROJECT, dir);
    const reaching = ["src", "test"]
      .filter((sub) => existsSync(join(root, sub)))
      .flatMap((sub) =>
        sources(join(root, sub)).flatMap((file) =>
          specifiersOf(file)
            .filter((spec) =>
              spec.startsWith(".")
                ? relative(root, join(dirname(file), spec)).startsWith("..")
                : spec === "porchlight" || spec.startsWith("porchlight/"),
            )
            .map((spec) => `${relative(PROJECT, file)}: ${spec}`),
        ),
      );
    expect(reaching).toEqual([]);
  });

  it.each(table)("in src/, only the files the table names import $name", ({ name, importers }) => {
    const importing = sources(SRC)
      .filter((file) => specifiersOf(file).some((spec) => spec === name || spec.startsWith(`${name}/`)))
      .map((file) => relative(SRC, file))
      .sort();
    expect(importing).toEqual([...importers].sort());
  });
});

describe("Porch's engine and its command line (issue #68)", () => {
  it("src/porch/ prints nothing and reads no argv: its doors say what its operations answer", () => {
    const printing = sources(join(SRC, "porch")).flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, i) =>
          /\bconsole\.|\bprocess\.(stdout|stderr|argv)\b/.test(line)
            ? [`${relative(PROJECT, file)}:${i + 1}`]
            : [],
        ),
    );
    expect(printing).toEqual([]);
  });

  it("src/cli/rpkg/ keeps to parsing, progress and porchctl's output: 2,500 lines at most", () => {
    const dir = join(SRC, "cli/rpkg");
    const lines = readdirSync(dir)
      .filter((f) => f.endsWith(".ts"))
      .reduce((n, f) => n + readFileSync(join(dir, f), "utf8").split("\n").length - 1, 0);
    expect(lines, "move what an rpkg verb does into src/porch/, as an operation").toBeLessThanOrEqual(2500);
  });
});
