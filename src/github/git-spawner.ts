import { type ChildProcess, spawn } from "node:child_process";

/**
 * A small process that starts git for a large one. Linux's fork copies the page tables of the process
 * that forks: from the app, which holds hundreds of megabytes (the renderer's caches, the blob cache),
 * each git process cost the app 12 ms of CPU and 28 ms before git even ran (measured at 500 MB), and a
 * push runs three to five of them. This child holds 40 MB; it starts git as it is told, over an IPC
 * channel, and sends back its exit code and output. The long-running server routes its git through one
 * (acquireGitSpawner); the command line, a short process with a small heap, does not need it.
 *
 * The child's code is given to `node -e`: no file to find, the same under tsx and from dist. It runs with
 * no environment of the app's (each git is given its own, as before), and exits when the app's end of
 * the channel closes, however the app ended.
 */
const CHILD = `
process.title = "porchlight git spawner";
const { spawn } = require("node:child_process");
process.on("disconnect", () => process.exit(0));
process.on("message", (m) => {
  let done = false;
  const reply = (r) => { if (!done) { done = true; process.send({ id: m.id, ...r }); } };
  let child;
  try {
    child = spawn("git", m.args, { cwd: m.cwd, env: m.env, stdio: ["pipe", "pipe", "pipe"] });
  } catch (e) {
    return reply({ error: String(e && e.message || e), code: e && e.code });
  }
  const out = [], err = [];
  child.stdout.on("data", (c) => out.push(c));
  child.stderr.on("data", (c) => err.push(c));
  child.on("error", (e) => reply({ error: e.message, code: e.code }));
  child.on("close", (code) => reply({ exit: code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
  child.stdin.on("error", () => {});
  child.stdin.end(m.input === undefined ? "" : Buffer.from(m.input));
});
`;

export interface SpawnedGit {
  exit: number | null;
  stdout: Buffer;
  stderr: Buffer;
}

interface Reply {
  id: number;
  exit?: number | null;
  stdout?: Uint8Array;
  stderr?: Uint8Array;
  error?: string;
  code?: string;
}

const bytes = (b: Uint8Array | undefined) =>
  b === undefined ? Buffer.alloc(0) : Buffer.from(b.buffer, b.byteOffset, b.byteLength);

export class GitSpawner {
  private child: ChildProcess | undefined;
  private next = 1;
  private readonly pending = new Map<
    number,
    { resolve: (r: SpawnedGit) => void; reject: (e: Error) => void }
  >();

  /** Runs git as `child_process.spawn` would, in the small process; rejects where spawn would emit `error`. */
  run(
    args: string[],
    opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string | Buffer },
  ): Promise<SpawnedGit> {
    const child = this.start();
    const id = this.next++;
    return new Promise<SpawnedGit>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      child.channel?.ref();
      child.send({ id, args, cwd: opts.cwd, env: opts.env, input: opts.input }, (err) => {
        if (err) this.settle(id, undefined, err);
      });
    });
  }

  /** The child's process id while it runs (the bench adds its CPU to the app's). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  close(): void {
    const child = this.child;
    this.child = undefined;
    child?.disconnect();
    this.failAll(new Error("the git spawner was closed"));
  }

  private start(): ChildProcess {
    if (this.child?.connected) return this.child;
    const child = spawn(process.execPath, ["-e", CHILD], {
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      serialization: "advanced",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" },
    });
    child.on("message", (m: Reply) => this.settle(m.id, m));
    child.on("error", (e) => {
      if (this.child === child) this.child = undefined;
      this.failAll(e);
    });
    child.on("exit", (code, signal) => {
      if (this.child === child) this.child = undefined;
      this.failAll(
        new Error(
          `the git spawner exited (${signal ?? `code ${code}`}); a git command it was running may not have finished`,
        ),
      );
    });
    // Nothing pending: the child keeps no one waiting (the app exits when its work is done).
    child.unref();
    child.channel?.unref();
    this.child = child;
    return child;
  }

  private settle(id: number, reply?: Reply, err?: Error): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (this.pending.size === 0) this.child?.channel?.unref();
    if (err) p.reject(err);
    else if (reply?.error !== undefined) {
      const e = new Error(reply.error) as NodeJS.ErrnoException;
      if (reply.code) e.code = reply.code;
      p.reject(e);
    } else
      p.resolve({ exit: reply?.exit ?? null, stdout: bytes(reply?.stdout), stderr: bytes(reply?.stderr) });
  }

  private failAll(e: Error): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const p of waiting) p.reject(e);
  }
}
