import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { writeTree } from "../../kpt/tree.js";
import { PorchError } from "../../porch/errors.js";
import { pull } from "../../porch/pull.js";
import { REVISION_METADATA_FILE, treeToResourceList } from "../../porch/resources.js";
import { UsageError } from "../io.js";
import { openVerbRepository, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg pull PACKAGE_REV_NAME [DIR] --repository=OWNER/REPO

Read a package revision's files: into DIR (which must not exist yet), or as a ResourceList on stdout.
DIR also gets ${REVISION_METADATA_FILE}, which tells \`rpkg push\` which commit the files came from.
`;

export const pullVerb: Verb = {
  name: "pull",
  summary: "Read a revision's files into a directory, or as a ResourceList on stdout.",
  usage: USAGE,
  flags: {},
  async run(args, env) {
    const [name, dir, ...extra] = args.positional;
    if (!name || extra.length > 0) throw new UsageError(`rpkg pull takes PACKAGE_REV_NAME [DIR]\n\n${USAGE}`);
    const target = dir === undefined ? undefined : resolve(env.io.cwd, dir);
    if (target && existsSync(target)) {
      throw new PorchError(
        "already-exists",
        `${dir} already exists; pull into a new directory (rpkg pull never overwrites files)`,
      );
    }
    const { tree } = await pull(env, {
      repository: await openVerbRepository("pull", args, env, undefined, true),
      name,
    });
    if (target) await writeTree(target, new Map(), tree);
    else env.io.stdout(treeToResourceList(tree));
    return 0;
  },
};
