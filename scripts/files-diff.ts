/**
 * `npm run differential -- files DIR_OR_GIT_URL [--mode none|exec|both] [--batch N] [--limit N]
 * [--timeout S] [--keep] [--list]`: every `.yaml`/`.yml` file of a directory or a git repository (cloned shallow),
 * each wrapped alone in a package with a bare Kptfile, rendered by kpt and by porchlight (bin/porchlight.js,
 * so build dist first) with no function and with one exec `cat` mutator; the same success or failure,
 * and the same bytes where kpt succeeds, or the file is counted by kind of difference.
 *
 * To keep 20,000 files within hours, files go in batches: each file is a subpackage of its own (its own
 * Kptfile, so rendered alone, as a package of one file) under one root rendered once per tool. A batch
 * where either tool fails is run again file by file, so one bad file never hides the others.
 *
 * No render may stall the run (issue #55: `\n#\na:` once looped for ever): every render — kpt's, the
 * porchlight CLI's, and porchlight's in-process check — is stopped when it runs past `--timeout`
 * seconds (20 by default; a batch gets the same bound as one file, as a batch of 200 takes a few seconds
 * at most a tool), its whole process group killed. A batch that runs past it is split like a failing
 * one, and a file that runs past it alone is counted `timed out`, naming the side (or sides).
 */
import { fork, spawn, spawnSync } from "node:child_process";
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
import { fileURLToPath } from "node:url";
import { defaultRegistry } from "../src/fn/registry.js";
import { DEFAULT_RUN_OPTIONS } from "../src/fn/runtime/types.js";
import { render } from "../src/render/render.js";
import { firstDifference } from "../test/cli/get-differential.js";
import { kptAvailable } from "../test/conformance/realworld.js";

