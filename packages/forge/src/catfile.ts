import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";

/** What `git cat-file` says of one object: its id, type and size, and its bytes when they were asked for. */
export interface CatFileObject {
  sha: string;
  type: string;
  size: number;
  content: Buffer | null;
}

/** The reader's process ended (killed, crashed, or closed) before it answered. */
export class ReaderGone extends Error {}

interface Pending {
  name: string;
  withContent: boolean;
  resolve: (o: CatFileObject | null) => void;
  reject: (err: Error) => void;
}

const FOUND = /^([0-9a-f]{40,64}) ([a-z]+) (\d+)$/;

/**
 * One long-lived `git cat-file --batch-command` on a bare repository: object reads without a process
 * each. Requests are written as they come and answered in order (git answers each command before it
 * reads the next, and flushes each answer since there is no --buffer). Only names whose answer cannot
 * change belong here (a full object id, peeled or with a path): git looks loose objects up on every
 * read and rescans the packs on a miss, so objects pushed after the start are found, but the reader
 * would not promise the same of refs. Closing ends its input: git answers what it was asked, then exits.
 */
export class CatFileReader {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending: Pending[] = [];
  private head: Buffer = Buffer.alloc(0);
  /** The answer whose bytes are being read, with the chunks read so far (null: reading a first line). */
  private bodyOf: CatFileObject | null = null;
  private body: Buffer[] = [];
  private bodyHave = 0;
  private gone: ReaderGone | null = null;
  private stderr = "";
  private held = true;
  /** Settles once the process has exited and its pipes are closed. */
  readonly exited: Promise<void>;

  constructor(gitDir: string, env: NodeJS.ProcessEnv) {
    this.child = spawn("git", ["--git-dir", gitDir, "cat-file", "--batch-command"], { env });
    this.child.stdout.on("data", (chunk: Buffer) => this.take(chunk));
    this.child.stderr.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-4096);
    });
    // A write to a process that has died fails with EPIPE; the close below reports it to each request.
    this.child.stdin.on("error", () => {});
    this.exited = new Promise((resolve) => {
      this.child.once("error", (err) => {
        this.end(`git cat-file: ${err.message}`);
        resolve();
      });
      this.child.once("close", (code, signal) => {
        this.end(`git cat-file --batch-command exited (${signal ?? code}): ${this.stderr.trim()}`);
        resolve();
      });
    });
    this.release();
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.gone === null;
  }

  /** The object's id, type and size, or null when the repository has no such object. */
  info(name: string): Promise<CatFileObject | null> {
    return this.ask(name, false);
  }

  /** As info, with the object's bytes. */
  contents(name: string): Promise<CatFileObject | null> {
    return this.ask(name, true);
  }

  /** Ends the reader once it has answered what it was asked. */
  close(): Promise<void> {
    if (!this.child.stdin.writableEnded) this.child.stdin.end();
    this.hold();
    return this.exited;
  }

  private ask(name: string, withContent: boolean): Promise<CatFileObject | null> {
    if (name.includes("\n")) return Promise.reject(new Error(`git cat-file: a name with a newline: ${name}`));
    if (this.gone) return Promise.reject(this.gone);
    if (this.child.stdin.writableEnded) return Promise.reject(new ReaderGone("git cat-file: reader closed"));
    return new Promise((resolve, reject) => {
      this.pending.push({ name, withContent, resolve, reject });
      this.hold();
      this.child.stdin.write(`${withContent ? "contents" : "info"} ${name}\n`);
    });
  }

  private take(chunk: Buffer): void {
    let rest: Buffer | null = chunk;
    while (rest && rest.length > 0) {
      const p = this.pending[0];
      if (!p) return; // Output nobody asked for: nothing to give it to.
      rest = this.bodyOf ? this.takeBody(rest) : this.takeHead(p, rest);
    }
  }

  /** Reads an answer's first line; returns what follows it. */
  private takeHead(p: Pending, chunk: Buffer): Buffer | null {
    const joined = this.head.length ? Buffer.concat([this.head, chunk]) : chunk;
    const nl = joined.indexOf(10);
    if (nl < 0) {
      this.head = joined;
      return null;
    }
    this.head = Buffer.alloc(0);
    const line = joined.subarray(0, nl).toString("utf8");
    const rest = joined.subarray(nl + 1);
    const m = FOUND.exec(line);
    if (!m) {
      // "<name> missing" or "<name> ambiguous": no such object, as far as a full id can tell.
      this.settle(null);
      return rest;
    }
    const found: CatFileObject = { sha: m[1]!, type: m[2]!, size: Number(m[3]), content: null };
    if (!p.withContent) {
      this.settle(found);
      return rest;
    }
    this.bodyOf = found;
    this.body = [];
    this.bodyHave = 0;
    return this.takeBody(rest);
  }

  /** Gathers an answer's bytes and the newline after them; returns what follows. */
  private takeBody(chunk: Buffer): Buffer | null {
    const found = this.bodyOf!;
    const need = found.size + 1 - this.bodyHave;
    if (chunk.length < need) {
      this.body.push(chunk);
      this.bodyHave += chunk.length;
      return null;
    }
    this.body.push(chunk.subarray(0, need));
    found.content = Buffer.concat(this.body, found.size + 1).subarray(0, found.size);
    this.body = [];
    this.bodyOf = null;
    this.settle(found);
    return chunk.subarray(need);
  }

  private settle(o: CatFileObject | null): void {
    this.pending.shift()!.resolve(o);
    if (this.pending.length === 0) this.release();
  }

  private end(message: string): void {
    if (this.gone) return;
    this.gone = new ReaderGone(message);
    for (const p of this.pending.splice(0)) p.reject(this.gone);
    this.release();
  }

  /**
   * An idle reader does not keep Node running (a forge left unstopped must not hang its process);
   * one with requests in flight does.
   */
  private hold(): void {
    if (this.held) return;
    this.held = true;
    this.child.ref();
    for (const s of [this.child.stdin, this.child.stdout, this.child.stderr])
      (s as unknown as Refable).ref?.();
  }

  private release(): void {
    if (!this.held) return;
    this.held = false;
    this.child.unref();
    for (const s of [this.child.stdin, this.child.stdout, this.child.stderr])
      (s as unknown as Refable).unref?.();
  }
}

interface Refable {
  ref?: () => void;
  unref?: () => void;
}
