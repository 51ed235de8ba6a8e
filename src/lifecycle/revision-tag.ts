import { memoized } from "./memo.js";
import { packagePathProblem } from "./package-path.js";
import { type Parsed, parsed, rejected } from "./result.js";

/** A published package revision's tag: `<package-path>/v<N>`, N a positive integer. */
export interface RevisionRef {
  package: string;
  revision: number;
}

const REVISION = /^v([1-9][0-9]*)$/;

export function formatRevisionTag({ package: pkg, revision }: RevisionRef): string {
  const problem = packagePathProblem(pkg) ?? revisionProblem(revision);
  if (problem) throw new Error(`cannot name a revision tag: ${problem}`);
  return `${pkg}/v${revision}`;
}

/**
 * Reads a tag name (with or without `refs/tags/`). `v01` is refused so a revision has one tag only. Kept
 * by name: a repository's listing names every revision tag, and each reading of it (the index's at every
 * change, a publish's) reads them all again, hundreds in Porch's iterative test.
 */
export const parseRevisionTag: (tag: string) => Parsed<RevisionRef> = memoized(50_000, (tag) => {
  const read = readRevisionTag(tag);
  if (read.ok) Object.freeze(read.value);
  return Object.freeze(read);
});

function readRevisionTag(tag: string): Parsed<RevisionRef> {
  const name = tag.startsWith("refs/tags/") ? tag.slice("refs/tags/".length) : tag;
  const slash = name.lastIndexOf("/");
  if (slash <= 0) return rejected(`"${name}" needs a package path and a revision: <package>/v<N>`);
  const pkg = name.slice(0, slash);
  const match = REVISION.exec(name.slice(slash + 1));
  if (!match?.[1]) return rejected(`"${name}" does not end in a revision v<N> (v1, v2, …)`);
  const revision = Number(match[1]);
  const problem = packagePathProblem(pkg) ?? revisionProblem(revision);
  return problem ? rejected(problem) : parsed({ package: pkg, revision });
}

function revisionProblem(revision: number): string | undefined {
  if (!Number.isSafeInteger(revision) || revision < 1)
    return `the revision ${revision} is not a positive integer`;
  return undefined;
}
