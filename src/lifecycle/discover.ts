import { DELETED_LABEL, DELETION_LABEL } from "./labels.js";
import type { Lifecycle } from "./lifecycle.js";
import { parsePackageBranch } from "./package-branch.js";
import { parsePorchBranch } from "./porch-branch.js";
import { indexRefs, type RefInfo } from "./refs.js";
import { parseRevisionTag } from "./revision-tag.js";
import { variantWorkspace } from "./variant-branch.js";

/** A pull request, as much of it as the lifecycle needs: open ones, and merged ones of draft branches. */
export interface PullRequestInfo {
  number: number;
  /** The head branch name, without `refs/heads/`. */
  headRef: string;
  baseRef: string;
  headSha: string;
  labels: readonly string[];
  /** GitHub's draft pull request: work in progress, so the revision is still a Draft. */
  draft: boolean;
  /** A pull request from a fork names a branch outside this repository: not a package revision here. */
  isFork?: boolean;
  /** Merged (so closed): its head, if the branch still points at it, is the published revision. */
  merged?: boolean;
  /** A merged one's merge commit, which its revision tag names once the publish tagged it. */
  mergeCommitSha?: string | null;
}

/** One package revision, as `porchctl rpkg get` lists it. */
export interface PackageRevision {
  package: string;
  /** The draft's workspace; a published revision found from its tag alone shows `v<N>`, as Porch does. */
  workspace: string;
  /** The published revision number; 0 while unpublished, as in Porch. */
  revision: number;
  lifecycle: Lifecycle;
  /** The highest published revision of its package. */
  latest: boolean;
  /** Where its files are: `refs/heads/drafts/…` or `refs/tags/<package>/v<N>`. */
  ref: string;
  sha: string;
  /** The proposal's pull request, for Proposed and DeletionProposed revisions (and drafts with one). */
  pullRequest?: number;
}

export interface DiscoverInput {
  refs: readonly RefInfo[];
  pullRequests: readonly PullRequestInfo[];
  /** The base branch proposals merge into. */
  baseBranch: string;
  /**
   * The packages (directories holding a Kptfile) on the base branch. When given, each outermost one is
   * listed as Porch lists its registered branch: `<repo>.<package>.<branch>`, revision -1, Published,
   * never the latest. A package gone from the branch (its `.main` revision deleted) keeps its published
   * revisions, as in Porch: each tag is a revision of its own, deleted on its own.
   */
  basePackages?: ReadonlySet<string>;
  /**
   * The workspace of each published revision, by tag (`<package>/v<N>`), as the `kpt:` lines of its
   * commit give it (publishedWorkspace): its name stays `repo.pkg.workspace` after publish, as in
   * Porch. A tag without one is named by its number, `v<N>` (Porch's rule for revisions made before
   * workspaces existed).
   */
  publishedWorkspaces?: ReadonlyMap<string, string>;
}

/**
 * Every package revision of a repository, from one listing of its refs and its open pull requests, in
 * one pass over each. Drafts are `drafts/<package>/<workspace>` branches; an open pull request from one
 * into the base branch makes it Proposed (a GitHub draft pull request leaves it Draft); tags
 * `<package>/v<N>` are Published. A pull request labelled `porchlight/deletion` proposes deleting the
 * package: its latest published revision is DeletionProposed. A draft branch still at the head of its
 * merged pull request (publishing deletes it; a crash may leave it) is not a Draft: that revision is
 * Published under its tag. Refs that follow neither scheme are not package revisions and are left out.
 * A deletion proposal names the one revision it deletes, as Porch's: a pull request labelled
 * `porchlight/deletion` from a draft branch removes the package from the base branch, so the package's
 * `.<branch>` revision is DeletionProposed; one from `deletionProposed/<package>/<workspace>` removes
 * that published revision's tag, so that revision is (revision-deletion.ts).
 */
