import { randomUUID } from "node:crypto";
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import type { LRUCache } from "lru-cache";

/** What a journal keeps: the renderer's kept work, each entry under the key it is kept by in memory. */
export interface JournalEntries<F, P> {
  files: [string, F][];
  places: [string, P][];
}

/** By default, journals whose appends pass what the own one held when last written whole by this many bytes are written whole again. */
const COMPACT_SLACK = 16 * 1024 * 1024;
const SUFFIX = ".journal";

/**
 * The bot's renderer's kept work on disk, so that a restarted app renders the next push of a large
 * package from what it kept, as before the restart: each renderer (one a worker thread) appends what
 * each render newly kept — a push's few files, their findings' places — to a journal of its own in
 * `dir`, and at its first render reads every journal there (the processes' before it, and the other
 * threads'). Once the journals read and its own appends pass what it holds by `slackBytes`, it writes
 * what it holds as its own journal and lets go of the journals older than itself.
 * Entries are keyed by content (blob ids, the Kptfiles' bytes): an entry read back is never wrong, only
 * perhaps never used again. A record cut short (a crash mid-write) ends the reading of its journal;
 * a journal that cannot be read or written costs time (a render of what was not read), never a render.
 */
export class RenderJournal<F, P> {
  private readonly created = Date.now();
  private readonly file: string;
  /** Bytes of the own journal: written whole at the last compaction, and appended since. */
  private whole = 0;
  private appended = 0;
  /** Set after the first read; a journal failing to write stops writing (the renderer goes on). */
  private read = false;
  private broken = false;
  /** The journals read that are older than this renderer: let go of once it has written what it holds. */
  private stale: string[] = [];
  private staleBytes = 0;
  /** Bytes read at the first load: what the restarted renderer paid to read. */
  loadedBytes = 0;

  constructor(
    private readonly dir: string,
    /** How far the journals may grow past what is kept before they are written whole again. */
    private readonly slackBytes = COMPACT_SLACK,
  ) {
    this.file = join(dir, `${randomUUID()}${SUFFIX}`);
  }

  /** Every journal's entries in `dir`, oldest journal first, records in order; empty after the first call. */
  load(): JournalEntries<F, P> {
    const out: JournalEntries<F, P> = { files: [], places: [] };
    if (this.read) return out;
    this.read = true;
    let names: string[];
    try {
      mkdirSync(this.dir, { recursive: true });
      names = readdirSync(this.dir).filter((n) => n.endsWith(SUFFIX));
    } catch {
      this.broken = true;
      return out;
    }
    const journals = names
      .map((name) => ({ path: join(this.dir, name), mtime: statOf(join(this.dir, name)) }))
      .filter((j) => j.mtime !== undefined)
      .sort((a, b) => (a.mtime ?? 0) - (b.mtime ?? 0));
    for (const j of journals) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(j.path);
      } catch {
        continue;
      }
      this.loadedBytes += bytes.length;
      for (const record of records<F, P>(bytes)) {
        for (const e of record.files) out.files.push(e);
        for (const e of record.places) out.places.push(e);
      }
    }
    this.stale = journals.filter((j) => (j.mtime ?? 0) < this.created).map((j) => j.path);
    this.staleBytes = this.loadedBytes;
    return out;
  }

  /** Appends a render's newly kept entries. */
  append(entries: JournalEntries<F, P>): void {
    if (this.broken || (entries.files.length === 0 && entries.places.length === 0)) return;
    try {
      const fd = openSync(this.file, "a");
      try {
        this.appended += writeFrame(fd, entries);
      } finally {
        closeSync(fd);
      }
    } catch {
      this.broken = true;
    }
  }

  /**
   * Whether the journals have grown enough past what is kept to be written whole again: the own one's
   * appends and the older journals read (let go of then) past what the own one held when written whole.
   */
  get wantsCompaction(): boolean {
    return this.appended + this.staleBytes > this.whole + this.slackBytes;
  }

  /** Writes everything kept (`entries`, least recently used first) as the own journal, and lets the stale ones go. */
  compact(entries: JournalEntries<F, P>): void {
    if (this.broken) return;
    try {
      const temp = `${this.file}.${randomUUID()}.tmp`;
      const fd = openSync(temp, "w");
      let written: number;
      try {
        written = writeFrame(fd, entries);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, this.file);
      this.whole = written;
      this.appended = 0;
    } catch {
      this.broken = true;
      return;
    }
    for (const path of this.stale) {
      try {
        unlinkSync(path);
      } catch {
        // another process let it go first
      }
    }
    this.stale = [];
    this.staleBytes = 0;
  }
}

function statOf(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Writes one record at `fd`: its length (4 bytes, big-endian), then the entries as V8 serializes them
 * (a first push's are megabytes: written as they are, not copied behind the length). Returns its bytes.
 */
function writeFrame<F, P>(fd: number, entries: JournalEntries<F, P>): number {
  const body = serialize(entries);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  writeAll(fd, head);
  writeAll(fd, body);
  return head.length + body.length;
}

/** Writes all of `bytes` (writeSync may write part of them). */
function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
}

function* records<F, P>(bytes: Buffer): Generator<JournalEntries<F, P>> {
  let at = 0;
  while (at + 4 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    if (at + 4 + length > bytes.length) return;
    let value: unknown;
    try {
      value = deserialize(bytes.subarray(at + 4, at + 4 + length));
    } catch {
      return;
    }
    if (!isEntries<F, P>(value)) return;
    yield value;
    at += 4 + length;
  }
}

function isEntries<F, P>(value: unknown): value is JournalEntries<F, P> {
  return (
    typeof value === "object" &&
    value !== null &&
    "files" in value &&
    Array.isArray(value.files) &&
    "places" in value &&
    Array.isArray(value.places)
  );
}

/** A cache's entries least recently used first (as a journal writes them, so that reading them back keeps the order). */
export function oldestFirst<V extends {}>(cache: LRUCache<string, V>): [string, V][] {
  const out: [string, V][] = [];
  for (const key of cache.rkeys()) {
    const value = cache.peek(key);
    if (value) out.push([key, value]);
  }
  return out;
}
