import type { RepoPort } from "../../github/port.js";
import { nextRevision } from "../../lifecycle/discover.js";
import { indexRefs, type RefInfo } from "../../lifecycle/refs.js";
import { formatRevisionTag, parseRevisionTag } from "../../lifecycle/revision-tag.js";

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
 * one (a re-run), else the next free number; a clash (someone took that number meanwhile) retries
 * with the next one. Tags are never moved.
 */
export async function ensureRevisionTag(
  port: RepoPort,
  pkg: string,
  commit: string,
  refs: readonly RefInfo[],
): Promise<RevisionTag> {
  for (const [tag, sha] of indexRefs(refs).tags) {
    const parsed = parseRevisionTag(tag);
    if (sha === commit && parsed.ok && parsed.value.package === pkg) {
      return { tag, revision: parsed.value.revision, created: false };
    }
  }
  let revision = nextRevision(pkg, refs);
  for (let attempt = 0; attempt < TAG_ATTEMPTS; attempt++, revision++) {
    const tag = formatRevisionTag({ package: pkg, revision });
    if ((await port.createTag(tag, commit)) === "created") return { tag, revision, created: true };
  }
  throw new Error(
    `could not tag ${pkg}: revisions v${revision - TAG_ATTEMPTS} to v${revision - 1} were all taken meanwhile`,
  );
}
