import { type Dirent, promises as fs } from "node:fs";
import { join } from "node:path";

/**
 * A bare repository's refs read from its files, as git's files backend keeps them — loose refs under
 * refs/ (one file each, written to a lock file and renamed into place) and packed-refs — instead of a
 * `git for-each-ref` or `git rev-parse` process per question. Anything not plain is handed back to git:
 * a ref table (reftable), a shared common directory, a symbolic ref or a symlink under refs/, a ref
 * name git would refuse, a file git would call broken, a SHA-256 repository.
 *
 * Races with a concurrent writer: loose refs are read before packed-refs, as git itself reads them.
 * git moves a ref into packed-refs by writing packed-refs first and deleting the loose file after, and
 * deletes a packed ref by rewriting packed-refs first and deleting the loose file after; so a loose
 * file found gone was gone only once packed-refs already said what follows, and packed-refs read after
 * it says that. Each file is replaced by a rename, never rewritten in place: a read sees the old file or
 * the new one whole. A listing is not one snapshot of every ref (git's is not either); each ref in it
 * is a value the ref had while the listing was read.
 *
 * Not checked, as git checks: that each ref's object exists (for-each-ref leaves out a ref whose object
 * is missing). The forge writes refs only through git (update-ref, receive-pack), which refuses a
 * missing object, and never removes objects.
 */
export type RefsRead =
  | {
      kind: "read";
      refs: Map<string, string>;
      /** How many of them were loose files (one read each), for the caller to pack when many. */
      loose: number;
    }
  | { kind: "ask-git"; why: string };

/** One ref's object id (null: no such ref), or what sends the question to git. */
export type RefRead = { kind: "read"; sha: string | null } | { kind: "ask-git"; why: string };

const SHA1 = /^[0-9a-f]{40}$/;

/** What git calls a valid ref name (check-ref-format, for a name under refs/ with at least two parts). */
export function plainRefName(name: string): boolean {
  if (!name.startsWith("refs/") || name.endsWith("/") || name.endsWith(".")) return false;
  if (name.includes("..") || name.includes("@{") || name.includes("//")) return false;
  // control characters, space and ~ ^ : ? * [ \ and DEL
  if (/[\0-\x20~^:?*[\\\x7f]/.test(name)) return false;
  return name.split("/").every((part) => part !== "" && !part.startsWith(".") && !part.endsWith(".lock"));
}

function errCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

/**
 * What makes a directory other than a repository whose refs are loose files and packed-refs (null:
 * nothing): git answers for a directory that is no repository (an error) and for other ref stores.
 */
async function notPlain(dir: string): Promise<string | null> {
  let entries: string[];
  try {
    entries = await fs.readdir(dir);
  } catch (err) {
    return `${dir}: ${errCode(err) ?? String(err)}`;
  }
  if (!entries.includes("HEAD") || !entries.includes("refs")) return `${dir}: not a bare repository`;
  if (entries.includes("reftable")) return "a ref table";
  if (entries.includes("commondir")) return "a shared common directory";
  return null;
}

/** A loose ref file's object id; a symbolic ref or anything git would call broken is for git. */
function looseValue(name: string, text: string): RefRead {
  if (text.startsWith("ref:")) return { kind: "ask-git", why: `${name} is a symbolic ref` };
  const sha = text.slice(0, 40);
  const after = text.charAt(40);
  if (!SHA1.test(sha) || (after !== "" && !/\s/.test(after)))
    return { kind: "ask-git", why: `${name}: not an object id` };
  return { kind: "read", sha };
}

/** A loose ref's object id, null when the file is absent, or what sends it to git. */
async function readLoose(dir: string, name: string): Promise<RefRead> {
  let text: string;
  try {
    text = await fs.readFile(join(dir, name), "latin1");
  } catch (err) {
    const code = errCode(err);
    // Gone, never there, or a directory of refs below the name: not a loose ref (git reads packed-refs).
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return { kind: "read", sha: null };
    return { kind: "ask-git", why: `${name}: ${code ?? String(err)}` };
  }
  return looseValue(name, text);
}

/**
 * packed-refs as last parsed, by repository directory, with the bytes it was parsed from: a file read
 * again with the same bytes holds the same refs (compared whole: no identity of the file's inode or
 * times can tell two writes apart within the clock's tick). The forge lists a repository's refs at every
 * push (before and after) and at many API requests: parsed each time, a file of hundreds of tags
 * (Porch's iterative test) cost more at every revision published.
 */
export class PackedRefsMemo {
  readonly #parsed = new Map<string, { bytes: Buffer; refs: ReadonlyMap<string, string> }>();

  async read(dir: string): Promise<ReadonlyMap<string, string> | string> {
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(join(dir, "packed-refs"));
    } catch (err) {
      if (errCode(err) === "ENOENT") return new Map();
      return `packed-refs: ${errCode(err) ?? String(err)}`;
    }
    const kept = this.#parsed.get(dir);
    if (kept?.bytes.equals(bytes)) return kept.refs;
    const refs = parsePacked(bytes.toString("utf8"));
    if (typeof refs !== "string") this.#parsed.set(dir, { bytes, refs });
    return refs;
  }

  /** Forgets a repository (its directory removed or replaced). */
  forget(dir: string): void {
    this.#parsed.delete(dir);
  }
}

