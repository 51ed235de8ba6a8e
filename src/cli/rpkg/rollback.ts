import { rollback } from "../../porch/rollback.js";
import { UsageError } from "../io.js";
import { openVerbRepository, type Verb } from "./verb.js";

const USAGE = `porchlight rpkg rollback PACKAGE_REV_NAME --repository=OWNER/REPO

Roll a package back to a published revision: a new draft (branch drafts/PACKAGE/rollback-vN) whose files
are that revision's, proposed for review. Approving it publishes them as the package's next revision,
which the catalog and fan-out treat as any new revision; no published revision is rewritten. Name the
revision to go back to as \`rpkg get\` prints it (blueprints.basens.v2) or by its tag (basens/v2).
Asked again, it finds the draft and proposal it made rather than opening another.
`;

export const rollbackVerb: Verb = {
  name: "rollback",
  summary: "Propose a new revision with an earlier published revision's content.",
  usage: USAGE,
  flags: {},
  async run(args, env) {
    const [source, ...extra] = args.positional;
    if (!source || extra.length > 0)
      throw new UsageError(
        `rpkg rollback takes one PACKAGE_REV_NAME, the revision to go back to\n\n${USAGE}`,
      );
    const out = await rollback(env, {
      repository: await openVerbRepository("rollback", args, env, undefined, true),
      name: source,
    });
    env.io.stdout(`${out.name} ${out.existing ? "already proposed" : "proposed"} (#${out.pull})\n`);
    return 0;
  },
};
