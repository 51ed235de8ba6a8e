import { GitCommandError } from "../git-process.js";
import type { CacheClone } from "./clone.js";
import { fetchRef } from "./fetch.js";
import type { InProcessUse } from "./in-process.js";
import { pushRefs, type RefUpdate } from "./push.js";
import { deleteRefIf, listRefs } from "./refs.js";

/** What a tag's push did: made it, found it there already (nothing changed), or was refused by a rule. */
export type TagPush = { kind: "created" } | { kind: "exists" } | { kind: "refused"; git: string };

/** A branch deleted in the tag's push, only while it is still at `at`. */
export interface Dropping {
  branch: string;
  at: string;
}

/**
 * Creates tag `tag` on `commit` by git: a push, which GitHub does not count against the REST budget and
 * refuses by the repository's rules (rulesets, protections) exactly as its REST API would. The commit is
 * fetched first where the clone lacks it (a merge GitHub made). With `dropping`, the same push deletes
 * that branch only while it is still at `at`: atomically (both or neither) where the server allows it,
 * else the tag first, then the branch.
 *
 * "exists": the tag was already there, on any commit; the branch was left as it was, unless the tag was
 * on this very commit (then another hand is finishing the same publish). "created": the tag is made and
 * the branch is gone, or had moved on (new work: it stays). "refused": the repository refused the push
 * for another reason than those, in git's words.
 */
export async function createTag(
  clone: CacheClone,
  use: InProcessUse,
  tag: string,
  commit: string,
  dropping?: Dropping,
): Promise<TagPush> {
  await fetchRef(clone, use, commit);
  const tagRef = `refs/tags/${tag}`;
  try {
    return await push(clone, use, tagRef, commit, dropping);
  } catch (e) {
    if (!(e instanceof GitCommandError)) throw e;
    if (e.kind === "rejected") return afterRefusal(clone, use, { tag, commit, dropping, refused: e });
    if (!dropping || e.kind !== "other") throw e;
    // a server without atomic pushes: the tag first (a crash between leaves the draft, the mark of an
    // unfinished publish), then the branch
    const made = await createTag(clone, use, tag, commit);
    if (made.kind === "created") await deleteRefIf(clone, use, `refs/heads/${dropping.branch}`, dropping.at);
    return made;
  }
}

/** One push: the tag, and the branch's deletion under a lease, atomically. */
async function push(
  clone: CacheClone,
  use: InProcessUse,
  tagRef: string,
  commit: string,
  dropping: Dropping | undefined,
): Promise<TagPush> {
  const updates: RefUpdate[] = [{ ref: tagRef, to: commit }];
  if (dropping) updates.push({ ref: `refs/heads/${dropping.branch}`, to: null, lease: dropping.at });
  const pushed = await pushRefs(clone, use, updates, { atomic: dropping !== undefined, bases: [commit] });
  // unchanged: the tag was already on this very commit
  return { kind: pushed.get(tagRef) === "unchanged" ? "exists" : "created" };
}

/**
 * The push refused: what the remote holds now says why. The tag there → taken (by another publish, or
 * this one's other hand); else, with a branch to delete, the tag is pushed alone; else a rule of the
 * repository refused the tag.
 */
async function afterRefusal(
  clone: CacheClone,
  use: InProcessUse,
  at: { tag: string; commit: string; dropping?: Dropping; refused: GitCommandError },
): Promise<TagPush> {
  const { dropping } = at;
  const now = await listRefs(clone, use);
  if (now.some((r) => r.ref === `refs/tags/${at.tag}`)) return { kind: "exists" };
  // the branch moved on or went (its lease), or a rule refused its deletion alone (a protected draft):
  // the tag by itself, the branch left as it is
  if (dropping) return createTag(clone, use, at.tag, at.commit);
  return { kind: "refused", git: at.refused.stderr.trim() };
}