export function discoverRevisions({
  refs,
  pullRequests,
  baseBranch,
  basePackages,
  publishedWorkspaces,
}: DiscoverInput): PackageRevision[] {
  const { branches, tags } = indexRefs(refs);
  const proposals = new Map<string, PullRequestInfo>();
  const mergedHeads = new Map<string, PullRequestInfo>();
  for (const pr of pullRequests) {
    if (pr.isFork || pr.baseRef !== baseBranch) continue;
    if (pr.merged) mergedHeads.set(`${pr.headRef}@${pr.headSha}`, pr);
    else proposals.set(pr.headRef, pr);
  }
  const tagged = new Set(tags.values());

  const revisions: PackageRevision[] = [];
  const latest = new Map<string, PackageRevision>();
  for (const [tag, sha] of tags) {
    const parsedTag = parseRevisionTag(tag);
    if (!parsedTag.ok) continue;
    const { package: pkg, revision } = parsedTag.value;
    const rev: PackageRevision = {
      package: pkg,
      workspace: publishedWorkspaces?.get(tag) ?? `v${revision}`,
      revision,
      lifecycle: "Published",
      latest: false,
      ref: `refs/tags/${tag}`,
      sha,
    };
    revisions.push(rev);
    const current = latest.get(pkg);
    if (!current || current.revision < revision) latest.set(pkg, rev);
  }
  for (const rev of latest.values()) rev.latest = true;
  // a fan-out draft's workspace: its variant's next name among the package's published revisions
  const workspaceOf = (branch: { package: string; workspace: string; variant?: string }) =>
    branch.variant === undefined
      ? branch.workspace
      : variantWorkspace(
          branch.variant,
          revisions.filter((r) => r.package === branch.package && r.revision > 0).map((r) => r.workspace),
        );
  const onBranch = branchRevisions(basePackages, baseBranch, branches.get(baseBranch));
  revisions.push(...onBranch.values());

  for (const [branch, sha] of branches) {
    const draft = parsePackageBranch(branch);
    const pr = proposals.get(branch);
    if (!draft.ok) {
      const porch = porchRevision(parsePorchBranch(branch), revisions, branch, sha, pr);
      if (porch) revisions.push(porch);
      continue;
    }
    // A branch still at the head of its merged proposal is that published revision (its tag lists it);
    // commits pushed after the merge make it a draft again. Merged but not tagged yet (a publish between
    // its merge and its tag), it is still the one revision it was, Proposed with its pull request, until
    // the tag names it: a watch sees the proposal published (MODIFIED), never deleted and added again.
    // A merge whose revision was deleted since (labelled so) is nothing.
    const merged = pr ? undefined : mergedHeads.get(`${branch}@${sha}`);
    if (merged) {
      const publishing =
        merged.mergeCommitSha && !tagged.has(merged.mergeCommitSha) && !merged.labels.includes(DELETED_LABEL);
      if (!publishing) continue;
      revisions.push({
        package: draft.value.package,
        workspace: workspaceOf(draft.value),
        revision: 0,
        lifecycle: "Proposed",
        latest: false,
        ref: `refs/heads/${branch}`,
        sha,
        pullRequest: merged.number,
      });
      continue;
    }
    if (pr?.labels.includes(DELETION_LABEL)) {
      // Removing the package from the base branch deletes its `.<branch>` revision, and no other.
      const main = onBranch.get(draft.value.package);
      if (main) {
        main.lifecycle = "DeletionProposed";
        main.pullRequest = pr.number;
        continue;
      }
    }
    const rev: PackageRevision = {
      package: draft.value.package,
      workspace: workspaceOf(draft.value),
      revision: 0,
      lifecycle: draftLifecycle(pr),
      latest: false,
      ref: `refs/heads/${branch}`,
      sha,
    };
    if (pr) rev.pullRequest = pr.number;
    revisions.push(rev);
  }
  return revisions.sort(byPackageThenRevision);
}

/**
 * A revision on one of Porch's own branches that porchlight's scheme does not use: `proposed/<pkg>/<ws>`
 * is a Proposed revision (Porch proposes by moving the draft there, with no pull request);
 * `deletionProposed/<pkg>/<ws>` marks the published revision of that workspace DeletionProposed (and
 * gives no revision of its own).
 */
