import { GitCommandError } from "../git-process.js";
import type { CacheClone } from "./clone.js";
import { fetchCommits } from "./fetch.js";
import type { InProcessUse } from "./in-process.js";

/**
 * The messages of commits `shas`, fetched first where this clone lacks them (one fetch for all):
 * the `kpt:` lines of a tagged commit tell a published revision's workspace. One `cat-file --batch`
 * answers both which commits the clone lacks and the messages of the others (a second, after the
 * fetch, those of the ones it lacked).
 */
export async function commitMessages(
  clone: CacheClone,
  use: InProcessUse,
  shas: readonly string[],
): Promise<Map<string, string>> {
  await clone.init();
  const unique = [...new Set(shas)];
  const out = new Map<string, string>();
  const missing = clone.isEmpty ? unique : await readMessages(clone, unique, out);
  if (missing.length > 0) {
    await fetchCommits(clone, use, missing);
    const gone = await readMessages(clone, missing, out);
    if (gone.length > 0) throw new GitCommandError(["log"], 128, `fatal: bad object ${gone[0]}\n`, "missing");
  }
  return out;
}

/**
 * Reads the messages of the commits `shas` this clone holds into `into` (by commit id, as `git log`'s
 * `%B` gives them: the raw bytes after the headers); returns the ones it lacks. A message in an
 * encoding other than UTF-8 is left to `git log`, which re-encodes it.
 */
async function readMessages(
  clone: CacheClone,
  shas: readonly string[],
  into: Map<string, string>,
): Promise<string[]> {
  if (shas.length === 0) return [];
  const batch = await clone.git(["cat-file", "--batch"], shas.map((sha) => `${sha}^{commit}\n`).join(""));
  const missing: string[] = [];
  const encoded: string[] = [];
  let at = 0;
  for (const sha of shas) {
    // `<id> commit <size>`, the object's bytes and a line break; or `<what was asked> missing`
    const nl = batch.indexOf(10, at);
    const head = batch.toString("latin1", at, nl).split(" ");
    if (head.length !== 3) {
      missing.push(sha);
      at = nl + 1;
      continue;
    }
    const body = batch.subarray(nl + 1, nl + 1 + Number(head[2]));
    at = nl + 1 + body.length + 1;
    const blank = body.indexOf("\n\n");
    const headers = body.toString("utf8", 0, blank < 0 ? body.length : blank + 1);
    if (/^encoding (?!utf-?8\n)/im.test(headers)) encoded.push(head[0] as string);
    else into.set(head[0] as string, blank < 0 ? "" : body.toString("utf8", blank + 2));
  }
  if (encoded.length > 0) {
    const log = await clone.git(["log", "--no-walk=unsorted", "--format=%H%x00%B%x1e", ...encoded]);
    for (const entry of log.toString("utf8").split("\x1e")) {
      const nul = entry.indexOf("\0");
      if (nul >= 0) into.set(entry.slice(0, nul).trim(), entry.slice(nul + 1));
    }
  }
  return missing;
}
