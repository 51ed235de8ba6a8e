/**
 * `npx tsx scripts/house-counts.ts [DIR|FILE] [--exclude SUBDIR]… [--list as|unknown|nonnull|long]`: the counts
 * issue #37 tracks, read off the TypeScript syntax tree of every `.ts` file under DIR (default `src`):
 * `as` expressions (`as const` counted apart), `as unknown as`, non-null `!` assertions (and how many of
 * them have a comment on their line or the line above), and functions longer than 60 and 100 lines.
 * `--list` prints each place of one kind, longest functions first.
 */
import { statSync } from "node:fs";
import { houseCounts, type Place, tsSources } from "../test/house-counts.js";

function main(args: readonly string[]): number {
  const exclude: string[] = [];
  let list: string | undefined;
  let dir = "src";
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--exclude" || arg === "--list") {
      const value = args[++i];
      if (!value) {
        process.stderr.write(`${arg} needs a value\n`);
        return 2;
      }
      if (arg === "--exclude") exclude.push(value);
      else list = value;
    } else if (arg) dir = arg;
  }
  const root = process.cwd();
  const c = houseCounts(statSync(dir).isDirectory() ? tsSources(dir, exclude) : [dir], root);
  const over = (n: number) => c.functions.filter((f) => f.lines > n);
  const lists: Record<string, Place[]> = {
    as: c.as,
    unknown: c.asUnknownAs,
    nonnull: c.nonNull,
    uncommented: c.nonNullUncommented,
    long: over(100).sort((a, b) => b.lines - a.lines),
    long60: over(60).sort((a, b) => b.lines - a.lines),
  };
  if (list) {
    const places = lists[list];
    if (!places) {
      process.stderr.write(`--list takes one of ${Object.keys(lists).join(", ")}\n`);
      return 2;
    }
    for (const p of places) {
      const size = "lines" in p ? ` ${p.lines}` : "";
      process.stdout.write(`${p.file}:${p.line}${size} ${p.text}\n`);
    }
    return 0;
  }
  const rows: [string, number][] = [
    ["as (not as const)", c.as.length],
    ["as const", c.asConst.length],
    ["as unknown as", c.asUnknownAs.length],
    ["non-null !", c.nonNull.length],
    ["non-null ! without a comment", c.nonNullUncommented.length],
    ["functions > 100 lines", over(100).length],
    ["functions > 60 lines", over(60).length],
  ];
  for (const [name, n] of rows) process.stdout.write(`${name.padEnd(30)}${n}\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
