import { createHash } from "node:crypto";
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { isAbsolute, join } from "node:path";
import type { AnswerCache, Kept, TokenAnswers } from "../github/conditional.js";

/** How many entries each part of the cache (commits/, answers/) holds at most; past it the oldest go. */
const CACHE_ENTRIES = 4096;

/** The cache's version, in each entry: an entry another version wrote is not read. */
const FORMAT = 1;

/** A commit's SHA (SHA-1 or SHA-256), and the name of a fact about it (a file name's safe characters). */
const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const KIND = /^[a-z0-9][a-z0-9.-]*$/;

/**
 * Where the command line keeps its cache: `$XDG_CACHE_HOME/porchlight` (an absolute path only, as the
 * XDG base directory specification asks), else `$HOME/.cache/porchlight`; undefined (no cache) when
 * neither is set.
 */
export function cacheRoot(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, "porchlight");
  return env.HOME ? join(env.HOME, ".cache", "porchlight") : undefined;
}

/**
 * The command line's cache on disk, across commands, content-addressed so that nothing it holds can be
 * stale:
 * - `commits/`: facts of a commit, keyed by its SHA (`<sha>.<fact>`), which never change — a commit's
 *   tree and message are its SHA;
 * - `answers/`: GitHub's answers to GETs with their ETags, keyed by a digest of the token, the media type
 *   and the URL, served only after GitHub answered 304 Not Modified to that ETag (a 304 is not counted
 *   against the token's hourly budget), so they never hide a change either.
 * Each entry is a file written whole (a temporary file renamed into place) and names its own key; one
 * that cannot be read, is not JSON or names another key is ignored — it costs the time of asking again,
 * never a wrong answer. The directories are the user's alone (0700, files 0600): answers hold private
 * repositories' content. Each part holds at most `maxEntries` files; past that the oldest written go.
 * A failure to write (a read-only home, a full disk) is ignored too: the command works as without it.
 */
export class DiskCache implements AnswerCache {
  /** The entries each directory holds, once counted by this instance's first write there. */
  private readonly counted = new Map<string, number>();

  constructor(
    readonly root: string,
    private readonly maxEntries = CACHE_ENTRIES,
  ) {}

  /** The fact `kind` of commit `sha` as kept, or undefined. */
  commitFact(sha: string, kind: string): unknown {
    if (!SHA.test(sha) || !KIND.test(kind)) return undefined;
    return this.read("commits", `${sha}.${kind}`, `${sha} ${kind}`);
  }

  /** Keeps the fact `kind` of commit `sha` (JSON) for good: a commit never changes. */
  keepCommitFact(sha: string, kind: string, value: unknown): void {
    if (!SHA.test(sha) || !KIND.test(kind)) return;
    this.write("commits", `${sha}.${kind}`, `${sha} ${kind}`, value);
  }

  /** One token's answers: looked up and kept under a digest of the token, never the token itself. */
  forToken(token: string): TokenAnswers {
    const who = digest(`porchlight token ${token}`).slice(0, 32);
    const keyOf = (url: string, accept: string) => `${who} ${accept} ${url}`;
    return {
      who,
      lookup: (url, accept) => {
        const key = keyOf(url, accept);
        return keptAnswer(this.read("answers", digest(key), key));
      },
      keep: (url, accept, answer) => {
        // raw bytes (an ArrayBuffer) do not go through JSON; porchlight's command line asks for none
        if (answer.etag === undefined || answer.data instanceof ArrayBuffer) return;
        const key = keyOf(url, accept);
        const kept: Kept = { etag: answer.etag, url: answer.url, headers: answer.headers, data: answer.data };
        this.write("answers", digest(key), key, kept);
      },
    };
  }

  private read(part: string, name: string, key: string): unknown {
    try {
      const entry = JSON.parse(readFileSync(join(this.root, part, name), "utf8")) as unknown;
      if (typeof entry !== "object" || entry === null) return undefined;
      const { format, key: named, value } = entry as { format?: unknown; key?: unknown; value?: unknown };
      return format === FORMAT && named === key ? value : undefined;
    } catch {
      return undefined;
    }
  }

  private write(part: string, name: string, key: string, value: unknown): void {
    try {
      const dir = this.directory(part);
      const temp = join(dir, `.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`);
      writeFileSync(temp, JSON.stringify({ format: FORMAT, key, value }), { mode: 0o600 });
      renameSync(temp, join(dir, name));
      this.added(part, dir);
    } catch {
      // the command goes on without this entry: the next one asks again
    }
  }

  /** `part`'s directory, made (and the cache's made the user's alone) at this instance's first write there. */
  private directory(part: string): string {
    const dir = join(this.root, part);
    if (this.counted.has(part)) return dir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const d of [this.root, dir]) if ((statSync(d).mode & 0o077) !== 0) chmodSync(d, 0o700);
    this.counted.set(part, readdirSync(dir).length);
    return dir;
  }

  /** One entry more in `part` (or one replaced): past the bound, the oldest written go, down to 3/4 of it. */
  private added(part: string, dir: string): void {
    const count = (this.counted.get(part) ?? 0) + 1;
    this.counted.set(part, count);
    if (count <= this.maxEntries) return;
    const entries = readdirSync(dir).flatMap((name) => {
      try {
        return [{ name, mtime: statSync(join(dir, name)).mtimeMs }];
      } catch {
        return [];
      }
    });
    entries.sort((a, b) => a.mtime - b.mtime);
    const keep = Math.floor((this.maxEntries * 3) / 4);
    for (const e of entries.slice(0, Math.max(0, entries.length - keep))) {
      try {
        unlinkSync(join(dir, e.name));
      } catch {
        // gone already (another command pruned it)
      }
    }
    this.counted.set(part, Math.min(entries.length, keep));
  }
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** A kept answer as the conditional plugin takes it, or undefined for anything else. */
function keptAnswer(value: unknown): Kept | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { etag, url, headers, data } = value as Partial<Kept>;
  if (typeof etag !== "string" || typeof url !== "string" || typeof headers !== "object" || headers === null)
    return undefined;
  return { etag, url, headers, data };
}
