import { reject } from "../jobs/commands/reject.js";
import { PorchError } from "./errors.js";
import { jobContext } from "./job-context.js";
import { nameOf, type ProposalRevision } from "./names.js";
import type { Repository } from "./repository.js";
import type { OpEnv } from "./steps.js";

/**
 * Rejects a proposal as `/reject` does (the same job): a Proposed revision returns to Draft (its pull
 * request closed, its branch kept); a DeletionProposed one stays Published (the deletion's pull request
 * closed, its branch removed). Answers what was no longer proposed.
 */
export async function rejectProposal(
  env: OpEnv,
  { repo, rev }: { repo: Repository; rev: ProposalRevision },
): Promise<{ name: string; proposedFor: "approval" | "deletion" }> {
  const pr = await repo.conn.port.getPull(rev.pullRequest);
  const login = (await repo.whoami())?.login ?? "you";
  const ctx = await jobContext(repo);
  const step = env.progress.step(`Closing pull request #${pr.number}`);
  const result = await reject(ctx, {
    pr,
    actor: { login, permission: repo.conn.info.permission },
    args: { verb: "reject" },
    commentId: 0,
  });
  if (result.kind === "refused") {
    step.fail();
    throw new PorchError("bad-request", result.reason);
  }
  step.done();
  return {
    name: nameOf(repo, rev),
    proposedFor: rev.lifecycle === "DeletionProposed" ? "deletion" : "approval",
  };
}