function porchRevision(
  porch: ReturnType<typeof parsePorchBranch>,
  revisions: PackageRevision[],
  branch: string,
  sha: string,
  pr: PullRequestInfo | undefined,
): PackageRevision | undefined {
  if (!porch.ok || porch.value.kind === "Draft") return undefined;
  const { kind, package: pkg, workspace } = porch.value;
  if (kind === "DeletionProposed") {
    // porchlight's own proposal to delete a published revision is this branch with a pull request
    const published = revisions.find(
      (r) => r.package === pkg && r.workspace === workspace && r.revision > 0 && r.lifecycle === "Published",
    );
    if (published) {
      published.lifecycle = "DeletionProposed";
      if (pr?.labels.includes(DELETION_LABEL)) published.pullRequest = pr.number;
    }
    return undefined;
  }
  return {
    package: pkg,
    workspace,
    revision: 0,
    lifecycle: "Proposed",
    latest: false,
    ref: `refs/heads/${branch}`,
    sha,
  };
}

/**
 * The packages on the base branch as the revisions Porch lists for its registered branch, by package:
 * each outermost package (a directory with a Kptfile not inside another) as `<package>.<branch>`,
 * revision -1, Published, never the latest.
 */
function branchRevisions(
  dirs: ReadonlySet<string> | undefined,
  branch: string,
  sha: string | undefined,
): Map<string, PackageRevision> {
  const out = new Map<string, PackageRevision>();
  if (!sha || !dirs) return out;
  const packages = [...dirs].filter((d) => d !== "");
  for (const pkg of packages) {
    if (packages.some((outer) => pkg.startsWith(`${outer}/`))) continue;
    out.set(pkg, {
      package: pkg,
      workspace: branch,
      revision: -1,
      lifecycle: "Published",
      latest: false,
      ref: `refs/heads/${branch}`,
      sha,
    });
  }
  return out;
}

function draftLifecycle(pr: PullRequestInfo | undefined): Lifecycle {
  if (!pr || pr.draft) return "Draft";
  return pr.labels.includes(DELETION_LABEL) ? "DeletionProposed" : "Proposed";
}

/** By package; published revisions in order, then unpublished ones by workspace. */
/** Porch's listing order: by package, then revision (the branch's -1 first, unpublished last), then workspace. */
export function byPackageThenRevision(a: PackageRevision, b: PackageRevision): number {
  if (a.package !== b.package) return a.package < b.package ? -1 : 1;
  const ra = a.revision === 0 ? Number.POSITIVE_INFINITY : a.revision;
  const rb = b.revision === 0 ? Number.POSITIVE_INFINITY : b.revision;
  if (ra !== rb) return ra - rb;
  return a.workspace < b.workspace ? -1 : a.workspace > b.workspace ? 1 : 0;
}

/**
 * The revision number the next publish of `pkg` takes: one more than its highest tag, or than `reserved`
 * (the highest number the catalog remembers: a revision deleted since, whose tag is gone), or 1. Porch
 * numbers on from the highest published revision left, so it gives a deleted revision's number again;
 * porchlight does not, as long as the catalog or a downstream's lock may still name it (docs/porch.md).
 */
export function nextRevision(pkg: string, refs: readonly RefInfo[], reserved: number): number {
  let highest = reserved;
  for (const tag of indexRefs(refs).tags.keys()) {
    const parsedTag = parseRevisionTag(tag);
    if (parsedTag.ok && parsedTag.value.package === pkg)
      highest = Math.max(highest, parsedTag.value.revision);
  }
  return highest + 1;
}

/** Porch's object name for a revision: `<repository>.<package with / as .>.<workspace>`. */
export function revisionName(
  repository: string,
  rev: Pick<PackageRevision, "package" | "workspace">,
): string {
  return `${repository}.${rev.package.replaceAll("/", ".")}.${rev.workspace}`;
}
