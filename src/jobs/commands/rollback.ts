import { proposeRollback } from "../rollback/index.js";
import { outsideProposal, packageOfPull } from "./target.js";
import type { VerbHandler } from "./types.js";

/**
 * `/rollback [revision]` on a proposal of the package (or `/rollback basens/v2` in an issue): proposes a
 * new revision with an earlier revision's content, by default the one before the latest.
 */
export const rollback: VerbHandler<"rollback"> = async (ctx, { pr, args, actor }) => {
  const pkg = args.package ?? packageOfPull(pr);
  if (!pkg) {
    return {
      kind: "refused",
      reason: pr
        ? `#${pr.number} is not a proposal of a package (its branch is \`${pr.headRef}\`); name the revision by its tag, like \`/rollback basens/v2\`.`
        : outsideProposal("rollback"),
    };
  }
  const out = await proposeRollback(ctx, {
    package: pkg,
    ...(args.revision !== undefined ? { toRevision: args.revision } : {}),
    requestedBy: actor.login,
  });
  if (out.kind === "refused") return { kind: "refused", reason: `Not rolled back: ${out.reason}` };
  return {
    kind: "rollback-proposed",
    package: out.package,
    revision: out.revision,
    branch: out.branch,
    pull: out.pull,
    existing: out.existing,
  };
};
