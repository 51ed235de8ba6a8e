import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";

/**
 * Generated YAML for the readers' tests (yaml-fast.test.ts, kpt-form.test.ts): a mapping is an array of
 * [key, value] pairs, a sequence `{ seq: items }`, a scalar its text as written after `key: ` (a
 * literal's lines indented by two under it).
 */
export function generatedMapping(
  scalar: fc.Arbitrary<string>,
  key: fc.Arbitrary<string>,
  { seqInSeq = true, depthSize = "small" }: { seqInSeq?: boolean; depthSize?: fc.DepthSize } = {},
): fc.Arbitrary<[string, unknown][]> {
  const node: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown; item: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize, withCrossShrink: true },
      scalar,
      fc.uniqueArray(fc.tuple(key, tie("node")), { minLength: 1, maxLength: 4, selector: ([k]) => k }),
      fc
        .array(tie(seqInSeq ? "node" : "item"), { minLength: 1, maxLength: 3 })
        .map((items) => ({ seq: items })),
    ),
    // an item of a sequence when no sequence is one
    item: fc.oneof(
      { depthSize, withCrossShrink: true },
      scalar,
      fc.uniqueArray(fc.tuple(key, tie("node")), { minLength: 1, maxLength: 4, selector: ([k]) => k }),
    ),
  })).node;
  return fc.uniqueArray(fc.tuple(key, node), { minLength: 1, maxLength: 4, selector: ([k]) => k });
}

/** A generated value as block YAML at `indent` (`top`: the start of a line). */
export function blockYaml(v: unknown, indent: number, wide: boolean, top: boolean): string {
  const pad = " ".repeat(indent);
  if (typeof v === "string") {
    if (v.includes("\n")) return `${v.replace(/\n {2}/g, `\n${pad}  `)}\n`;
    return `${v}\n`;
  }
  if (Array.isArray(v)) {
    return v
      .map(([k, val]: [string, unknown], i) => {
        const lead = i === 0 && !top ? "" : pad;
        if (typeof val === "string") return `${lead}${k}: ${blockYaml(val, indent, wide, false)}`;
        if (Array.isArray(val)) return `${lead}${k}:\n${blockYaml(val, indent + 2, wide, true)}`;
        const seqIndent = wide ? indent + 2 : indent;
        return `${lead}${k}:\n${blockYaml(val, seqIndent, wide, true)}`;
      })
      .join("");
  }
  const items = (v as { seq: unknown[] }).seq;
  return items
    .map((item, i) => {
      const lead = i === 0 && !top ? "" : pad;
      if (typeof item === "string") return `${lead}- ${blockYaml(item, indent, wide, false)}`;
      if (Array.isArray(item)) return `${lead}- ${blockYaml(item, indent + 2, wide, false)}`;
      return `${lead}-\n${blockYaml(item, indent + 2, wide, true)}`;
    })
    .join("");
}

export function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === ".git") continue;
    const st = statSync(p);
    if (st.isDirectory()) out.push(...yamlFiles(p));
    else if (/\.ya?ml$/.test(name) || name === "Kptfile") out.push(p);
  }
  return out;
}

/**
 * How laidOutYaml writes a generated value: the spaces each mapping level is indented by, where a
 * sequence's `- ` is from its key's column (0 compact, 2 wide, or further), the spaces after a `- `,
 * and a literal's lines' indentation from its key's (or its `- `'s) column.
 */
export interface Layout {
  map: number;
  seq: number;
  dash: number;
  literal: number;
}

export const layouts: fc.Arbitrary<Layout> = fc.record({
  map: fc.integer({ min: 1, max: 4 }),
  seq: fc.constantFrom(0, 1, 2, 3, 4),
  dash: fc.integer({ min: 1, max: 3 }),
  literal: fc.integer({ min: 1, max: 4 }),
});

