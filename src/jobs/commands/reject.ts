import { decideReject } from "../../lifecycle/proposals.js";
import type { VerbHandler } from "./types.js";

/**
 * `/reject`: a proposal goes back to draft (the pull request closes, the branch stays); a deletion
 * proposal is dropped (the pull request closes, its branch goes) and the revision stays Published.
 */
export const reject: VerbHandler<"reject"> = async (ctx, { pr, actor }) => {
  const decision = decideReject(pr, actor);
  if (decision.kind === "refuse") return { kind: "refused", reason: decision.reason };
  await ctx.port.updatePull(pr.number, { state: "closed" });
  if (decision.kind === "close-deletion") {
    await ctx.port.deleteBranch(decision.deleteBranch);
    return { kind: "deletion-rejected" };
  }
  return { kind: "returned-to-draft", branch: decision.keepBranch };
};
