import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../src/cli/main.js";
import { readTree, treeFromText, treeToText, writeTree } from "../../src/kpt/tree.js";
import { captureIO } from "../util/cli-io.js";
import { useStarted } from "../util/use-started.js";

/** Temp git repositories and an in-process CLI for the `porchlight pkg` tests. */

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], {
    cwd,
    stdio: ["ignore", "pipe", "ignore"],
  }).toString();
}

export function kpt(cwd: string, ...args: string[]): void {
  execFileSync("kpt", args, { cwd, stdio: "ignore" });
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function porchlight(cwd: string, ...argv: string[]): Promise<Run> {
  return porchlightWith(cwd, {}, ...argv);
}

/** The CLI with an environment of the test's choosing (credentials, DOCKER_CONFIG). */
export async function porchlightWith(cwd: string, env: NodeJS.ProcessEnv, ...argv: string[]): Promise<Run> {
  const io = captureIO({ cwd, env });
  const code = await main(argv, io);
  return { code, stdout: io.out(), stderr: io.err() };
}

export async function files(dir: string): Promise<Record<string, string>> {
  return treeToText(await readTree(dir));
}

/** A scratch area: `root` with an upstream repository `up` (non-bare, branch main). */
export class Sandbox {
  readonly root = mkdtempSync(join(tmpdir(), "porchlight-pkg-cli-"));
  readonly up = join(this.root, "up");

  constructor() {
    mkdirSync(this.up);
    git(this.up, "init", "-q", "-b", "main");
  }

  /** Replaces the upstream package at `dir` with `content`, commits, tags each of `tags`; returns the commit. */
  async publish(dir: string, content: Record<string, string>, ...tags: string[]): Promise<string> {
    const target = join(this.up, dir);
    const before = await readTree(target).catch(() => new Map());
    await writeTree(target, before, treeFromText(content));
    git(this.up, "add", "-A");
    git(this.up, "commit", "-q", "--allow-empty", "-m", `publish ${tags.join(" ")}`);
    for (const t of tags) git(this.up, "tag", t);
    return git(this.up, "rev-parse", "HEAD").trim();
  }

  /** The package `dir` of the upstream at `ref`, as `pkg get` takes it: a file:// URL. */
  url(dir: string, ref: string): string {
    return `file://${this.up}.git/${dir}@${ref}`;
  }

  /** A fresh directory under the sandbox (optionally a git working tree). */
  dir(name: string, gitInit = false): string {
    const d = join(this.root, name);
    mkdirSync(d, { recursive: true });
    if (gitInit) git(d, "init", "-q", "-b", "main");
    return d;
  }

  close(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/**
 * A Sandbox for the describe block that calls this: made and its upstream filled by `publish` before the
 * block's tests, removed after them.
 */
export function useSandbox(publish: (box: Sandbox) => Promise<unknown> = async () => undefined): Sandbox {
  return useStarted(
    "the sandbox",
    async () => {
      const box = new Sandbox();
      await publish(box).catch((e: unknown) => {
        box.close();
        throw e;
      });
      return box;
    },
    async (box) => box?.close(),
  );
}

const KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app
info:
  description: the app
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-namespace:v0.4.1
      configMap:
        namespace: app
`;

const DEPLOY = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: app
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: web
        image: nginx:1.0
`;

const SVC = `apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: app
spec:
  ports:
  - port: 80
`;

export const SUB_KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: db
`;

export const CM = `apiVersion: v1
kind: ConfigMap
metadata:
  name: db-config
data:
  size: small
`;

/** Version 1 of the upstream package: a root package with a subpackage `db`. */
export const V1: Record<string, string> = {
  Kptfile: KPTFILE,
  "deploy.yaml": DEPLOY,
  "svc.yaml": SVC,
  "README.md": "# app\n\nDeploy it.\n",
  "db/Kptfile": SUB_KPTFILE,
  "db/cm.yaml": CM,
};

/** Version 2: a new image, a new port, a changed README line, a changed subpackage resource, a new file. */
export const V2: Record<string, string> = {
  ...V1,
  "deploy.yaml": DEPLOY.replace("nginx:1.0", "nginx:2.0"),
  "svc.yaml": `${SVC}  - port: 443\n`,
  "README.md": "# app\n\nDeploy it with porchlight.\n",
  "db/cm.yaml": CM.replace("size: small", "size: large"),
  "extra.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  a: b\n",
};
