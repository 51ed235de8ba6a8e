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
): fc.Arbitrary<[string, unknown][]> {
  const node: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      scalar,
      fc.uniqueArray(fc.tuple(key, tie("node")), { minLength: 1, maxLength: 4, selector: ([k]) => k }),
      fc.array(tie("node"), { minLength: 1, maxLength: 3 }).map((items) => ({ seq: items })),
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
