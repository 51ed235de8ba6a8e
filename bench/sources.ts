import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { CliIO } from "../src/cli/io.js";
import { main } from "../src/cli/main.js";
import { type FileTree, treeFromText, writeTree } from "../src/kpt/tree.js";
import { RegistryClient } from "../src/sources/oci/client.js";
import { pushPackage } from "../src/sources/oci/package.js";
import { writeTarGz } from "../src/sources/tar.js";
import { hasRegistry, REGISTRY_MISSING, startRegistry } from "../test/util/registry.js";

/**
 * OCI sources against a local registry (CNCF distribution, in memory): building the deterministic
 * tar+gzip, pushing a revision (first time, and again: nothing uploaded), and `pkg get` from the
 * registry next to `pkg get` of the same package from a local git repository (the ratio).
 */

const SIZES = [100, 1000];
const RUNS = 3;

function pkg(n: number): FileTree {
  const files: Record<string, string> = {
    Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n",
  };
  for (let i = 0; i < n; i++) {
    files[`cm-${String(i).padStart(5, "0")}.yaml`] =
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\n  labels:\n    app: bench\ndata:\n  key: value-${i}\n  other: "${"x".repeat(64)}"\n`;
  }
  return treeFromText(files);
}

async function best(fn: () => Promise<unknown>): Promise<number> {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    min = Math.min(min, performance.now() - t);
  }
  return min;
}

async function cli(cwd: string, ...argv: string[]): Promise<void> {
  let err = "";
  const io: CliIO = {
    stdout: () => {},
    stderr: (t) => {
      err += t;
    },
    readStdin: async () => "",
    cwd,
    env: {},
    isTTY: false,
  };
  if ((await main(argv, io)) !== 0) throw new Error(err);
}

export async function benchSources(): Promise<Record<string, string | number>[] | undefined> {
  if (!hasRegistry) {
    console.log(`skipped: ${REGISTRY_MISSING}`);
    return undefined;
  }
  const registry = await startRegistry();
  const root = mkdtempSync(join(tmpdir(), "porchlight-bench-sources-"));
  const rows: Record<string, string | number>[] = [];
  try {
    const client = new RegistryClient(registry.host);
    for (const n of SIZES) {
      const tree = pkg(n);
      const tarMs = await best(() => writeTarGz(tree));
      const bytes = (await writeTarGz(tree)).length;
      const t = performance.now();
      await pushPackage(client, `bench/app${n}`, "v1", tree, {});
      const pushMs = performance.now() - t;
      const againMs = await best(() => pushPackage(client, `bench/app${n}`, "v1", tree, {}));
      const up = join(root, `up${n}`);
      await writeTree(join(up, "app"), new Map(), tree);
      const git = (...a: string[]) =>
        execFileSync("git", ["-c", "user.email=b@x", "-c", "user.name=b", ...a], { cwd: up });
      git("init", "-q", "-b", "main");
      git("add", "-A");
      git("commit", "-qm", "v1");
      let k = 0;
      const ociMs = await best(() =>
        cli(root, "pkg", "get", `oci://${registry.host}/bench/app${n}:v1`, `oci${n}-${k++}`),
      );
      const gitMs = await best(() => cli(root, "pkg", "get", `${up}.git/app@main`, `git${n}-${k++}`));
      rows.push({
        resources: n,
        "tar+gzip ms": Math.round(tarMs),
        "layer KiB": Math.round(bytes / 1024),
        "first push ms": Math.round(pushMs),
        "push again ms": Math.round(againMs),
        "pkg get oci ms": Math.round(ociMs),
        "pkg get git ms": Math.round(gitMs),
        "oci / git": Number((ociMs / gitMs).toFixed(2)),
      });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
    await registry.stop();
  }
  return rows;
}
