import { init } from "../../porch/init.js";
import { UsageError } from "../io.js";
import { openVerbRepository, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg init PACKAGE --repository=OWNER/REPO --workspace=W [flags]

Create a new package: a draft (branch drafts/PACKAGE/W) holding the files kpt pkg init writes.

Flags:
  --workspace W         workspace of the new revision (required)
  --description TEXT    short description of the package
  --keywords A,B        keywords of the package
  --site URL            page with information about the package
`;

export const initVerb: Verb = {
  name: "init",
  summary: "Create a new package as a draft.",
  usage: USAGE,
  flags: { workspace: "value", description: "value", keywords: "value", site: "value" },
  async run(args, env) {
    const [pkg, ...extra] = args.positional;
    if (!pkg || extra.length > 0) throw new UsageError(`rpkg init takes one PACKAGE\n\n${USAGE}`);
    const workspace = args.values.get("workspace");
    if (!workspace) throw new UsageError(`rpkg init needs --workspace\n\n${USAGE}`);
    const { name } = await init(env, {
      repository: await openVerbRepository("init", args, env),
      package: pkg,
      workspace,
      description: args.values.get("description"),
      keywords: args.values
        .get("keywords")
        ?.split(",")
        .map((k) => k.trim())
        .filter(Boolean),
      site: args.values.get("site"),
    });
    env.io.stdout(`${name} created\n`);
    return 0;
  },
};
