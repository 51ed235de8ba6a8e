import type { FileTree } from "../kpt/tree.js";
import type { PackageRevision } from "../lifecycle/index.js";
import { PorchError, resourcesConflict } from "./errors.js";
import { branchOf, nameOf } from "./names.js";
import { openRevisionMetadata } from "./registrations.js";
import { type PorchStep, PUSH_ON_RENDER_FAILURE, renderAsPorch } from "./render.js";
import type { Repository } from "./repository.js";
import { isResourceFile, pulledVersion, REVISION_METADATA_FILE, resourceListToTree } from "./resources.js";
import type { OpEnv } from "./steps.js";

/** What `push` replaces a draft's files with. */
export interface PushArgs {
  repo: Repository;
  rev: PackageRevision;
  /** The revision as the caller named it (their words in a refusal). */
  name: string;
  /**
   * The package's files (`.KptRevisionMetadata`, where a pull left it, names the version they were
   * pulled at), or a ResourceList's text: the files it cannot carry (README.md…) keep the draft's.
   */
  files: FileTree | { list: string; source: string };
  /** Told the render's function runs before anything is pushed (porchctl prints them). */
  rendered?: (steps: readonly PorchStep[]) => void;
}

/**
 * Replaces a draft's files as Porch's update of its resources does: held to the version a pulled package
 * names (Porch's optimistic lock), rendered, refused when the render fails unless the revision says
 * porch.kpt.dev/push-on-render-failure, and committed only where the draft still is (of two pushes at
 * once exactly one lands). Answers the new commit, or none when nothing changed.
 */
export async function push(env: OpEnv, args: PushArgs): Promise<{ name: string; sha: string | undefined }> {
  const { repo, rev, name } = args;
  const branch = branchOf(rev);
  if (!branch || rev.lifecycle !== "Draft") {
    throw new PorchError(
      "bad-request",
      `${name} is ${rev.lifecycle}: only a Draft takes new files.${rev.lifecycle === "Proposed" ? ` Reject the proposal first (\`porchlight rpkg reject ${name}\`), or push to the branch ${branch} directly.` : " Make a new draft with `porchlight rpkg copy`."}`,
    );
  }
  const dir = repo.packageDir(rev.package);
  const fromList = "list" in args.files ? args.files : undefined;
  const current = fromList === undefined ? undefined : (await repo.conn.port.readTree(rev.sha, dir)).tree;
  // each file's sequence indentation from the draft where the list does not say it
  const local =
    fromList === undefined
      ? new Map(args.files as FileTree)
      : resourceListToTree(fromList.list, fromList.source, current);
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
  if (pulledAt !== undefined && pulledAt !== rev.sha)
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
  const access = {
    token: env.token,
    apiUrl: env.apiUrl,
    cacheDir: env.cacheDir,
    conditional: env.conditional,
    disk: env.disk,
  };
  const own = await openRevisionMetadata(access, repo.namespace).get(nameOf(repo, rev));
  const pushAnyway = own.annotations[PUSH_ON_RENDER_FAILURE] === "true";
  if (rendered.status === "failed" && !pushAnyway) {
    throw new PorchError(
      "bad-request",
      `error rendering package in kpt function pipeline. Package NOT pushed to remote. Fix locally (until 'kpt fn render' succeeds) and retry. Details: ${rendered.message}`,
      `to push it as it is, annotate the revision: porchlight rpkg annotate ${name} ${PUSH_ON_RENDER_FAILURE}=true`,
    );
  }
  if (rendered.status !== "left-to-bot") args.rendered?.(rendered.steps);
  const step = env.progress.step(`Pushing ${local.size} files to ${branch}`);
  const result = await repo.conn.port.commitTree({
    branch,
    parent: rev.sha,
    dir,
    tree: rendered.tree,
    message: `Edit ${rev.package} (workspace ${rev.workspace})`,
    author: await repo.author(),
    // Porch's update is a new version of the draft even when nothing changed, and of two pushes on the
    // draft at once (even of the very same files) exactly one lands: a commit, moved exclusively
    allowEmpty: true,
    exclusive: true,
  });
  if (!result.ok && result.reason === "non-fast-forward") {
    step.fail("the draft changed");
    throw resourcesConflict(
      repo.namespace,
      nameOf(repo, rev),
      `another push moved ${branch} in ${repo.full} from ${rev.sha.slice(0, 7)} at the same moment: pull it again, reapply your changes and push`,
    );
  }
  if (!result.ok) {
    // porchctl says "pushed" for a push that changed nothing too; the step says which
    step.done("no changes");
    return { name: nameOf(repo, rev), sha: undefined };
  }
  step.done(result.sha.slice(0, 7));
  if (rendered.status === "failed") {
    throw new PorchError(
      "bad-request",
      `error rendering package in kpt function pipeline. Package pushed to remote despite render failure. Details: ${rendered.message}`,
    );
  }
  return { name: nameOf(repo, rev), sha: result.sha };
}
