import { existsSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type FileTree, readTree } from "../../kpt/tree.js";
import { UsageError } from "../io.js";
import { RpkgError } from "./errors.js";
import { branchOf, nameOf } from "./names.js";
import { packageRevisionObject } from "./objects.js";
import {
  isResourceFile,
  pulledCommit,
  REVISION_METADATA_FILE,
  resourceListToTree,
  revisionMetadata,
} from "./resources.js";
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
    let local: FileTree;
    /** The `.KptRevisionMetadata` of a pulled folder, refreshed after the push. */
    let pulledFrom: string | undefined;
    if (source === "-") {
      local = resourceListToTree(await env.io.readStdin(), "stdin");
    } else {
      const dir = resolve(env.io.cwd, source);
      if (!existsSync(dir) || !statSync(dir).isDirectory()) {
        throw new RpkgError(
          `${source} is not a directory; push a package directory, or '-' for a ResourceList on stdin`,
        );
      }
      local = await readTree(dir);
      if (local.has(REVISION_METADATA_FILE)) pulledFrom = join(dir, REVISION_METADATA_FILE);
    }
    const pulledAt = pulledCommit(local);
    local.delete(REVISION_METADATA_FILE);

    const { repo, rev } = await openRevision("push", args, env, name);
    const branch = branchOf(rev);
    if (!branch || rev.lifecycle !== "Draft") {
      throw new RpkgError(
        `${name} is ${rev.lifecycle}: only a Draft takes new files.${rev.lifecycle === "Proposed" ? ` Reject the proposal first (\`porchlight rpkg reject ${name}\`), or push to the branch ${branch} directly.` : " Make a new draft with `porchlight rpkg copy`."}`,
      );
    }
    const dir = repo.packageDir(rev.package);
    if (source === "-") {
      const { tree: current } = await repo.conn.port.readTree(rev.sha, dir);
      for (const [path, bytes] of current)
        if (!isResourceFile(path) && !local.has(path)) local.set(path, bytes);
    }
    const step = env.progress.step(`Pushing ${local.size} files to ${branch}`);
    const result = await repo.conn.port.commitTree({
      branch,
      parent: pulledAt ?? rev.sha,
      dir,
      tree: local,
      message: `Edit ${rev.package} (workspace ${rev.workspace})`,
      author: await repo.author(),
    });
    if (!result.ok && result.reason === "non-fast-forward") {
      step.fail("the draft changed");
      throw new RpkgError(
        `${name} changed in ${repo.full} since ${pulledAt ? `you pulled it (${pulledAt.slice(0, 7)})` : "it was read"}: it is now at ${rev.sha.slice(0, 7)} or later; pull it again, reapply your changes and push`,
      );
    }
    if (!result.ok) {
      step.done("no changes");
      env.io.stdout(`${nameOf(repo, rev)} unchanged\n`);
      return 0;
    }
    step.done(result.sha.slice(0, 7));
    // The folder now holds what the draft is at: the next push from it goes on top of this commit.
    if (pulledFrom) {
      const meta = packageRevisionObject(repo, rev).metadata;
      writeFileSync(pulledFrom, revisionMetadata({ ...meta, resourceVersion: result.sha }));
    }
    env.io.stdout(`${nameOf(repo, rev)} pushed\n`);
    return 0;
  },
};
