import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readTree } from "../src/kpt/tree.js";
import { generatePackage, reindented } from "./render-package.js";

/** The five builtins of the benchmark pipeline, with the config each gets. */
const PIPELINE = [
  { name: "set-namespace", config: "namespace: bench" },
  { name: "set-labels", config: "team: platform\n        tier: web" },
  { name: "set-annotations", config: "owner: bench-team" },
  { name: "apply-setters", config: 'replicas: "3"' },
  { name: "set-image", config: "name: registry.example.com/app\n        newTag: 2.0.0" },
];

const REPO = join(import.meta.dirname, "..");
const CLI = join(REPO, "bin", "porchlight.js");

/** One whole-process run: wall and CPU seconds, peak resident memory. */
interface Run {
  wall: number;
  cpu: number;
  maxRssMiB: number;
}

/** The medians of a command's runs (peak memory: the largest seen). */
interface Figure extends Run {
  runs: number;
}

export interface RenderBenchRow {
  resources: number;
  porchlight: Figure;
  kpt?: Figure;
  /** No function, on the package indented four spaces: every file read, formatted and written. */
  porchlightReformat: Figure;
  kptReformat?: Figure;
  porchlight5: Figure;
  kpt5?: Figure;
  /**
   * No function and the five builtins, both with `--output stdout`: every resource read into nodes and
   * written out, so the pair shows what the builtins add to reading and writing (a render that writes
   * files back with no function reads none of them: kpt-form.ts).
   */
  porchlightRead: Figure;
  porchlight5Read: Figure;
  /** The no-function renders again without NODE_EXTRA_CA_CERTS, where it is set (Node reads it at start). */
  porchlightNoCerts?: Figure;
  porchlightReformatNoCerts?: Figure;
  sameAsKpt?: boolean;
  sameAsKptReformat?: boolean;
}

/**
 * `porchlight fn render` against `kpt fn render`, whole processes, run side by side (interleaved, so a
 * busy machine slows both alike) on the same generated package: with no function (the package as kpt
 * writes it, so nothing changes; and the package indented four spaces, so every file is read, formatted
 * and written), and with five functions (porchlight's builtins; kpt's five no-op `exec` functions,
 * the cheapest pipeline kpt can run). Wall and CPU time are medians; memory is the peak resident set of
 * the process (GNU time). The no-function outputs are compared byte for byte.
 */
