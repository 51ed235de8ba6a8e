/** One reference as `git ls-remote` or GitHub's matching-refs API lists it. */
export interface RefInfo {
  /** Full name, e.g. `refs/heads/drafts/app/fix-1` or `refs/tags/app/v3`; a peeled tag ends in `^{}`. */
  ref: string;
  sha: string;
}

type RefKind = "branch" | "tag" | "other";

interface ShortRef {
  kind: RefKind;
  /** The name without `refs/heads/` or `refs/tags/`. */
  name: string;
}

const BRANCH = "refs/heads/";
const TAG = "refs/tags/";

function shortRef(ref: string): ShortRef {
  if (ref.startsWith(BRANCH)) return { kind: "branch", name: ref.slice(BRANCH.length) };
  if (ref.startsWith(TAG)) return { kind: "tag", name: ref.slice(TAG.length) };
  return { kind: "other", name: ref };
}

/**
 * Branches and tags by short name, each with the commit it points at: an annotated tag's peeled entry
 * (`refs/tags/x^{}`) wins over the tag object, so a tag always maps to its commit.
 */
export function indexRefs(refs: readonly RefInfo[]): {
  branches: Map<string, string>;
  tags: Map<string, string>;
} {
  const branches = new Map<string, string>();
  const tags = new Map<string, string>();
  const peeled = new Set<string>();
  for (const { ref, sha } of refs) {
    const { kind, name } = shortRef(ref);
    if (kind === "branch") branches.set(name, sha);
    else if (kind === "tag") {
      if (name.endsWith("^{}")) {
        const tag = name.slice(0, -3);
        tags.set(tag, sha);
        peeled.add(tag);
      } else if (!peeled.has(name)) tags.set(name, sha);
    }
  }
  return { branches, tags };
}

/**
 * Whether creating `name` would clash with an existing ref of the same kind: git stores refs as paths,
 * so `drafts/app/dns` and `drafts/app/dns/fix` cannot both exist.
 */
export function refConflict(name: string, existing: Iterable<string>): string | undefined {
  for (const other of existing) {
    if (other === name) continue;
    if (other.startsWith(`${name}/`) || name.startsWith(`${other}/`)) return other;
  }
  return undefined;
}
