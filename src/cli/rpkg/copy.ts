import { copy } from "../../porch/copy.js";
import { UsageError } from "../io.js";
import { openVerbRepository, type Verb } from "./verb.js";

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
    const { name } = await copy(env, {
      repository: await openVerbRepository("copy", args, env, undefined, true),
      source,
      workspace,
    });
    env.io.stdout(`${name} created\n`);
    return 0;
  },
};
