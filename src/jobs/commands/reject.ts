import { decideReject } from "../../lifecycle/proposals.js";
import type { VerbHandler } from "./types.js";

/** `/reject`: the proposal goes back to draft; the pull request closes and the branch stays. */
export const reject: VerbHandler = async (ctx, { pr, actor }) => {
  const decision = decideReject(pr, actor);
  if (decision.kind === "refuse") return { kind: "refused", reason: decision.reason };
  await ctx.port.updatePull(pr.number, { state: "closed" });
  if (decision.deleteBranch) await ctx.port.deleteBranch(pr.headRef);
  return { kind: "returned-to-draft", branch: decision.keepBranch };
};
