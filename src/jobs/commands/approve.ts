import { publishProposal } from "../publish/index.js";
import type { VerbHandler } from "./types.js";

/** `/approve`: publish, exactly as an approving review by the commenter would. */
export const approve: VerbHandler<"approve"> = async (ctx, { pr, actor }) => {
  const outcome = await publishProposal(ctx, {
    pull: pr.number,
    request: { kind: "command", user: actor.login },
  });
  switch (outcome.kind) {
    case "published":
      return outcome;
    case "deleted":
      return outcome;
    case "refused":
      return { kind: "refused", reason: outcome.message };
  }
};
