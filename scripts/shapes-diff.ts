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
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { differingFiles, kptAvailable, kptRender, readTextTree } from "../test/conformance/realworld.js";

const BIN = join(import.meta.dirname, "..", "bin", "porchlight.js");
const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n";

/** Texts a scalar is made of: ones that read as other types, need quotes, or are just words. */
const ATOMS = [
  "a", "b c", "x: y", "x #y", "#x", "- x", "* x", "&a", "!t", "%p", "@a", "`b", "'q'", '"d"', "é", "日本",
  "😀", " lead", "trail ", "0x1F", "1e3", "0o17", ".5", "+1", "1_000", "yes", "no", "on", "off", "~", "null",
  "NULL", "True", "2001-12-14", "12:30:45", "0", "-0", "007", "1.0", "[x]", "{x}", "a,b", "?", ":", "-", "|",
  ">", "a\tb", "k=v", "http://x.y/z?a=b&c", "${var}", "a  b", "=", "<<", "0.1.2", "1:2", "-1", "+.inf", ".NaN",
  "0b101", "Y", "n",
]; // biome-ignore format: a table

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
  const args = process.argv.slice(2);
  const opt = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const [from, to] = (opt("--seeds") ?? "1-10").split("-").map(Number) as [number, number?];
  const fn = opt("--function") ?? "none";
  if (!["none", "exec", "builtin"].includes(fn))
    throw new Error(`--function: none, exec or builtin, not ${fn}`);
  if (!kptAvailable()) {
    process.stderr.write("kpt is not installed: nothing to compare with\n");
    return 0;
  }
  const crlf = args.includes("--crlf");
  const work = mkdtempSync(join(tmpdir(), "porchlight-shapes-"));
  const cat = join(work, "cat.sh");
  writeFileSync(cat, "#!/bin/sh\ncat\n", { mode: 0o755 });
  const pipeline = (step: string) => `pipeline:\n  mutators:\n  - ${step}\n`;
  const kptPipeline = fn === "none" ? "" : pipeline(`exec: ${cat}`);
  const ourPipeline =
    fn === "builtin"
      ? pipeline("image: gcr.io/kpt-fn/apply-setters:v0.2.0\n    configMap:\n      unused: x")
      : kptPipeline;
  let total = 0;
  for (let seed = from; seed <= (to ?? from); seed++) {
    const dir = join(work, `s${seed}`);
    const input = join(dir, "input");
    mkdirSync(input, { recursive: true });
    for (const [name, text] of generate(seed))
      writeFileSync(join(input, name), crlf ? text.replaceAll("\n", "\r\n") : text);
    cpSync(input, join(dir, "kpt"), { recursive: true });
    cpSync(input, join(dir, "porchlight"), { recursive: true });
    writeFileSync(join(dir, "kpt", "Kptfile"), KPTFILE + kptPipeline);
    writeFileSync(join(dir, "porchlight", "Kptfile"), KPTFILE + ourPipeline);
    const kpt = kptRender(join(dir, "kpt"));
    const ours = spawnSync("node", [BIN, "fn", "render", "--allow-exec", "."], {
      cwd: join(dir, "porchlight"),
      encoding: "utf8",
    });
    const differing = differingFiles(
      readTextTree(join(dir, "kpt")),
      readTextTree(join(dir, "porchlight")),
    ).filter((f) => f !== "Kptfile");
    total += differing.length;
    process.stdout.write(`seed ${seed}: ${differing.length} differing\n`);
    if (kpt.code !== 0 || ours.status !== 0) {
      process.stdout.write(`  kpt exit ${kpt.code}: ${lastLine(kpt.stderr)}\n`);
      process.stdout.write(`  porchlight exit ${ours.status}: ${lastLine(ours.stderr)}\n`);
    }
    if (!args.includes("--quiet")) {
      for (const f of differing) {
        const d = spawnSync("diff", ["-u", join(dir, "kpt", f), join(dir, "porchlight", f)], {
          encoding: "utf8",
        });
        process.stdout.write(d.stdout);
      }
    }
  }
  process.stdout.write(`${total} differing files in all\n`);
  if (args.includes("--keep")) process.stdout.write(`packages kept in ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
  return total === 0 ? 0 : 1;
}

function lastLine(text: string | Buffer | null | undefined): string {
  return (
    String(text ?? "")
      .trim()
      .split("\n")
      .pop() ?? ""
  );
}

process.exitCode = main();
