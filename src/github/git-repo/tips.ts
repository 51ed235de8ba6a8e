import { createHash, randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { COMMIT_ID } from "./clone.js";

/**
 * The branch tips of a cache clone: where the last commit fetched from or pushed to each branch is kept
 * (one ref a branch, named by a digest of the branch's ref so that any branch name makes one flat file
 * name). Without them the clone holds no ref, so a fetch has nothing to offer git's negotiation and the
 * server sends the branch's whole history again: every push to a 1,000-file draft was a pack of 2,000
 * objects.
 */
const TIPS = "refs/porchlight/tips";

/** The most commits a fetch in process offers as `have` (the branch's own tip first). */
const HAVES_OFFERED = 32;

/** A tip not fetched or pushed for this long is let go (its branch is likely gone), at maintenance. */
const TIP_DAYS = 14;

function tipsDir(gitDir: string): string {
  return join(gitDir, ...TIPS.split("/"));
}

/** The loose ref file of a branch's tip. */
function tipFile(gitDir: string, branchRef: string): string {
  return join(tipsDir(gitDir), createHash("sha1").update(branchRef).digest("hex"));
}

/**
 * The commits the clone holds whole (tips: each fetched or pushed with all it reaches), branch `src`'s
 * own first (where a branch is fetched), then the other branches' most recently fetched or pushed, up to HAVES_OFFERED. The server
 * sends what the wanted commit reaches less what the offered ones reach: a new draft, branched from
 * the base branch a moment ago, needs the base branch's tip or a recent draft's offered, not the tips
 * of drafts published long before. Taken in the folder's order, the 31 offered of a repository's
 * hundreds of tips (Porch's iterative test makes a draft for each revision) were any, mostly old, and
 * the server sent the history since the newest of them.
 */
export async function tipsOffered(gitDir: string, src?: string): Promise<string[]> {
  const own = src === undefined ? undefined : tipFile(gitDir, src);
  const read = (file: string) =>
    readFile(file, "utf8").then(
      (t) => t.trim(),
      () => "",
    );
  const names = await readdir(tipsDir(gitDir)).catch(() => [] as string[]);
  const others = await Promise.all(
    names
      .filter((n) => !n.startsWith("."))
      .map((n) => join(tipsDir(gitDir), n))
      .filter((f) => f !== own)
      .map(async (file) => ({ file, at: (await stat(file).catch(() => undefined))?.mtimeMs ?? 0 })),
  );
  const newest = others
    .sort((a, b) => b.at - a.at)
    .slice(0, HAVES_OFFERED - 1)
    .map((o) => o.file);
  const shas = await Promise.all([...(own ? [own] : []), ...newest].map(read));
  return [...new Set(shas.filter((s) => COMMIT_ID.test(s)))];
}

/**
 * The commit a branch just fetched to `local` names, read from the ref's file, which then becomes the
 * branch's tip: a fetch writes the ref as a loose file, and a branch names a commit (git refuses
 * anything else), so two git processes per push are saved. Undefined when the file is not there (packed
 * meanwhile): git is asked then.
 */
export async function takeLooseRef(
  gitDir: string,
  local: string,
  branchRef: string,
): Promise<string | undefined> {
  const file = join(gitDir, ...local.split("/"));
  const text = await readFile(file, "utf8").catch(() => "");
  const sha = text.trim();
  if (!COMMIT_ID.test(sha)) return undefined;
  // A rename is atomic: two fetches of one branch at once leave either's commit, both good to offer.
  await mkdir(tipsDir(gitDir), { recursive: true });
  await rename(file, tipFile(gitDir, branchRef)).catch(() => unlink(file));
  return sha;
}

/** The branch's tip is now `sha` (fetched, or pushed from objects this clone wrote). */
export async function keepTip(gitDir: string, branchRef: string, sha: string): Promise<void> {
  await mkdir(tipsDir(gitDir), { recursive: true });
  const temp = join(tipsDir(gitDir), `.${randomUUID()}`);
  await writeFile(temp, `${sha}\n`);
  await rename(temp, tipFile(gitDir, branchRef));
}

/** Tips kept for commits fetched by id: a few recent ones reach nearly all a repository's history. */
const FETCHED_SLOTS = 8;

/**
 * Commits (or tags of them) just fetched by their ids (a merge to tag, commits whose messages are read, a
 * configuration's commit), complete with their history as a fetch leaves them, kept as tips in
 * FETCHED_SLOTS slots chosen by id, the newest in a slot replacing the one before: at most one write a
 * slot, however many were fetched. Nothing else named them: the clone's refs stayed the tips of the
 * branches fetched by name, so the next `git fetch` by id — of a child, a moment later — had only those
 * to offer git's negotiation, and got the history since the newest of them again. As Porch's iterative
 * test grew to 100 revisions a registration, such fetches packed 500–600 objects, each costing the
 * server 130–170 ms of `pack-objects`.
 */
export async function keepFetched(gitDir: string, shas: readonly string[]): Promise<void> {
  const bySlot = new Map<number, string>();
  for (const sha of shas)
    if (COMMIT_ID.test(sha)) bySlot.set(Number.parseInt(sha.slice(0, 4), 16) % FETCHED_SLOTS, sha);
  await Promise.all([...bySlot].map(([slot, sha]) => keepTip(gitDir, `fetched by id ${slot}`, sha)));
}

/** Tips neither fetched nor pushed for TIP_DAYS go, so that git may let their objects go too. */
export async function pruneTips(gitDir: string): Promise<void> {
  const dir = tipsDir(gitDir);
  const names = await readdir(dir).catch(() => [] as string[]);
  const before = Date.now() - TIP_DAYS * 86_400_000;
  for (const name of names) {
    const file = join(dir, name);
    const mtime = (await stat(file).catch(() => undefined))?.mtimeMs;
    if (mtime !== undefined && mtime < before) await unlink(file).catch(() => undefined);
  }
}
