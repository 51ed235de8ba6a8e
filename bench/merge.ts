import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseAllDocuments } from "yaml";
import type { CliIO } from "../src/cli/io.js";
import { main } from "../src/cli/main.js";
import { type FileTree, readTree, treeFromText, writeTree } from "../src/kpt/tree.js";
import { mergePackage } from "../src/merge/index.js";

/**
 * `pkg update` speed. A package of N Deployments (ten per file), 10% changed upstream and 10%
 * locally (different resources, both sides touch every file):
 * - the floor: reading the three trees from disk and parsing every YAML document in them (what any
 *   merge that looks at resources must at least do); the bare read is printed too;
 * - porchlight: reading the three trees and merging them in memory (mergePackage);
 * - the kpt anchor: `kpt pkg update` end to end (git fetch from a file:// upstream, merge, write)
 *   against `porchlight pkg update` end to end on the same package and upstream. kpt takes ~110 s at
 *   1,000 resources on this machine, so the anchor runs at KPT_N resources (200; set
 *   PORCHLIGHT_BENCH_KPT_N to change it), one run each. `--no-kpt` skips it.
 */

const N = 1000;
const KPT_N = Number(process.env.PORCHLIGHT_BENCH_KPT_N ?? "200");
const RUNS = 7;

function deployment(i: number, replicas: number, image: string, label?: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: # kpt-merge: default/app-${i}
  name: app-${i}
  namespace: default
  labels:
    app: app-${i}${label ? `\n    team: ${label}` : ""}
  annotations:
    internal.kpt.dev/upstream-identifier: 'apps|Deployment|default|app-${i}'
spec:
  replicas: ${replicas}
  template:
    spec:
      containers:
      - name: app
        image: ${image}
        ports:
        - containerPort: 8080
        env:
        - name: MODE
          value: prod
`;
}

/** The original upstream, the new upstream and the local package, `n` resources each. */
export function trees(n = N): { original: FileTree; updated: FileTree; local: FileTree } {
  const kf = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: big\n";
  const o: Record<string, string> = { Kptfile: kf };
  const u: Record<string, string> = { Kptfile: kf };
  const l: Record<string, string> = { Kptfile: kf };
  for (let i = 0; i < n; i++) {
    const f = `r${Math.floor(i / 10)}.yaml`;
    const sep = o[f] ? "---\n" : "";
    o[f] = (o[f] ?? "") + sep + deployment(i, 1, "app:1");
    u[f] = (u[f] ?? "") + sep + deployment(i, 1, i % 10 === 0 ? "app:2" : "app:1");
    l[f] =
      (l[f] ?? "") + sep + deployment(i, i % 10 === 5 ? 3 : 1, "app:1", i % 10 === 5 ? "mine" : undefined);
  }
  return { original: treeFromText(o), updated: treeFromText(u), local: treeFromText(l) };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.email=b@example.com", "-c", "user.name=b", ...args], {
    cwd,
  }).toString();
}

function kptInstalled(): boolean {
  try {
    execFileSync("kpt", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

async function best<T>(runs: number, f: () => Promise<T> | T): Promise<number> {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await f();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

const PARSE = { schema: "failsafe", keepSourceTokens: false, uniqueKeys: false } as const;

function readThree(root: string): Promise<FileTree[]> {
  return Promise.all(["original", "updated", "local"].map((n) => readTree(join(root, n))));
}

function parseEvery(tree: FileTree): void {
  for (const [p, b] of tree) if (p.endsWith(".yaml")) parseAllDocuments(b.toString("utf8"), PARSE);
}

const quietIO = (cwd: string): CliIO => ({
  stdout: () => {},
  stderr: () => {},
  readStdin: async () => "",
  cwd,
  env: {},
  isTTY: false,
});

/** `kpt pkg update` and `porchlight pkg update` end to end on an n-resource package; ms each. */
async function endToEnd(root: string, n: number): Promise<{ kpt: number; porchlight: number }> {
  const t = trees(n);
  const up = join(root, "up");
  await writeTree(join(up, "pkg"), new Map(), t.original);
  git(up, "init", "-q", "-b", "main");
  git(up, "add", "-A");
  git(up, "commit", "-q", "-m", "v1");
  git(up, "tag", "v1");
  const commit = git(up, "rev-parse", "HEAD").trim();
  await writeTree(join(up, "pkg"), t.original, t.updated);
  git(up, "add", "-A");
  git(up, "commit", "-q", "-m", "v2");
  git(up, "tag", "v2");
  const lock = `    repo: file://${up}\n    directory: /pkg\n    ref: v1\n`;
  const kf = `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: big\nupstream:\n  type: git\n  git:\n${lock}  updateStrategy: resource-merge\nupstreamLock:\n  type: git\n  git:\n${lock}    commit: ${commit}\n`;
  const local = new Map([...t.local, ["Kptfile", Buffer.from(kf)]]);
  const time = async (tool: string, run: (cwd: string) => Promise<unknown> | unknown) => {
    const cwd = join(root, tool);
    await writeTree(join(cwd, "big"), new Map(), local);
    const t0 = performance.now();
    await run(cwd);
    return performance.now() - t0;
  };
  const kpt = await time("kpt", (cwd) =>
    execFileSync("kpt", ["pkg", "update", "big@v2"], { cwd, stdio: "ignore" }),
  );
  const porchlight = await time("porchlight", async (cwd) => {
    const code = await main(["pkg", "update", "big@v2"], quietIO(cwd));
    if (code !== 0) throw new Error(`porchlight pkg update exited ${code}`);
  });
  return { kpt, porchlight };
}

export async function benchMerge(): Promise<void> {
  const t = trees();
  const root = mkdtempSync(join(tmpdir(), "porchlight-bench-merge-"));
  try {
    for (const [name, tree] of Object.entries(t)) await writeTree(join(root, name), new Map(), tree);
    // interleaved, so that a busy machine slows all three alike; the best of RUNS each
    let read = Number.POSITIVE_INFINITY;
    let floor = Number.POSITIVE_INFINITY;
    let merge = Number.POSITIVE_INFINITY;
    for (let i = 0; i < RUNS; i++) {
      read = Math.min(read, await best(1, () => readThree(root)));
      floor = Math.min(
        floor,
        await best(1, async () => {
          for (const tree of await readThree(root)) parseEvery(tree);
        }),
      );
      merge = Math.min(
        merge,
        await best(1, async () => {
          const [original, updated, local] = await readThree(root);
          return mergePackage({ original: original!, updated: updated!, local: local! });
        }),
      );
    }
    console.log(`merge: update of ${N} resources (10% changed upstream, 10% locally), best of ${RUNS}`);
    console.log(
      `  floor (read + parse the three trees): ${floor.toFixed(0)} ms (the bare read: ${read.toFixed(0)} ms)`,
    );
    console.log(
      `  porchlight (read + merge): ${merge.toFixed(0)} ms; ratio to the floor ${(merge / floor).toFixed(2)}x (goal <= 2x); to the bare read ${(merge / read).toFixed(1)}x`,
    );

    if (process.argv.includes("--no-kpt")) return;
    if (!kptInstalled()) {
      console.log("  kpt: not installed, comparison skipped");
      return;
    }
    const e2e = await endToEnd(join(root, "e2e"), KPT_N);
    console.log(
      `  end to end at ${KPT_N} resources (git fetch + merge + write, one run each): kpt pkg update ${e2e.kpt.toFixed(0)} ms; porchlight pkg update ${e2e.porchlight.toFixed(0)} ms; porchlight / kpt = ${(e2e.porchlight / e2e.kpt).toFixed(3)}`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchMerge();
}
