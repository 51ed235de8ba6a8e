import { z } from "zod";
import { memoized } from "./memo.js";
import { parsePackageBranch } from "./package-branch.js";
import { parsePorchBranch } from "./porch-branch.js";
import { parseRevisionTag, type RevisionRef } from "./revision-tag.js";

/**
 * The `kpt:` line Porch writes at the end of every commit message it makes (pkg/externalrepo/git's
 * gitAnnotation, JSON on one line): which package the commit belongs to, in which workspace, at which
 * revision, and the task that made it. Porch finds a published revision's workspace, and a revision's
 * tasks, from these lines alone; porchlight writes them on every commit of a package revision too, so
 * that each reads the other's repositories, and reads them back for the same reason: a published
 * revision keeps the name of its workspace (`repo.pkg.workspace`) after its draft branch is gone.
 */
export interface KptAnnotation {
  /** The package's directory in the repository. */
  package: string;
  workspaceName?: string;
  /** The published revision number as text ("3"), when the commit is a publish. */
  revision?: string;
  /** What made the commit: Porch's task (init, clone, edit, upgrade, render, patch, …), with its spec. */
  task?: PorchTask;
}

/**
 * One of Porch's PackageRevision tasks (porch.kpt.dev/v1alpha1 Task): its type and, under the type's
 * own key, its spec — `{"type":"upgrade","upgrade":{"newUpstreamRef":{"name":…},…}}`.
 */
export interface PorchTask {
  type: string;
  [spec: string]: unknown;
}

/** The task types that begin a package revision (Porch's validFirstTaskTypes). */
const FIRST_TASK_TYPES = new Set(["init", "clone", "edit", "upgrade"]);

const TRAILER = "kpt:";

const annotationSchema = z.looseObject({
  package: z.string().optional(),
  workspaceName: z.string().optional(),
  revision: z.string().optional(),
  task: z.looseObject({ type: z.string() }).optional(),
});

/** The message with the annotation's `kpt:` line after a blank line, as Porch appends it. */
export function annotateMessage(message: string, annotation: KptAnnotation): string {
  // Porch's field order (package, workspaceName, revision, task), empty fields left out.
  const json = JSON.stringify({
    package: annotation.package,
    ...(annotation.workspaceName ? { workspaceName: annotation.workspaceName } : {}),
    ...(annotation.revision ? { revision: annotation.revision } : {}),
    ...(annotation.task ? { task: annotation.task } : {}),
  });
  if (kptAnnotations(message).some((a) => a.package === annotation.package)) return message;
  return `${message.replace(/\n+$/, "")}\n\n${TRAILER}${json}\n`;
}

/**
 * Every `kpt:` line of a commit message, in order, as Porch reads them (a line may be indented; one
 * that is not JSON of that shape is skipped, as Porch skips it with a warning). Kept by the message's
 * text (a message never changes): the index reads the workspace of every revision tag of a repository
 * at each reading of it, hundreds in Porch's iterative test, each line parsed as JSON and checked.
 */
export const kptAnnotations: (message: string) => readonly KptAnnotation[] = memoized(20_000, (message) =>
  Object.freeze(readAnnotations(message).map((a) => Object.freeze(a))),
);

function readAnnotations(message: string): KptAnnotation[] {
  const out: KptAnnotation[] = [];
  for (const raw of message.split("\n")) {
    const line = raw.trim();
    if (!line.startsWith(TRAILER)) continue;
    let value: unknown;
    try {
      value = JSON.parse(line.slice(TRAILER.length));
    } catch {
      continue;
    }
    const parsed = annotationSchema.safeParse(value);
    if (!parsed.success || parsed.data.package === undefined) continue;
    const { package: pkg, workspaceName, revision, task } = parsed.data;
    out.push({
      package: pkg,
      ...(workspaceName ? { workspaceName } : {}),
      ...(revision ? { revision } : {}),
      ...(task ? { task } : {}),
    });
  }
  return out;
}

/** The workspace a commit's `kpt:` lines give `pkg`, as Porch reads a published revision's. */
function workspaceFromMessage(message: string, pkg: string): string | undefined {
  return kptAnnotations(message).find((a) => a.package === pkg && a.workspaceName)?.workspaceName;
}

/**
 * The annotation a commit pushed to `branch` carries when its caller gave none: the package and
 * workspace the branch names (a porchlight draft or fan-out branch, or one of Porch's), or undefined for
 * a branch that holds no package revision (the catalog's, the default branch).
 */
