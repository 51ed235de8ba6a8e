import type { FileTree } from "../kpt/tree.js";
import { indexRefs } from "../lifecycle/index.js";
import { renderedSince } from "./drafts.js";
import { PorchError, resourcesConflict } from "./errors.js";
import { revisionAnnotations } from "./metadata.js";
import { branchOf, nameOf } from "./names.js";
import { packageRevisionObject } from "./objects.js";
import { revisionOf } from "./open.js";
import { type PorchStep, PUSH_ON_RENDER_FAILURE, renderAsPorch } from "./render.js";
import type { Repository } from "./repository.js";
import {
  isResourceFile,
  pulledVersion,
  REVISION_METADATA_FILE,
  resourceListToTree,
  revisionMetadata,
} from "./resources.js";
import type { OpEnv } from "./steps.js";

/** How many times a push goes again on top of the bot's render that moved the draft under it. */
const RENDERS_WAITED = 3;

/** What `push` replaces a draft's files with, and who hears of its render and its new version. */
export interface PushArgs {
  /** The draft's repository: its registered name or OWNER/REPO, or one already opened. */
  repository: string | Repository;
  /** The draft as the caller named it. */
  name: string;
  /**
   * A package's files (a pulled folder's `.KptRevisionMetadata` names the version they were pulled at,
   * which must be the draft's head), or a ResourceList (`source` names it in a refusal) whose files
   * replace the draft's resources, the files it cannot carry (README.md…) keeping their content.
   */
  files: { tree: FileTree } | { resourceList: string; source: string };
  /** Told the functions the render ran, before anything is pushed (porchctl prints them). */
  onRender?: (steps: readonly PorchStep[]) => void;
  /**
   * Told the pushed version's `.KptRevisionMetadata` once the draft is at it (a pulled folder keeps it, so
   * the next push from it goes on top), before a render failure pushed anyway is reported.
   */
  onPushed?: (revisionMetadata: string) => void;
}

/**
 * Replaces a draft's files as Porch's update of its PackageRevisionResources: rendered as Porch renders
 * them, refused when the render fails (unless the revision is annotated
 * porch.kpt.dev/push-on-render-failure: "true": then pushed, and the failure reported after), and
 * refused when it was pulled at another version or another push moved it first. Answers the revision's
 * name and its new version (undefined when the files changed nothing).
 */
