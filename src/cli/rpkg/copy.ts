import { createDraft, newDraftBranch } from "../../porch/drafts.js";
import { PorchError } from "../../porch/errors.js";
import { nameOf, refNameOf, refusePlaceholder } from "../../porch/names.js";
import { UsageError } from "../io.js";
import { openRevision, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg copy SOURCE_PACKAGE_REV_NAME --repository=OWNER/REPO --workspace=W

Create a new revision of a package from a published one: a draft (branch drafts/PACKAGE/W) whose files
are the source revision's.

Flags:
  --workspace W   workspace of the new revision (required)
`;

export const copyVerb: Verb = {
  name: "copy",
  summary: "Create a new draft revision of a package from a published one.",
  usage: USAGE,
  flags: { workspace: "value" },
  async run(args, env) {
    const [source, ...extra] = args.positional;
    if (!source || extra.length > 0)
      throw new UsageError(`rpkg copy takes one SOURCE_PACKAGE_REV_NAME\n\n${USAGE}`);
    const workspace = args.values.get("workspace");
    if (!workspace) throw new UsageError(`rpkg copy needs --workspace\n\n${USAGE}`);
    const { repo, state, rev } = await openRevision("copy", args, env, source);
    // Porch's copy is an edit task; its source is never the placeholder
    refusePlaceholder("source revision", repo, rev);
    if (rev.lifecycle !== "Published" && rev.lifecycle !== "DeletionProposed") {
      throw new PorchError(
        "bad-request",
        `${source} is ${rev.lifecycle}: only a published revision can be copied; publish it first (\`porchlight rpkg propose\`, then \`approve\`) or keep editing the draft`,
      );
    }
    const branch = newDraftBranch(repo, state, rev.package, workspace);
    const step = env.progress.step(`Copying ${refNameOf(rev)} to ${branch}`);
    const { tree } = await repo.conn.port.readTree(rev.sha, repo.packageDir(rev.package));
    await createDraft(repo, state, {
      branch,
      pkg: rev.package,
      tree,
      message: `Copy ${rev.package} ${refNameOf(rev)} to workspace ${workspace}`,
      // Porch's copy is an edit task naming its source
      task: { type: "edit", edit: { sourceRef: { name: nameOf(repo, rev) } } },
    });
    step.done();
    env.io.stdout(`${nameOf(repo, { package: rev.package, workspace })} created\n`);
    return 0;
  },
};
