/**
 * A random differential of what a package file may hold besides comments (scripts/comments-diff.ts has
 * those): scalars of every style and of texts that read as other types, tags and anchors, explicit and
 * long keys, flow collections over several lines, block scalars with every header, empty values and
 * items with comments, document markers. Writes packages of ConfigMaps, renders each with kpt and with
 * porchlight (bin/porchlight.js, so build dist first) and prints the files that differ.
 *
 * usage: tsx scripts/shapes-diff.ts [--seeds FROM-TO] [--function KIND] [--crlf] [--keep] [--quiet]
 *   --seeds: one package per seed (default 1-10), each of 40 files;
 *   --function: `none` (default), `exec` (both run an exec function that echoes its input, `cat`), or
 *     `builtin` (kpt runs that exec function, porchlight a builtin that changes nothing: expect a
 *     folded scalar to differ there, the container's own trip that the builtin stands for);
 *   --crlf: the files' lines end in CRLF;
 *   --keep: leave the packages (the input, kpt's and porchlight's output) and print where they are.
 * Files `yaml` cannot read are not written (regenerated); a package kpt or porchlight refuses is
 * reported with both messages. Skips, saying so, when kpt is not installed.
 */
import { parseAllDocuments } from "yaml";
import { differentialArgs, FUNCTIONS, runDifferential } from "./render-differential.js";

/** Texts a scalar is made of: ones that read as other types, need quotes, or are just words. */
// biome-ignore format: a table
const ATOMS = [
  "a", "b c", "x: y", "x #y", "#x", "- x", "* x", "&a", "!t", "%p", "@a", "`b", "'q'", '"d"', "é", "日本",
  "😀", " lead", "trail ", "0x1F", "1e3", "0o17", ".5", "+1", "1_000", "yes", "no", "on", "off", "~", "null",
  "NULL", "True", "2001-12-14", "12:30:45", "0", "-0", "007", "1.0", "[x]", "{x}", "a,b", "?", ":", "-", "|",
  ">", "a\tb", "k=v", "http://x.y/z?a=b&c", "$(var)", "a  b", "=", "<<", "0.1.2", "1:2", "-1", "+.inf", ".NaN",
  "0b101", "Y", "n",
]

const SCALARS = [
  "a",
  "b c",
  "1",
  "true",
  "~",
  '"q"',
  "'s'",
  "x-y",
  "http://h/p",
  '"a\\nb"',
  "'it''s'",
  "null",
  "-1",
];
const KEYS = [
  '"quoted key"',
  "'sq key'",
  '"1"',
  "with.dot",
  "with/slash",
  "a b",
  '"a: b"',
  "x-y",
  "KEY",
  "123",
  "true",
];

