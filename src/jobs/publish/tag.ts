import type { RepoFiles, RepoPushes } from "../../github/port.js";
import { nextRevision } from "../../lifecycle/discover.js";
import { indexRefs, type RefInfo } from "../../lifecycle/refs.js";
import { formatRevisionTag, parseRevisionTag } from "../../lifecycle/revision-tag.js";
import { reservedRevision } from "../catalog/read.js";

export interface RevisionTag {
  tag: string;
  revision: number;
  /** False when the commit already carried the package's tag (a job run again). */
  created: boolean;
}

/** Tries this many numbers when others publish the same package at the same moment. */
const TAG_ATTEMPTS = 10;

/**
 * Tags `commit` as the package's next revision: the commit's existing tag of the package when it has
 * one (a re-run), else the next free number. A clash means someone took that number meanwhile: the
 * refs are read again, and when the one who took it was finishing this same publish (the commit now
 * carries the package's tag: `rpkg approve` and the bot both finishing one merge), that tag is the
 * answer; else the next free number is tried. Tags are never moved, and a commit gets one revision.
 * With `dropping`, a tag created here went with the branch's deletion; one found took nothing with it.
 */
export async function ensureRevisionTag(
  port: RepoFiles & RepoPushes,
  pkg: string,
  commit: string,
  refs: readonly RefInfo[],
  /** The draft branch to delete in the tag's push (port.createTag), while still at `at`. */
  dropping?: { branch: string; at: string },
): Promise<RevisionTag> {
  let known = refs;
  let reserved: number | undefined;
  for (let attempt = 0; attempt < TAG_ATTEMPTS; attempt++) {
    const existing = tagOf(pkg, commit, known);
    if (existing) return { ...existing, created: false };
    // A number the catalog remembers (a revision deleted since) is never given to another commit; read
    // only when a tag is to be made (a commit tagged already, a run again, asks nothing of the catalog)
    reserved ??= await reservedRevision(port, refs, pkg);
    const revision = nextRevision(pkg, known, reserved);
    const tag = formatRevisionTag({ package: pkg, revision });
    if ((await port.createTag(tag, commit, dropping)) === "created") return { tag, revision, created: true };
    known = await port.listRefs();
  }
  throw new Error(
    `could not tag ${pkg} on ${commit.slice(0, 7)}: ${TAG_ATTEMPTS} revision numbers in a row were taken meanwhile; try again`,
  );
}

/** The package's revision tag on `commit`, if it has one. */
function tagOf(
  pkg: string,
  commit: string,
  refs: readonly RefInfo[],
): { tag: string; revision: number } | undefined {
  for (const [tag, sha] of indexRefs(refs).tags) {
    const parsed = parseRevisionTag(tag);
    if (sha === commit && parsed.ok && parsed.value.package === pkg)
      return { tag, revision: parsed.value.revision };
  }
  return undefined;
}
