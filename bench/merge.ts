import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { type FileTree, readTree, treeFromText, writeTree } from "../src/kpt/tree.js";
import { mergePackage } from "../src/merge/index.js";

/**
 * Update of a 1,000-resource package, 10% changed upstream and 10% locally: porchlight's in-memory
 * merge against the floor (reading the three trees from disk), and against `kpt pkg update` on the
 * same packages when kpt is installed.
 */

const N = 1000;

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

function trees(): { original: FileTree; updated: FileTree; local: FileTree } {
  const kf = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: big\n";
  const o: Record<string, string> = { Kptfile: kf };
  const u: Record<string, string> = { Kptfile: kf };
  const l: Record<string, string> = { Kptfile: kf };
  for (let i = 0; i < N; i++) {
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

export async function benchMerge(): Promise<void> {
  const t = trees();
  const root = mkdtempSync(join(tmpdir(), "porchlight-bench-merge-"));
  try {
    for (const [name, tree] of Object.entries(t)) await writeTree(join(root, name), new Map(), tree);
    const floor = await best(3, () =>
      Promise.all(["original", "updated", "local"].map((n) => readTree(join(root, n)))),
    );
    const merge = await best(3, async () => {
      const [original, updated, local] = await Promise.all(
        ["original", "updated", "local"].map((n) => readTree(join(root, n))),
      );
      return mergePackage({ original: original!, updated: updated!, local: local! });
    });
    console.log(`merge: update of ${N} resources (10% changed upstream, 10% locally)`);
    console.log(
      `  porchlight: ${merge.toFixed(0)} ms (read+merge); reading the three trees: ${floor.toFixed(1)} ms; ratio ${(merge / floor).toFixed(1)}x (goal <= 2x)`,
    );

    if (!kptInstalled()) {
      console.log("  kpt: not installed, comparison skipped");
      return;
    }
    const up = join(root, "up");
    mkdirSync(up);
    git(up, "init", "-q", "-b", "main");
    await writeTree(join(up, "pkg"), new Map(), t.original);
    git(up, "add", "-A");
    git(up, "commit", "-q", "-m", "v1");
    git(up, "tag", "v1");
    const commit = git(up, "rev-parse", "HEAD").trim();
    await writeTree(join(up, "pkg"), t.original, t.updated);
    git(up, "add", "-A");
    git(up, "commit", "-q", "-m", "v2");
    git(up, "tag", "v2");
    const kf = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: big
upstream:
  type: git
  git:
    repo: file://${up}
    directory: /pkg
    ref: v1
  updateStrategy: resource-merge
upstreamLock:
  type: git
  git:
    repo: file://${up}
    directory: /pkg
    ref: v1
    commit: ${commit}
`;
    const kptTimes: number[] = [];
    for (let i = 0; i < 1; i++) {
      const dir = join(root, `k${i}`, "big");
      await writeTree(dir, new Map(), new Map([...t.local, ["Kptfile", Buffer.from(kf)]]));
      const t0 = performance.now();
      execFileSync("kpt", ["pkg", "update", "big@v2"], { cwd: join(root, `k${i}`), stdio: "ignore" });
      kptTimes.push(performance.now() - t0);
    }
    const kpt = Math.min(...kptTimes);
    console.log(
      `  kpt pkg update: ${kpt.toFixed(0)} ms; porchlight / kpt = ${(merge / kpt).toFixed(2)} (goal < 1)`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchMerge();
}
