import { existsSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type FileTree, readTree } from "../../kpt/tree.js";
import { PorchError, resourcesConflict } from "../../porch/errors.js";
import { branchOf, nameOf } from "../../porch/names.js";
import { packageRevisionObject } from "../../porch/objects.js";
import { type PorchStep, PUSH_ON_RENDER_FAILURE, renderAsPorch } from "../../porch/render.js";
import {
  isResourceFile,
  pulledVersion,
  REVISION_METADATA_FILE,
  resourceListToTree,
  revisionMetadata,
} from "../../porch/resources.js";
import { resultLine } from "../../render/results.js";
import { UsageError } from "../io.js";
import { revisionAnnotations } from "./annotate.js";
import { openRevision, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg push PACKAGE_REV_NAME [DIR|-] --repository=OWNER/REPO

Replace a draft's files with those in DIR, or with a ResourceList read from stdin ('-', the default).
With a ResourceList, files it cannot carry (README.md and other non-YAML files) keep their content.
If DIR came from \`rpkg pull\`, the push is refused when the draft changed since: pull again.
`;

export const pushVerb: Verb = {
  name: "push",
  summary: "Replace a draft's files from a directory or a ResourceList on stdin.",
  usage: USAGE,
  flags: {},
  async run(args, env) {
    const [name, source = "-", ...extra] = args.positional;
    if (!name || extra.length > 0)
      throw new UsageError(`rpkg push takes PACKAGE_REV_NAME [DIR|-]\n\n${USAGE}`);
    /** The files of DIR (a ResourceList from stdin becomes files once the draft is read). */
    let fromDir: FileTree = new Map();
    /** The `.KptRevisionMetadata` of a pulled folder, refreshed after the push. */
    let pulledFrom: string | undefined;
    let list: string | undefined;
    if (source === "-") {
      list = await env.io.readStdin();
    } else {
      const dir = resolve(env.io.cwd, source);
      if (!existsSync(dir) || !statSync(dir).isDirectory()) {
        throw new PorchError(
          "bad-request",
          `${source} is not a directory; push a package directory, or '-' for a ResourceList on stdin`,
        );
      }
      fromDir = await readTree(dir);
      if (fromDir.has(REVISION_METADATA_FILE)) pulledFrom = join(dir, REVISION_METADATA_FILE);
    }
    const { repo, rev } = await openRevision("push", args, env, name);
    const branch = branchOf(rev);
    if (!branch || rev.lifecycle !== "Draft") {
      throw new PorchError(
        "bad-request",
        `${name} is ${rev.lifecycle}: only a Draft takes new files.${rev.lifecycle === "Proposed" ? ` Reject the proposal first (\`porchlight rpkg reject ${name}\`), or push to the branch ${branch} directly.` : " Make a new draft with `porchlight rpkg copy`."}`,
      );
    }
    const dir = repo.packageDir(rev.package);
    const current = list === undefined ? undefined : (await repo.conn.port.readTree(rev.sha, dir)).tree;
    // each file's sequence indentation from the draft where the list does not say it
    const local = list === undefined ? fromDir : resourceListToTree(list, "stdin", current);
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
    const pushAnyway = (await revisionAnnotations(env, repo, rev))[PUSH_ON_RENDER_FAILURE] === "true";
    if (rendered.status === "failed" && !pushAnyway) {
      throw new PorchError(
        "bad-request",
        `error rendering package in kpt function pipeline. Package NOT pushed to remote. Fix locally (until 'kpt fn render' succeeds) and retry. Details: ${rendered.message}`,
        `to push it as it is, annotate the revision: porchlight rpkg annotate ${name} ${PUSH_ON_RENDER_FAILURE}=true`,
      );
    }
    if (rendered.status !== "left-to-bot") env.io.stderr(porchRenderLines(rendered.steps));
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
      // porchctl says "pushed" for a push that changed nothing too; the progress line says which
      step.done("no changes");
      env.io.stdout(`${nameOf(repo, rev)} pushed\n`);
      return 0;
    }
    step.done(result.sha.slice(0, 7));
    // The folder now holds what the draft is at: the next push from it goes on top of this commit.
    if (pulledFrom) {
      const meta = packageRevisionObject(repo, rev).metadata;
      writeFileSync(pulledFrom, revisionMetadata({ ...meta, resourceVersion: result.sha }));
    }
    if (rendered.status === "failed") {
      throw new PorchError(
        "bad-request",
        `error rendering package in kpt function pipeline. Package pushed to remote despite render failure. Details: ${rendered.message}`,
      );
    }
    env.io.stdout(`${nameOf(repo, rev)} pushed\n`);
    return 0;
  },
};

/** What porchctl push prints on stderr of the render it caused: each function run, and its results. */
function porchRenderLines(steps: readonly PorchStep[]): string {
  let out = "";
  for (const step of steps) {
    out += `[RUNNING] ${JSON.stringify(step.image)} \n`;
    if (step.results.length > 0)
      out += `[Results]: ${step.results.map((r) => resultLine(r).replaceAll("\n", " ").trim()).join(", ")}\n`;
  }
  return out;
}