/** A generated value as block YAML at `indent`, as blockYaml, laid out as `layout` says. */
export function laidOutYaml(v: unknown, indent: number, layout: Layout, top: boolean): string {
  const pad = " ".repeat(indent);
  if (typeof v === "string") {
    if (v.includes("\n")) return `${v.replace(/\n {2}/g, `\n${pad}${" ".repeat(layout.literal)}`)}\n`;
    return `${v}\n`;
  }
  if (Array.isArray(v)) {
    return v
      .map(([k, val]: [string, unknown], i) => {
        const lead = i === 0 && !top ? "" : pad;
        if (typeof val === "string") return `${lead}${k}: ${laidOutYaml(val, indent, layout, false)}`;
        if (Array.isArray(val)) return `${lead}${k}:\n${laidOutYaml(val, indent + layout.map, layout, true)}`;
        return `${lead}${k}:\n${laidOutYaml(val, indent + layout.seq, layout, true)}`;
      })
      .join("");
  }
  const items = (v as { seq: unknown[] }).seq;
  const dash = `-${" ".repeat(layout.dash)}`;
  return items
    .map((item, i) => {
      const lead = i === 0 && !top ? "" : pad;
      if (typeof item === "string") return `${lead}${dash}${laidOutYaml(item, indent, layout, false)}`;
      if (Array.isArray(item))
        return `${lead}${dash}${laidOutYaml(item, indent + 1 + layout.dash, layout, false)}`;
      return `${lead}-\n${laidOutYaml(item, indent + layout.map, layout, true)}`;
    })
    .join("");
}

/**
 * Lines put into a text: at line `at` (modulo the lines), an empty line, a line of `column % 4 + 1`
 * spaces, a comment line (at the column of the line after it, of the line before it, or at `column`),
 * a comment line and an empty line, spaces at the end of the line, or a line comment after it. A
 * comment is `text` where given (`#`, `# `, `# x`), else `# note N`.
 */
export interface Insertion {
  at: number;
  what:
    | "empty"
    | "spaces line"
    | "comment"
    | "comment, empty"
    | "comment before"
    | "comment at"
    | "spaces"
    | "line comment";
  column: number;
  text?: string;
}

export const insertions: fc.Arbitrary<Insertion[]> = fc.array(
  fc.record({
    at: fc.nat(),
    what: fc.constantFrom(
      "empty",
      "comment",
      "comment",
      "comment, empty",
      "comment before",
      "comment at",
      "spaces",
    ),
    column: fc.nat({ max: 8 }),
  }),
  { maxLength: 6 },
);

/**
 * `text` with the insertions made, one after another. `outsideBlockScalars`: a line that would go
 * among a block scalar's lines (which would end the scalar, or be its text) goes after them instead.
 */
export function inserted(
  text: string,
  list: readonly Insertion[],
  { outsideBlockScalars = false }: { outsideBlockScalars?: boolean } = {},
): string {
  const lines = text.split("\n");
  const last = lines.pop();
  for (const { at, what, column, text: comment } of list) {
    let i = at % (lines.length + 1);
    if (outsideBlockScalars) {
      const inside = blockScalarLines(lines);
      while (inside.has(i)) i++;
    }
    const indentOf = (l: string | undefined) => (l === undefined ? 0 : l.length - l.trimStart().length);
    if (what === "spaces") {
      if (i < lines.length) lines[i] = `${lines[i]}${" ".repeat(1 + (column % 3))}`;
      continue;
    }
    if (what === "line comment") {
      // after a line's content; a comment line or a blank line gets none
      const line = lines[i];
      if (line !== undefined && line.trim() !== "" && !line.trimStart().startsWith("#"))
        lines[i] = `${line} ${comment ?? "# t"}`;
      continue;
    }
    if (what === "empty" || what === "spaces line") {
      lines.splice(i, 0, what === "empty" ? "" : " ".repeat(1 + (column % 4)));
      continue;
    }
    const col =
      what === "comment before"
        ? indentOf(lines[i - 1])
        : what === "comment at"
          ? column
          : indentOf(lines[i]);
    lines.splice(i, 0, `${" ".repeat(col)}${comment ?? `# note ${i}`}`);
    if (what === "comment, empty") lines.splice(i + 1, 0, "");
  }
  lines.push(last ?? "");
  return lines.join("\n");
}

/** The indexes of the lines of `lines` that are a block scalar's text (after a `|` or `>` header). */
export function blockScalarLines(lines: readonly string[]): Set<number> {
  const inside = new Set<number>();
  let header: number | undefined;
  lines.forEach((line, i) => {
    const indent = line.length - line.trimStart().length;
    if (header !== undefined && (line.trim() === "" || indent > header)) {
      inside.add(i);
      return;
    }
    header = /(^|[:-]) +[|>][-+]?( +#.*)? *$/.test(line) ? indent : undefined;
  });
  return inside;
}