export async function push(env: OpEnv, args: PushArgs): Promise<{ name: string; sha: string | undefined }> {
  const { name } = args;
  const { repo, rev } = await revisionOf(env, args.repository, "push", name);
  const branch = branchOf(rev);
  if (!branch || rev.lifecycle !== "Draft") {
    throw new PorchError(
      "bad-request",
      `${name} is ${rev.lifecycle}: only a Draft takes new files.${rev.lifecycle === "Proposed" ? ` Reject the proposal first (\`porchlight rpkg reject ${name}\`), or push to the branch ${branch} directly.` : " Make a new draft with `porchlight rpkg copy`."}`,
    );
  }
  const dir = repo.packageDir(rev.package);
  const { files } = args;
  const current = "tree" in files ? undefined : (await repo.conn.port.readTree(rev.sha, dir)).tree;
  // each file's sequence indentation from the draft where the list does not say it
  const local: FileTree =
    "tree" in files ? new Map(files.tree) : resourceListToTree(files.resourceList, files.source, current);
  const pulledAt = pulledVersion(local);
  local.delete(REVISION_METADATA_FILE);
  // Porch's optimistic lock: a pulled package names the version it was pulled at, which must be the
  // draft's head (a package without .KptRevisionMetadata goes on top of whatever the draft is at)
  if (pulledAt === "")
    throw new PorchError(
      "bad-request",
      "Internal error occurred: resourceVersion must be specified for an update",
      `${REVISION_METADATA_FILE} names no metadata.resourceVersion: pull ${name} again, reapply your changes and push`,
    );
  // (a draft the bot rendered since it was pulled is the version pulled: the render is of that version)
  if (pulledAt !== undefined && pulledAt !== rev.sha && !(await renderedSince(repo, pulledAt, rev.sha)))
    throw new PorchError(
      "conflict",
      `Internal error occurred: Operation cannot be fulfilled on packagerevisionresources.porch.kpt.dev "${nameOf(repo, rev)}": the object has been modified; please apply your changes to the latest version and try again`,
      `it was pulled at ${pulledAt.slice(0, 12)} and ${repo.full} has it at ${rev.sha.slice(0, 12)}: pull it again, reapply your changes and push`,
    );
  if (current) {
    for (const [path, bytes] of current)
      if (!isResourceFile(path) && !local.has(path)) local.set(path, bytes);
  }
  // Porch renders what is pushed, and refuses the push when the render fails, unless the revision
  // carries porch.kpt.dev/push-on-render-failure: "true"
  const rendered = await renderAsPorch(local, repo.config.functions.runtimes);
  const pushAnyway = (await revisionAnnotations(env, repo, rev))[PUSH_ON_RENDER_FAILURE] === "true";
  if (rendered.status === "failed" && !pushAnyway) {
    throw new PorchError(
      "bad-request",
      `error rendering package in kpt function pipeline. Package NOT pushed to remote. Fix locally (until 'kpt fn render' succeeds) and retry. Details: ${rendered.message}`,
      `to push it as it is, annotate the revision: porchlight rpkg annotate ${name} ${PUSH_ON_RENDER_FAILURE}=true`,
    );
  }
  if (rendered.status !== "left-to-bot") args.onRender?.(rendered.steps);
  const step = env.progress.step(`Pushing ${local.size} files to ${branch}`);
  const author = await repo.author();
  let parent = rev.sha;
  let result: Awaited<ReturnType<typeof repo.conn.port.commitTree>>;
  for (let attempt = 1; ; attempt++) {
    result = await repo.conn.port.commitTree({
      branch,
      parent,
      dir,
      tree: rendered.tree,
      message: `Edit ${rev.package} (workspace ${rev.workspace})`,
      author,
      // Porch's update is a new version of the draft even when nothing changed, and of two pushes on the
      // draft at once (even of the very same files) exactly one lands: a commit, moved exclusively
      allowEmpty: true,
      exclusive: true,
    });
    if (result.ok || result.reason !== "non-fast-forward" || attempt > RENDERS_WAITED) break;
    // the bot's render of the draft landed meanwhile (of the caller's own earlier write): the files
    // replace it all the same, on top of it; another writer's push is a conflict
    const head = indexRefs(await repo.conn.port.listRefs()).branches.get(branch);
    if (head === undefined || !(await renderedSince(repo, parent, head))) break;
    parent = head;
  }
  if (!result.ok && result.reason === "non-fast-forward") {
    step.fail("the draft changed");
    throw resourcesConflict(
      repo.namespace,
      nameOf(repo, rev),
      `another push moved ${branch} in ${repo.full} from ${rev.sha.slice(0, 7)} at the same moment: pull it again, reapply your changes and push`,
    );
  }
  if (!result.ok) {
    // porchctl says "pushed" for a push that changed nothing too; the progress line says which
    step.done("no changes");
    return { name: nameOf(repo, rev), sha: undefined };
  }
  step.done(result.sha.slice(0, 7));
  repo.madeDraft(branch, result.sha);
  const meta = packageRevisionObject(repo, rev).metadata;
  args.onPushed?.(revisionMetadata({ ...meta, resourceVersion: result.sha }));
  if (rendered.status === "failed") {
    throw new PorchError(
      "bad-request",
      `error rendering package in kpt function pipeline. Package pushed to remote despite render failure. Details: ${rendered.message}`,
    );
  }
  return { name: nameOf(repo, rev), sha: result.sha };
}