export function generate(seedArg: number): Map<string, string> {
  let seed = seedArg * 7919 + 13;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const text = (): string => {
    if (rnd() < 0.1) return Array.from({ length: 12 }, () => pick(ATOMS)).join(" ");
    const n = 1 + Math.floor(rnd() * 3);
    return Array.from({ length: n }, () => pick(ATOMS)).join(pick([" ", "", "-", "\n", "  "]));
  };
  /** A scalar of any style holding `v`, after `key:` at `ind` (its first line without the space). */
  const scalar = (v: string, ind: string): string[] => {
    const r = rnd();
    if (r < 0.25) return [JSON.stringify(v)];
    if (r < 0.4 && !v.includes("\n")) return [`'${v.replace(/'/g, "''")}'`];
    if (r < 0.5) {
      const header = pick(["|", "|-", "|+", ">", ">-", ">+"]);
      return [header, ...v.split("\n").map((l) => (l === "" ? "" : `${ind}  ${l}`))];
    }
    const plain = !/[\n\t]/.test(v) && !/^[\s\-?:,[\]{}#&*!|>'"%@`]/.test(v) && !/(:\s|:$|\s#|\s$)/.test(v);
    return [plain ? v : JSON.stringify(v)];
  };
  type Shape = (ind: string) => string[];
  const shapes: Shape[] = [
    (ind) => scalar(text(), ind),
    () => [`[${pick(SCALARS)}, [${pick(SCALARS)}, ${pick(SCALARS)}], {a: ${pick(SCALARS)}}]`],
    () => [`{a: [${pick(SCALARS)}], b: {c: ${pick(SCALARS)}}, d: ${pick(SCALARS)}}`],
    (ind) => [`[${pick(SCALARS)},`, `${ind}  ${pick(SCALARS)}, ${pick(SCALARS)}]`],
    (ind) => [`{a: ${pick(SCALARS)},`, `${ind}  b: ${pick(SCALARS)}}`],
    () => [pick(["[]", "{}", "[ ]", "{ }"])],
    (ind) => {
      const header = pick(["|", "|-", "|+", ">", ">-", ">+", "|2", "|1-", ">2+"]);
      const n = Number(header.match(/\d/)?.[0] ?? 2);
      const lines = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () =>
        pick(["text", "  more", "", "a: b", "# not a comment", "x\ty", "end  "]),
      );
      return [header, ...lines.map((l) => (l === "" ? "" : `${ind}${" ".repeat(n)}${l}`))];
    },
    (ind) => [
      "|",
      `${ind}  line one`,
      `${ind}  line two`,
      pick([`${ind}# after`, `${ind}  # deeper`, "# col 0"]),
    ],
    () => [pick(["", "~", "null", "Null"])],
    (ind) => [
      pick(["# on an empty value", "~ # on a tilde", ""]),
      ...(rnd() < 0.5 ? [`${ind}# under it`] : []),
    ],
    (ind) => ["word one", `${ind}  continued plain`, `${ind}  third`],
    (ind) => ['"first line', `${ind}  second \\t escaped`, "", `${ind}  after a blank line"`],
    (ind) => ["'one", `${ind}  two'`],
    (ind) => ["", ...Array.from({ length: 2 }, () => `${ind}  - ${pick(SCALARS)}`)],
    (ind) => ["", ...Array.from({ length: 2 }, () => `${ind}- ${pick(SCALARS)}`)],
    (ind) => [
      "",
      `${ind}- a: ${pick(SCALARS)}`,
      `${ind}  b: ${pick(SCALARS)}`,
      `${ind}- ${pick(KEYS)}: ${pick(SCALARS)}`,
    ],
    (ind) => ["", `${ind}- - ${pick(SCALARS)}`, `${ind}  - ${pick(SCALARS)}`, `${ind}- []`],
    (ind) => ["", `${ind}- |`, `${ind}  text`, `${ind}- >-`, `${ind}  folded`, `${ind}  more`],
    (ind) => ["", `${ind}-`, `${ind}- ${pick(SCALARS)}`, `${ind}- # on an empty item`],
    (ind) => ["", `${ind}    x: ${pick(SCALARS)}`, `${ind}    y:`, `${ind}        z: ${pick(SCALARS)}`],
    (ind) => [
      "",
      `${ind}  ${pick(KEYS)}: ${pick(SCALARS)}`,
      `${ind}  ${"k".repeat(120 + Math.floor(rnd() * 20))}: v`,
    ],
    (ind) => ["&anchor", `${ind}  x: 1`],
    () => [pick(["&a x", "!!str 1", '!!int "3"', "!custom v", "&c !t v", "!!str", "! x"])],
    (ind) => ["", `${ind}  <<: {m: 1}`, `${ind}  n: 2`],
    () => [`${pick(SCALARS)}   `],
    () => [`${pick(SCALARS)} # a line comment`],
    () => [`${pick(SCALARS)}\t# after a tab`],
    () => [pick(["é", '"\\u00e9"', "日本語", '"\\U0001F600"', "😀", '"\\x7f"', '"\\e"'])],
  ];
  const doc = (i: number): string => {
    const lines = [
      ...(rnd() < 0.1 ? ["--- # on the first separator"] : []),
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata:",
      `  name: c${i}`,
      "data:",
    ];
    for (let k = 0; k < 4; k++) {
      const [first, ...rest] = pick(shapes)("  ");
      lines.push(`  f${k}:${first === "" ? "" : ` ${first}`}`, ...rest);
    }
    // (no `...` document end: kpt writes a comment on an empty last item before one where it writes no
    // other, not reproduced)
    if (rnd() < 0.1) lines.push("---", "# a document of comments only");
    return `${lines.join("\n")}\n`;
  };
  const files = new Map<string, string>();
  for (let f = 0; f < 40; f++) {
    for (let tries = 0; tries < 50; tries++) {
      // a third of the files hold two or three documents
      const n = rnd() < 0.3 ? 2 + Math.floor(rnd() * 2) : 1;
      const t = Array.from({ length: n }, (_, d) => doc(f * 10 + d)).join("---\n");
      if (parseAllDocuments(t).some((d) => d.errors.length > 0)) continue;
      files.set(`f${f}.yaml`, t);
      break;
    }
  }
  return files;
}

function main(): number {
  const { opt: _, ...run } = differentialArgs(process.argv.slice(2));
  if (Number.isNaN(run.from) || !FUNCTIONS.includes(run.fn)) {
    process.stderr.write(
      `usage: --seeds FROM-TO --function ${FUNCTIONS.join("|")} [--crlf] [--keep] [--quiet]\n`,
    );
    return 2;
  }
  return runDifferential({ ...run, name: "shapes", generate });
}

process.exitCode = main();
