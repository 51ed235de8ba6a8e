/**
 * `npx tsx scripts/generated-files.ts DIR [--count N] [--seed S] [--no-seq-in-seq]`: writes N (default
 * 500) generated resource files into DIR (emptied first), for `npm run differential -- files DIR`: each a
 * resource whose body is a generated mapping (test/kpt/yaml/generated-yaml.ts) laid out compact or wide, with
 * comment lines and blank lines put in at any line and column, comments of every form (`# note`, `#`,
 * `# `, `#x`, `#  two`), line comments after scalars, flow collections and block scalars, a document's
 * last comments, sometimes a second document and no final line break. Shapes the corpus of public
 * repositories holds rarely; the same seed writes the same files.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import fc from "fast-check";
import { blockYaml, generatedMapping, inserted, insertions } from "../test/kpt/yaml/generated-yaml.js";

function main(args: readonly string[]): number {
  const dir = args.find((a, i) => !a.startsWith("--") && !args[i - 1]?.match(/^--(count|seed)$/));
  if (!dir) {
    process.stderr.write("usage: generated-files.ts DIR [--count N] [--seed S] [--no-seq-in-seq]\n");
    return 2;
  }
  const option = (name: string, fallback: number) => {
    const at = args.indexOf(name);
    return at >= 0 ? Number(args[at + 1]) : fallback;
  };
  const scalar = fc.constantFrom(
    "a",
    "1",
    "'q'",
    '"d"',
    "x y",
    "|\n  l1\n  l2",
    "[a, b]",
    "{k: v}",
    "",
    "~",
    "a # c",
    "b #",
    "c # ",
  );
  const key = fc.constantFrom("k", "name", "spec", "items", "data", "z", "annotations", "labels");
  const file = fc.record({
    body: generatedMapping(scalar, key, { seqInSeq: !args.includes("--no-seq-in-seq") }),
    wide: fc.boolean(),
    put: insertions,
    hash: fc.constantFrom("# note", "#", "# ", "#x", "#  two"),
    trailing: fc.constantFrom("", "# end\n", "#\n", "# \n", "  # end\n", "---\n", "---\n# after\n"),
    second: fc.boolean(),
    noFinalLineBreak: fc.boolean(),
  });
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = fc.sample(file, { numRuns: option("--count", 500), seed: option("--seed", 1) });
  files.forEach((f, i) => {
    let text = `apiVersion: v1\nkind: X\nmetadata:\n  name: x${i}\n${blockYaml(f.body, 0, f.wide, true)}`;
    text = inserted(text, f.put).replace(/# note \d+/g, (note) => (f.hash === "# note" ? note : f.hash));
    text += f.trailing;
    if (f.second) text += "---\napiVersion: v1\nkind: Y\nmetadata:\n  name: y\n";
    if (f.noFinalLineBreak) text = text.replace(/\n$/, "");
    writeFileSync(`${dir}/f${i}.yaml`, text);
  });
  process.stdout.write(`wrote ${files.length} files to ${dir}\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