export function annotationForBranch(branch: string): KptAnnotation | undefined {
  const own = parsePackageBranch(branch);
  // A fan-out branch carries every update of its variant, one revision after another: its variant's
  // name is no workspace of one revision, so it names the package alone (its revisions keep `v<N>`).
  if (own.ok)
    return own.value.variant
      ? { package: own.value.package }
      : { package: own.value.package, workspaceName: own.value.workspace };
  const porch = parsePorchBranch(branch);
  if (porch.ok) return { package: porch.value.package, workspaceName: porch.value.workspace };
  return undefined;
}

/**
 * The workspace of the published revision of `pkg` on a tagged commit, from its message: its `kpt:`
 * line (porchlight's publish writes one on the merge commit; Porch tags its own annotated commit), or
 * else the branch GitHub's own merge commit names (`Merge pull request #N from owner/drafts/<pkg>/<ws>`,
 * a merge by GitHub's button). Undefined when the message tells neither.
 */
export function publishedWorkspace(message: string, pkg: string): string | undefined {
  const fromTrailer = workspaceFromMessage(message, pkg);
  if (fromTrailer) return fromTrailer;
  const merged = /^Merge pull request #\d+ from [^/\s]+\/(\S+)/.exec(message);
  if (!merged?.[1]) return undefined;
  const branch = parsePackageBranch(merged[1]);
  // (a fan-out branch names its variant, not the workspace its revision took: variantWorkspace)
  return branch.ok && branch.value.package === pkg && branch.value.variant === undefined
    ? branch.value.workspace
    : undefined;
}

/** A revision tag with its commit and, where the commit's message tells it, its revision's workspace. */
export interface TaggedRevision extends RevisionRef {
  tag: string;
  sha: string;
  workspace?: string;
}

/**
 * The revision tags among `tags` (name → commit; other tags left out), each with its workspace read from
 * its commit's message (publishedWorkspace): the messages asked for in one read, for all of them.
 */
export async function taggedRevisions(
  tags: Iterable<readonly [string, string]>,
  messagesOf: (shas: string[]) => Promise<ReadonlyMap<string, string>>,
): Promise<TaggedRevision[]> {
  const found = [...tags].flatMap(([tag, sha]) => {
    const parsed = parseRevisionTag(tag);
    return parsed.ok ? [{ tag, sha, ...parsed.value }] : [];
  });
  if (found.length === 0) return [];
  const messages = await messagesOf(found.map((t) => t.sha));
  return found.map((t) => {
    const workspace = publishedWorkspace(messages.get(t.sha) ?? "", t.package);
    return workspace ? { ...t, workspace } : t;
  });
}

/**
 * The tasks of revision `pkg`/`workspace`, as Porch's loadTasks reads them: walking its history newest
 * first, the oldest task that begins a revision (init, clone, edit — a copy —, upgrade) among the `kpt:`
 * lines for it, stopping at an init or a clone. Empty when no commit says how the revision began (a
 * package pushed by hand, a revision squash-merged without its draft's commits).
 */
export function revisionTasks(messages: readonly string[], pkg: string, workspace: string): PorchTask[] {
  let first: PorchTask | undefined;
  for (const message of messages) {
    for (const a of kptAnnotations(message)) {
      // a revision from before the workspaceName field carries its revision where the workspace goes
      const mine =
        a.package === pkg &&
        (a.workspaceName === workspace || (!a.workspaceName && a.revision === workspace));
      if (!mine || !a.task) continue;
      if (FIRST_TASK_TYPES.has(a.task.type)) first = a.task;
      if (a.task.type === "init" || a.task.type === "clone") return first ? [first] : [];
    }
  }
  return first ? [first] : [];
}

/** Who published a revision and when (Porch's `status.publishedBy` and `status.publishTimestamp`). */
export interface PublishInfo {
  by: string;
  at: Date;
}

/**
 * Who published revision `pkg` and when, from its history (newest first), as Porch's git repository reads
 * it: for a revision on a tag, the author of the tagged commit (`onTag`, the history's first); for the
 * registered branch's revision (`.main`), the author of the newest commit whose `kpt:` line names the
 * package; undefined when none does (a package pushed by hand), as Porch leaves both fields out.
 */
export function publishInfo(
  history: readonly { message: string; authorEmail: string; authorDate: Date }[],
  pkg: string,
  onTag: boolean,
): PublishInfo | undefined {
  const commit = onTag
    ? history[0]
    : history.find((c) => kptAnnotations(c.message).some((a) => a.package === pkg));
  return commit ? { by: commit.authorEmail, at: commit.authorDate } : undefined;
}
