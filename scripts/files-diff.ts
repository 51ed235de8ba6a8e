/**
 * `npm run differential -- files DIR_OR_GIT_URL [--mode none|exec|both] [--batch N] [--limit N]
 * [--keep] [--list]`: every `.yaml`/`.yml` file of a directory or a git repository (cloned shallow),
 * each wrapped alone in a package with a bare Kptfile, rendered by kpt and by porchlight (bin/porchlight.js,
 * so build dist first) with no function and with one exec `cat` mutator; the same success or failure,
 * and the same bytes where kpt succeeds, or the file is counted by kind of difference.
 *
 * To keep 20,000 files within hours, files go in batches: each file is a subpackage of its own (its own
 * Kptfile, so rendered alone, as a package of one file) under one root rendered once per tool. A batch
 * where either tool fails is run again file by file, so one bad file never hides the others.
 */
import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { defaultRegistry } from "../src/fn/registry.js";
import { DEFAULT_RUN_OPTIONS } from "../src/fn/runtime/types.js";
import { render } from "../src/render/render.js";
import { firstDifference } from "../test/cli/get-differential.js";
import { kptAvailable, kptRender } from "../test/conformance/realworld.js";

const BIN = join(import.meta.dirname, "..", "bin", "porchlight.js");
const KPTFILE = (name: string, pipeline: string) =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${pipeline}`;
/** Larger files are left out: kpt and porchlight both take them, but they dominate the run's time. */
const MAX_BYTES = 512 * 1024;

type Kind =
  | "identical"
  | "both refuse"
  | "bytes differ"
  | "kpt renders, porchlight refuses"
  | "porchlight renders, kpt refuses";

interface Outcome {
  file: string;
  kind: Kind;
  detail?: string;
}

function yamlFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === ".git") continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && /\.ya?ml$/.test(e.name) && statSync(p).size <= MAX_BYTES) out.push(p);
    }
  };
  walk(root);
  return out.sort();
}

function source(arg: string, work: string): string {
  if (!/^(https?|file|git|ssh):\/\/|\.git$/.test(arg)) return arg;
  const dest = join(work, "source");
  const r = spawnSync("git", ["clone", "--quiet", "--depth", "1", arg, dest], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`cannot clone ${arg}: ${r.stderr.trim()}`);
  return dest;
}

function renderPorchlight(dir: string) {
  const r = spawnSync("node", [BIN, "fn", "render", "--allow-exec", "."], { cwd: dir, encoding: "utf8" });
  return { code: r.status ?? -1, stderr: r.stderr ?? "" };
}

/** A root package holding one subpackage per file, `pN/<the file's name>`, both tools' copies. */
function writeBatch(dir: string, files: readonly string[], pipeline: string): void {
  mkdirSync(join(dir, "in"), { recursive: true });
  writeFileSync(join(dir, "in", "Kptfile"), KPTFILE("root", ""));
  files.forEach((f, i) => {
    const sub = join(dir, "in", `p${i}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, "Kptfile"), KPTFILE(`p${i}`, pipeline));
    cpSync(f, join(sub, f.endsWith(".yml") ? "file.yml" : "file.yaml"));
  });
  cpSync(join(dir, "in"), join(dir, "kpt"), { recursive: true });
  cpSync(join(dir, "in"), join(dir, "porchlight"), { recursive: true });
}

/** Each file of a rendered batch: kpt's bytes against porchlight's (a file one side deleted reads `<deleted>`). */
function compareRendered(dir: string, files: readonly string[], root: string): Outcome[] {
  return files.map((f, i) => {
    const name = f.endsWith(".yml") ? "file.yml" : "file.yaml";
    const read = (side: string) => {
      try {
        return readFileSync(join(dir, side, `p${i}`, name), "utf8");
      } catch {
        return "<deleted>";
      }
    };
    const [a, b] = [read("kpt"), read("porchlight")];
    return {
      file: relative(root, f),
      kind: a === b ? "identical" : "bytes differ",
      detail: a === b ? undefined : firstDifference(a, b),
    };
  });
}

function lastLine(text: string): string {
  return text.trim().split("\n").pop() ?? "";
}

/**
 * The outcomes of `files` in one render per tool. Where either tool fails, the files its message
 * names (`…/p<N>/…`) are classified alone and the rest rendered again; a failure that names no file
 * splits the batch in halves, down to single files, classified by who refused.
 */
function compareOrSplit(files: readonly string[], root: string, dir: string, pipeline: string): Outcome[] {
  writeBatch(dir, files, pipeline);
  const kpt = kptRender(join(dir, "kpt"));
  const ours = renderPorchlight(join(dir, "porchlight"));
  if (kpt.code === 0 && ours.code === 0) return compareRendered(dir, files, root);
  if (files.length === 1) {
    const file = relative(root, files[0] as string);
    if (kpt.code !== 0 && ours.code !== 0) return [{ file, kind: "both refuse" }];
    if (kpt.code !== 0)
      return [{ file, kind: "porchlight renders, kpt refuses", detail: lastLine(kpt.stderr) }];
    return [{ file, kind: "kpt renders, porchlight refuses", detail: lastLine(ours.stderr) }];
  }
  const named = new Set<number>();
  for (const m of `${kpt.stderr}\n${ours.stderr}`.matchAll(/\/p(\d+)\/(?:file\.ya?ml|Kptfile)/g)) {
    const i = Number(m[1]);
    if (i < files.length) named.add(i);
  }
  if (named.size > 0) {
    const alone = [...named].flatMap((i, k) =>
      compareOrSplit([files[i] as string], root, join(dir, `x${k}`), pipeline),
    );
    const rest = files.filter((_, i) => !named.has(i));
    return rest.length > 0 ? [...alone, ...compareOrSplit(rest, root, join(dir, "r"), pipeline)] : alone;
  }
  const half = Math.ceil(files.length / 2);
  return [
    ...compareOrSplit(files.slice(0, half), root, join(dir, "a"), pipeline),
    ...compareOrSplit(files.slice(half), root, join(dir, "b"), pipeline),
  ];
}

/**
 * The files porchlight's own render refuses, found in-process (milliseconds a file): kept out of the
 * batches, each is run alone by both tools, so a corpus with many files no tool renders (templates,
 * invalid YAML) costs a few renders each instead of a batch render apiece.
 */
async function refusedByPorchlight(files: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  const env = { registry: defaultRegistry(), run: DEFAULT_RUN_OPTIONS };
  for (const f of files) {
    const name = f.endsWith(".yml") ? "file.yml" : "file.yaml";
    const tree = new Map([
      ["Kptfile", Buffer.from(KPTFILE("p", ""))],
      [name, readFileSync(f)],
    ]);
    const r = await render(tree, "", env).catch(() => undefined);
    if (!r?.ok) out.add(f);
  }
  return out;
}

function runMode(
  files: string[],
  refused: ReadonlySet<string>,
  root: string,
  work: string,
  mode: string,
  batch: number,
  keep: boolean,
) {
  const pipeline = mode === "exec" ? `pipeline:\n  mutators:\n  - exec: ${join(work, "cat.sh")}\n` : "";
  const outcomes: Outcome[] = [];
  // porchlight refuses these (its in-process render did): only kpt's answer is still to be had.
  for (const [i, f] of [...refused].entries()) {
    const dir = join(work, `${mode}-refused-${i}`);
    writeBatch(dir, [f], pipeline);
    const kpt = kptRender(join(dir, "kpt"));
    const file = relative(root, f);
    outcomes.push(
      kpt.code === 0 ? { file, kind: "kpt renders, porchlight refuses" } : { file, kind: "both refuse" },
    );
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  const rest = files.filter((f) => !refused.has(f));
  for (let start = 0; start < rest.length; start += batch) {
    const dir = join(work, `${mode}-${start}`);
    outcomes.push(...compareOrSplit(rest.slice(start, start + batch), root, dir, pipeline));
    if (!keep) rmSync(dir, { recursive: true, force: true });
    process.stderr.write(`\r${mode}: ${Math.min(start + batch, rest.length)}/${rest.length}`);
  }
  process.stderr.write("\n");
  return outcomes;
}

export async function main(args: readonly string[]): Promise<number> {
  const opt = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const [what, target] = args;
  if (what !== "files" || !target) {
    process.stderr.write(
      "usage: npm run differential -- files DIR_OR_GIT_URL [--mode none|exec|both] [--batch N] [--limit N] [--keep] [--list]\n",
    );
    return 2;
  }
  if (!kptAvailable()) {
    process.stderr.write("kpt is not installed: nothing to compare with\n");
    return 0;
  }
  const work = mkdtempSync(join(tmpdir(), "porchlight-files-diff-"));
  writeFileSync(join(work, "cat.sh"), "#!/bin/sh\ncat\n", { mode: 0o755 });
  const root = source(target, work);
  const limit = Number(opt("limit") ?? Number.POSITIVE_INFINITY);
  const files = yamlFiles(root).slice(0, limit);
  const modes = (opt("mode") ?? "both") === "both" ? ["none", "exec"] : [opt("mode") as string];
  const keep = args.includes("--keep");
  const refused = await refusedByPorchlight(files);
  let failures = 0;
  for (const mode of modes) {
    const outcomes = runMode(files, refused, root, work, mode, Number(opt("batch") ?? 200), keep);
    const byKind = new Map<Kind, Outcome[]>();
    for (const o of outcomes) byKind.set(o.kind, [...(byKind.get(o.kind) ?? []), o]);
    process.stdout.write(`mode ${mode}: ${outcomes.length} files\n`);
    for (const [kind, list] of [...byKind].sort((a, b) => b[1].length - a[1].length)) {
      process.stdout.write(`  ${kind}: ${list.length}\n`);
      if (kind === "identical" || kind === "both refuse") continue;
      failures += list.length;
      for (const o of list.slice(0, args.includes("--list") ? list.length : 5))
        process.stdout.write(`    ${o.file}${o.detail ? ` — ${o.detail}` : ""}\n`);
    }
  }
  if (keep) process.stdout.write(`work kept in ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
  return failures === 0 ? 0 : 1;
}