export async function benchRender(sizes = [1000, 10000], withKpt = true): Promise<RenderBenchRow[]> {
  ensureBuilt();
  const kpt = withKpt && hasKpt();
  const timer = existsSync("/usr/bin/time");
  const load = loadavg().map((l) => l.toFixed(2));
  console.log(
    `render: ${availableParallelism()} cores, load average ${load.join(" ")}, node ${process.version}` +
      `${kpt ? `, kpt ${kptVersion()}` : ", kpt not run"}${timer ? "" : ", /usr/bin/time missing (no CPU or memory figures)"}`,
  );
  const certs = process.env.NODE_EXTRA_CA_CERTS;
  if (certs) console.log(`render: ${extraCertsCost(certs)}`);
  const work = mkdtempSync(join(tmpdir(), "porchlight-bench-"));
  const rows: RenderBenchRow[] = [];
  try {
    const noop = join(work, "noop.sh");
    writeFileSync(noop, "#!/bin/sh\ncat\n", { mode: 0o755 });
    for (const n of sizes) {
      const plain = writePackage(join(work, `plain-${n}`), generatePackage(n, ""));
      const wide = writePackage(join(work, `wide-${n}`), reindented(generatePackage(n, "")));
      const builtins = writePackage(join(work, `builtins-${n}`), generatePackage(n, builtinPipeline()));
      const execs = writePackage(join(work, `exec-${n}`), generatePackage(n, execPipeline(noop)));
      const commands: [string, string, string[], NodeJS.ProcessEnv?][] = [
        ["porchlight", plain, ["node", CLI, "fn", "render"]],
        ["porchlightReformat", wide, ["node", CLI, "fn", "render"]],
        ["porchlight5", builtins, ["node", CLI, "fn", "render"]],
        ["porchlightRead", wide, ["node", CLI, "fn", "render", "-o", "stdout"]],
        ["porchlight5Read", builtins, ["node", CLI, "fn", "render", "-o", "stdout"]],
      ];
      if (certs) {
        const without = withoutExtraCerts();
        commands.push(["porchlightNoCerts", plain, ["node", CLI, "fn", "render"], without]);
        commands.push(["porchlightReformatNoCerts", wide, ["node", CLI, "fn", "render"], without]);
      }
      if (kpt) {
        commands.push(["kpt", plain, ["kpt", "fn", "render"]]);
        commands.push(["kptReformat", wide, ["kpt", "fn", "render"]]);
        commands.push(["kpt5", execs, ["kpt", "fn", "render", "--allow-exec"]]);
      }
      const repeats = n >= 10000 ? 3 : 5;
      const runs = new Map<string, Run[]>(commands.map(([k]) => [k, []]));
      for (let i = 0; i < repeats; i++) {
        for (const [key, source, argv, env] of commands) {
          const dir = join(work, `run-${key}`);
          rmSync(dir, { recursive: true, force: true });
          cpSync(source, dir, { recursive: true });
          // The copy's data and metadata go to disk first: a file created while the journal still
          // holds the copy's (the render's temporary files) waits for it, a cost of the copy, not of the render.
          spawnSync("sync");
          runs.get(key)!.push(timed([...argv, dir], work, timer, env));
        }
      }
      const row: RenderBenchRow = {
        resources: n,
        porchlight: median(runs.get("porchlight")!),
        porchlightReformat: median(runs.get("porchlightReformat")!),
        porchlight5: median(runs.get("porchlight5")!),
        porchlightRead: median(runs.get("porchlightRead")!),
        porchlight5Read: median(runs.get("porchlight5Read")!),
      };
      if (certs) {
        row.porchlightNoCerts = median(runs.get("porchlightNoCerts")!);
        row.porchlightReformatNoCerts = median(runs.get("porchlightReformatNoCerts")!);
      }
      if (kpt) {
        row.kpt = median(runs.get("kpt")!);
        row.kptReformat = median(runs.get("kptReformat")!);
        row.kpt5 = median(runs.get("kpt5")!);
        row.sameAsKpt = await sameTrees(join(work, "run-porchlight"), join(work, "run-kpt"));
        row.sameAsKptReformat = await sameTrees(
          join(work, "run-porchlightReformat"),
          join(work, "run-kptReformat"),
        );
      }
      rows.push(row);
      printRow(row);
    }
    printSummary(rows);
    console.log(
      `\nrender: load average at the end ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return rows;
}

export function builtinPipeline(): string {
  return `pipeline:\n  mutators:\n${PIPELINE.map(
    (f) => `  - image: gcr.io/kpt-fn/${f.name}:latest\n    configMap:\n        ${f.config}\n`,
  ).join("")}`;
}

function execPipeline(noop: string): string {
  return `pipeline:\n  mutators:\n${`  - exec: ${noop}\n`.repeat(5)}`;
}

function writePackage(dir: string, tree: Map<string, Buffer>): string {
  for (const [path, bytes] of tree) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), bytes);
  }
  return dir;
}

/** Runs a command to completion under GNU time; throws when it fails. */
function timed(argv: string[], work: string, timer: boolean, env?: NodeJS.ProcessEnv): Run {
  const out = join(work, "time.txt");
  const [cmd, ...args] = timer ? ["/usr/bin/time", "-f", "%e %U %S %M", "-o", out, ...argv] : argv;
  const start = performance.now();
  const r = spawnSync(cmd!, args, {
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    env: env ?? process.env,
  });
  const wall = (performance.now() - start) / 1000;
  if (r.status !== 0) throw new Error(`${argv.slice(0, -1).join(" ")} failed:\n${r.stderr}`);
  if (!timer) return { wall, cpu: Number.NaN, maxRssMiB: Number.NaN };
  const [, user, sys, maxKiB] = readFileSync(out, "utf8").trim().split(/\s+/).map(Number);
  return { wall, cpu: user! + sys!, maxRssMiB: maxKiB! / 1024 };
}

function median(runs: Run[]): Figure {
  const mid = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return {
    wall: mid(runs.map((r) => r.wall)),
    cpu: mid(runs.map((r) => r.cpu)),
    maxRssMiB: Math.max(...runs.map((r) => r.maxRssMiB)),
    runs: runs.length,
  };
}

async function sameTrees(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([readTree(a), readTree(b)]);
  if (x.size !== y.size) return false;
  for (const [path, bytes] of x) if (!y.get(path)?.equals(bytes)) return false;
  return true;
}

const s = (x: number) => `${x.toFixed(2)} s`;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

function printRow(r: RenderBenchRow): void {
  const lines: string[][] = [["", "porchlight", "kpt", "porchlight/kpt"]];
  const add = (label: string, p: Figure, k: Figure | undefined) => {
    lines.push([`${label} wall`, s(p.wall), k ? s(k.wall) : "-", k ? ratio(p.wall, k.wall) : "-"]);
    lines.push([`${label} CPU`, s(p.cpu), k ? s(k.cpu) : "-", k ? ratio(p.cpu, k.cpu) : "-"]);
    lines.push([
      `${label} peak memory`,
      `${p.maxRssMiB.toFixed(0)} MiB`,
      k ? `${k.maxRssMiB.toFixed(0)} MiB` : "-",
      k ? ratio(p.maxRssMiB, k.maxRssMiB) : "-",
    ]);
  };
  add("no function", r.porchlight, r.kpt);
  add("no function, reformat", r.porchlightReformat, r.kptReformat);
  add("5 functions", r.porchlight5, r.kpt5);
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  console.log(`\nrender ${r.resources} resources (${r.porchlight.runs} runs each, medians):`);
  for (const l of lines)
    console.log(`  ${l.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")}`);
  console.log(
    `  5 builtins / no function reformatting: ${ratio(r.porchlight5.wall, r.porchlightReformat.wall)} wall, ` +
      `${ratio(r.porchlight5.cpu, r.porchlightReformat.cpu)} CPU (/ no function: ${ratio(r.porchlight5.cpu, r.porchlight.cpu)} CPU)`,
  );
  // Both read every resource into nodes and write it out: what the builtins add to that.
  console.log(
    `  every resource read (--output stdout): no function ${s(r.porchlightRead.cpu)} CPU, ` +
      `${r.porchlightRead.maxRssMiB.toFixed(0)} MiB; 5 builtins ${s(r.porchlight5Read.cpu)} CPU, ` +
      `${r.porchlight5Read.maxRssMiB.toFixed(0)} MiB; 5 builtins / no function ` +
      `${ratio(r.porchlight5Read.wall, r.porchlightRead.wall)} wall, ${ratio(r.porchlight5Read.cpu, r.porchlightRead.cpu)} CPU`,
  );
  const noCerts = (label: string, p: Figure | undefined, k: Figure | undefined) =>
    p
      ? `${label} ${s(p.wall)} wall${k ? ` (${ratio(p.wall, k.wall)} kpt)` : ""}, ${s(p.cpu)} CPU${k ? ` (${ratio(p.cpu, k.cpu)})` : ""}`
      : "";
  if (r.porchlightNoCerts)
    console.log(
      `  without NODE_EXTRA_CA_CERTS: ${noCerts("no function", r.porchlightNoCerts, r.kpt)}; ` +
        noCerts("reformat", r.porchlightReformatNoCerts, r.kptReformat),
    );
  if (r.sameAsKpt !== undefined)
    console.log(
      `  no-function output identical to kpt's: ${r.sameAsKpt ? "yes" : "NO"}; reformatted: ${r.sameAsKptReformat ? "yes" : "NO"}`,
    );
}

/** Cost per resource at each size, and how it grows from the smallest size to the largest. */
function printSummary(rows: RenderBenchRow[]): void {
  if (rows.length < 2) return;
  const first = rows[0]!;
  const last = rows[rows.length - 1]!;
  const per = (f: Figure | undefined, n: number) => (f ? (f.wall * 1e6) / n : Number.NaN);
  const growth = (f: (r: RenderBenchRow) => Figure | undefined) =>
    ratio(per(f(last), last.resources), per(f(first), first.resources));
  const kinds: [string, (r: RenderBenchRow) => Figure, (r: RenderBenchRow) => Figure | undefined][] = [
    ["no function", (r) => r.porchlight, (r) => r.kpt],
    ["no function, reformat", (r) => r.porchlightReformat, (r) => r.kptReformat],
  ];
  for (const [label, ours, theirs] of kinds) {
    console.log(`\nper resource (${label}, wall):`);
    for (const r of rows) {
      const k = theirs(r) ? `, kpt ${per(theirs(r), r.resources).toFixed(0)} µs` : "";
      console.log(
        `  ${String(r.resources).padStart(6)}: porchlight ${per(ours(r), r.resources).toFixed(0)} µs${k}`,
      );
    }
    console.log(
      `  per-resource time at ${last.resources} vs ${first.resources}: porchlight ${growth(ours)}` +
        (theirs(first) ? `, kpt ${growth(theirs)}` : ""),
    );
  }
}

/**
 * NODE_EXTRA_CA_CERTS makes every Node process read and parse those certificates before it runs a line
 * (kpt reads certificates only for a TLS connection): what that costs Node's bare start here.
 */
function extraCertsCost(certs: string): string {
  const start = (env: NodeJS.ProcessEnv) => {
    const walls: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      spawnSync(process.execPath, ["-e", "0"], { env, stdio: "ignore" });
      walls.push((performance.now() - t) / 1000);
    }
    return walls.sort((a, b) => a - b)[2]!;
  };
  return (
    `NODE_EXTRA_CA_CERTS=${certs} is set: Node's bare start takes ${s(start(process.env))} with it, ` +
    `${s(start(withoutExtraCerts()))} without (every porchlight run pays the difference; kpt does not)`
  );
}

/** This process's environment without NODE_EXTRA_CA_CERTS. */
function withoutExtraCerts(): NodeJS.ProcessEnv {
  const { NODE_EXTRA_CA_CERTS: _, ...without } = process.env;
  return without;
}

function hasKpt(): boolean {
  return spawnSync("kpt", ["version"], { stdio: "ignore" }).status === 0;
}

function kptVersion(): string {
  return spawnSync("kpt", ["version"], { encoding: "utf8" }).stdout.trim();
}

/** The CLI runs from dist/bundle: build it when it is missing or a source file is newer than the build. */
function ensureBuilt(): void {
  const built = join(REPO, "dist", "bundle", "main.js");
  if (existsSync(built)) {
    const newer = spawnSync("find", [join(REPO, "src"), "-name", "*.ts", "-newer", built], {
      encoding: "utf8",
    });
    if (newer.status === 0 && newer.stdout.trim() === "") return;
  }
  console.log("render: building dist/ (npm run build)");
  const r = spawnSync("npm", ["run", "build"], { cwd: REPO, stdio: "inherit" });
  if (r.status !== 0) throw new Error("npm run build failed");
}