const BIN = join(import.meta.dirname, "..", "bin", "porchlight.js");
const KPTFILE = (name: string, pipeline: string) =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${pipeline}`;
/** Larger files are left out: kpt and porchlight both take them, but they dominate the run's time. */
const MAX_BYTES = 512 * 1024;
/** The argument that makes this module, run as a process of its own, porchlight's in-process check. */
const CHECKER_ARG = "--porchlight-files-diff-checker";

type Kind =
  | "identical"
  | "both refuse"
  | "bytes differ"
  | "kpt renders, porchlight refuses"
  | "porchlight renders, kpt refuses"
  | "timed out";

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

export interface BoundedRun {
  /** The exit code; -1 when the process was stopped (or died of a signal). */
  code: number;
  stderr: string;
  /** True when it ran past the bound and its process group was killed. */
  timedOut: boolean;
}

/**
 * `command args` in `cwd`, stopped when it runs past `ms`: it leads a process group of its own, and the
 * whole group gets SIGKILL (a tool's own children, an exec function, go with it), so a render that never
 * returns costs `ms` and no more.
 */
export function runBounded(
  command: string,
  args: readonly string[],
  cwd: string,
  ms: number,
): Promise<BoundedRun> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, detached: true, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    let timedOut = false;
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // the group is gone already
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, ms);
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ code: -1, stderr: String(e), timedOut });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      // Whatever the leader left running in its group goes with it.
      kill();
      resolve({ code: timedOut ? -1 : (code ?? -1), stderr, timedOut });
    });
  });
}

const renderPorchlight = (dir: string, ms: number) =>
  runBounded(process.execPath, [BIN, "fn", "render", "--allow-exec", "."], dir, ms);
const renderKpt = (dir: string, ms: number) =>
  runBounded("kpt", ["fn", "render", "--allow-exec", "."], dir, ms);

/** A file one side (or both) ran past the bound on, alone: the detail names the side and the other's answer. */
function timedOutOutcome(file: string, kpt: BoundedRun, ours: BoundedRun | "past", seconds: number): Outcome {
  const answer = (r: BoundedRun) => (r.code === 0 ? "renders" : "refuses");
  const oursPast = ours === "past" || ours.timedOut;
  const detail =
    kpt.timedOut && oursPast
      ? `both kpt and porchlight ran past ${seconds} s`
      : kpt.timedOut
        ? `kpt ran past ${seconds} s (porchlight ${answer(ours as BoundedRun)})`
        : `porchlight ran past ${seconds} s (kpt ${answer(kpt)})`;
  return { file, kind: "timed out", detail };
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
 * names (`…/p<N>/…`) are classified alone and the rest rendered again; a failure that names no file,
 * or a render that ran past the bound, splits the batch in halves, down to single files, classified
 * by who refused (or who ran past the bound).
 */
async function compareOrSplit(
  files: readonly string[],
  root: string,
  dir: string,
  pipeline: string,
  ms: number,
): Promise<Outcome[]> {
  writeBatch(dir, files, pipeline);
  const kpt = await renderKpt(join(dir, "kpt"), ms);
  const ours = await renderPorchlight(join(dir, "porchlight"), ms);
  if (kpt.code === 0 && ours.code === 0) return compareRendered(dir, files, root);
  if (files.length === 1) {
    const file = relative(root, files[0] as string);
    if (kpt.timedOut || ours.timedOut) return [timedOutOutcome(file, kpt, ours, ms / 1000)];
    if (kpt.code !== 0 && ours.code !== 0) return [{ file, kind: "both refuse" }];
    if (kpt.code !== 0)
      return [{ file, kind: "porchlight renders, kpt refuses", detail: lastLine(kpt.stderr) }];
    return [{ file, kind: "kpt renders, porchlight refuses", detail: lastLine(ours.stderr) }];
  }
  const named = new Set<number>();
  // A render stopped part way names what it had reached, not what failed: only halves then.
  const messages = kpt.timedOut || ours.timedOut ? "" : `${kpt.stderr}\n${ours.stderr}`;
  for (const m of messages.matchAll(/\/p(\d+)\/(?:file\.ya?ml|Kptfile)/g)) {
    const i = Number(m[1]);
    if (i < files.length) named.add(i);
  }
  if (named.size > 0) {
    const alone: Outcome[] = [];
    for (const [k, i] of [...named].entries())
      alone.push(...(await compareOrSplit([files[i] as string], root, join(dir, `x${k}`), pipeline, ms)));
    const rest = files.filter((_, i) => !named.has(i));
    return rest.length > 0
      ? [...alone, ...(await compareOrSplit(rest, root, join(dir, "r"), pipeline, ms))]
      : alone;
  }
  const half = Math.ceil(files.length / 2);
  return [
    ...(await compareOrSplit(files.slice(0, half), root, join(dir, "a"), pipeline, ms)),
    ...(await compareOrSplit(files.slice(half), root, join(dir, "b"), pipeline, ms)),
  ];
}

/**
 * The files porchlight's own render refuses, found in-process (milliseconds a file): kept out of the
 * batches, each is run alone by both tools, so a corpus with many files no tool renders (templates,
 * invalid YAML) costs a few renders each instead of a batch render apiece.
 *
 * The renders run in a child process (this module, run with CHECKER_ARG), which answers file by file;
 * one that runs past the bound is stopped with the process, counted in `timedOut`, and a new child
 * goes on from the next file.
 */
async function refusedByPorchlight(
  files: readonly string[],
  ms: number,
): Promise<{ refused: Set<string>; timedOut: Set<string> }> {
  const refused = new Set<string>();
  const timedOut = new Set<string>();
  let next = 0;
  while (next < files.length) {
    const child = fork(fileURLToPath(import.meta.url), [CHECKER_ARG], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    await new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let stopped = false;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          stopped = true;
          timedOut.add(files[next] as string);
          next++;
          child.kill("SIGKILL");
        }, ms);
      };
      child.on("message", (m: { ready?: true; i?: number; ok?: boolean }) => {
        if (stopped) return;
        if (m.i !== undefined) {
          if (!m.ok) refused.add(files[m.i] as string);
          next = m.i + 1;
        }
        if (next < files.length) arm();
        else child.disconnect();
      });
      child.on("exit", () => {
        clearTimeout(timer);
        // A child that died on a file (not stopped by the bound) counts the file refused, and goes on.
        if (!stopped && next < files.length) refused.add(files[next++] as string);
        resolve();
      });
      child.send({ files, start: next });
    });
  }
  return { refused, timedOut };
}

/** The check's child: renders the files it is sent, from `start`, and answers `{ i, ok }` for each. */
async function checker(): Promise<void> {
  const env = { registry: defaultRegistry(), run: DEFAULT_RUN_OPTIONS };
  const { files, start } = await new Promise<{ files: string[]; start: number }>((resolve) =>
    process.once("message", resolve as (m: unknown) => void),
  );
  process.send?.({ ready: true });
  for (let i = start; i < files.length; i++) {
    const f = files[i] as string;
    const name = f.endsWith(".yml") ? "file.yml" : "file.yaml";
    const tree = new Map([
      ["Kptfile", Buffer.from(KPTFILE("p", ""))],
      [name, readFileSync(f)],
    ]);
    const r = await render(tree, "", env).catch(() => undefined);
    process.send?.({ i, ok: r?.ok === true });
  }
}

async function runMode(
  files: string[],
  check: { refused: ReadonlySet<string>; timedOut: ReadonlySet<string> },
  root: string,
  work: string,
  mode: string,
  batch: number,
  keep: boolean,
  ms: number,
): Promise<Outcome[]> {
  const pipeline = mode === "exec" ? `pipeline:\n  mutators:\n  - exec: ${join(work, "cat.sh")}\n` : "";
  const outcomes: Outcome[] = [];
  // porchlight refuses these (its in-process render did), or ran past the bound on them: only kpt's
  // answer is still to be had.
  for (const [i, f] of [...check.refused, ...check.timedOut].entries()) {
    const dir = join(work, `${mode}-alone-${i}`);
    writeBatch(dir, [f], pipeline);
    const kpt = await renderKpt(join(dir, "kpt"), ms);
    const file = relative(root, f);
    if (check.timedOut.has(f)) outcomes.push(timedOutOutcome(file, kpt, "past", ms / 1000));
    else if (kpt.timedOut)
      outcomes.push(timedOutOutcome(file, kpt, { code: 1, stderr: "", timedOut: false }, ms / 1000));
    else
      outcomes.push(
        kpt.code === 0 ? { file, kind: "kpt renders, porchlight refuses" } : { file, kind: "both refuse" },
      );
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  const rest = files.filter((f) => !check.refused.has(f) && !check.timedOut.has(f));
  for (let start = 0; start < rest.length; start += batch) {
    const dir = join(work, `${mode}-${start}`);
    outcomes.push(...(await compareOrSplit(rest.slice(start, start + batch), root, dir, pipeline, ms)));
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
      "usage: npm run differential -- files DIR_OR_GIT_URL [--mode none|exec|both] [--batch N] [--limit N] [--timeout S] [--keep] [--list]\n",
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
  const seconds = Number(opt("timeout") ?? 20);
  if (!(seconds > 0)) {
    process.stderr.write(`--timeout takes a number of seconds above 0, not ${opt("timeout")}\n`);
    return 2;
  }
  const check = await refusedByPorchlight(files, seconds * 1000);
  let failures = 0;
  for (const mode of modes) {
    const outcomes = await runMode(
      files,
      check,
      root,
      work,
      mode,
      Number(opt("batch") ?? 200),
      keep,
      seconds * 1000,
    );
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

if (process.argv[2] === CHECKER_ARG && process.send) void checker();