/** packed-refs' refs (empty when there is no such file), or what sends the repository to git. */
function readPacked(dir: string, memo?: PackedRefsMemo): Promise<ReadonlyMap<string, string> | string> {
  return (memo ?? new PackedRefsMemo()).read(dir);
}

/** The refs of packed-refs' text, or what sends the repository to git. */
function parsePacked(text: string): Map<string, string> | string {
  const refs = new Map<string, string>();
  for (const line of text.split("\n")) {
    // The header ("# pack-refs with: ..."), a peeled tag's object ("^<id>") and the file's end.
    if (line === "" || line.startsWith("#") || line.startsWith("^")) continue;
    const sha = line.slice(0, 40);
    const name = line.slice(41);
    if (!SHA1.test(sha) || line.charAt(40) !== " " || !plainRefName(name))
      return `packed-refs: a line git would not write: ${JSON.stringify(line.slice(0, 120))}`;
    refs.set(name, sha);
  }
  return refs;
}

/** Ref names in git's order: by their bytes (each name's UTF-8 made once, not at each comparison). */
function inGitOrder(names: Iterable<string>): string[] {
  return [...names]
    .map((name) => ({ name, bytes: Buffer.from(name, "utf8") }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
    .map((e) => e.name);
}

/**
 * Every ref under refs/ with the object it names, ordered by name, as `git for-each-ref
 * --format='%(objectname) %(refname)'` lists them; or what sends the listing to git.
 */
export async function readRefs(dir: string, memo?: PackedRefsMemo): Promise<RefsRead> {
  const odd = await notPlain(dir);
  if (odd) return { kind: "ask-git", why: odd };
  const loose = new Map<string, string>();
  const walk = async (rel: string): Promise<string | null> => {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(join(dir, rel), { withFileTypes: true });
    } catch (err) {
      // A directory removed since it was listed (git removes a directory its last ref left) has no refs.
      if (errCode(err) === "ENOENT" || errCode(err) === "ENOTDIR") return null;
      return `${rel}: ${errCode(err) ?? String(err)}`;
    }
    for (const e of entries) {
      // What git's own walk passes over: hidden files and lock files (a write in progress).
      if (e.name.startsWith(".") || e.name.endsWith(".lock")) continue;
      const name = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        const why = await walk(name);
        if (why) return why;
      } else if (e.isFile()) {
        if (!plainRefName(name)) return `${JSON.stringify(name)} is not a name git would list`;
        const read = await readLoose(dir, name);
        if (read.kind === "ask-git") return read.why;
        if (read.sha) loose.set(name, read.sha);
      } else {
        return `${name} is neither a file nor a directory`;
      }
    }
    return null;
  };
  const why = await walk("refs");
  if (why) return { kind: "ask-git", why };
  // Only now packed-refs, read after every loose file: see the module's comment.
  const packed = await readPacked(dir, memo);
  if (typeof packed === "string") return { kind: "ask-git", why: packed };
  const all = new Map(packed);
  for (const [name, sha] of loose) all.set(name, sha);
  const refs = new Map<string, string>();
  for (const name of inGitOrder(all.keys())) refs.set(name, all.get(name)!);
  return { kind: "read", refs, loose: loose.size };
}

/**
 * The ref `rev` (a name under refs/) stands for, as `git rev-parse` finds it before peeling: the first
 * of git's candidates that exists — the name itself, then refs/<name>, refs/tags/<name>,
 * refs/heads/<name>, refs/remotes/<name> and refs/remotes/<name>/HEAD.
 */
export async function readRef(dir: string, rev: string, memo?: PackedRefsMemo): Promise<RefRead> {
  if (!plainRefName(rev)) return { kind: "ask-git", why: `${JSON.stringify(rev)} is not a plain ref name` };
  const odd = await notPlain(dir);
  if (odd) return { kind: "ask-git", why: odd };
  const candidates = [
    rev,
    `refs/${rev}`,
    `refs/tags/${rev}`,
    `refs/heads/${rev}`,
    `refs/remotes/${rev}`,
    `refs/remotes/${rev}/HEAD`,
  ];
  // Every candidate's loose file before packed-refs, for the reason readRefs gives; the first found
  // loose settles it, as nothing before it can be (each earlier one was checked and is not loose).
  const looseMissed: string[] = [];
  for (const name of candidates) {
    const read = await readLoose(dir, name);
    if (read.kind === "ask-git") return read;
    if (read.sha) {
      if (looseMissed.length === 0) return read;
      const packed = await readPacked(dir, memo);
      if (typeof packed === "string") return { kind: "ask-git", why: packed };
      const earlier = looseMissed.find((n) => packed.has(n));
      return { kind: "read", sha: earlier ? packed.get(earlier)! : read.sha };
    }
    looseMissed.push(name);
  }
  const packed = await readPacked(dir, memo);
  if (typeof packed === "string") return { kind: "ask-git", why: packed };
  const found = candidates.find((n) => packed.has(n));
  return { kind: "read", sha: found ? packed.get(found)! : null };
}
