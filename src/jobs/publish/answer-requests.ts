import type { PullRequest } from "../../github/port.js";
import { answerCommands } from "../commands/answer.js";
import type { JobContext } from "../context.js";
import { onReview, reviewMarker } from "./on-review.js";

/**
 * After the sweep finished a publish a crash left half-done, the requests that asked for it and were
 * never answered get their answer: each command comment its reply (`answerCommands`: the commands run
 * as their job would have run them, each is level-triggered, and `/approve` on the merged proposal only
 * reports the revision; one edited since it was written is not carried out), each approving review
 * its publish comment. The answers carry the usual
 * markers, so a request answered already (or answered twice by two sweeps) is answered once.
 * Returns how many requests were answered now.
 */
export async function answerPublishRequests(ctx: JobContext, pr: PullRequest): Promise<number> {
  const [comments, reviews] = await Promise.all([
    ctx.port.listComments(pr.number),
    ctx.port.listReviews(pr.number),
  ]);
  const answered = (marker: string) => comments.some((c) => c.body.includes(marker));
  let count = (await answerCommands(ctx, { issue: pr.number })).answered;
  for (const r of reviews) {
    if (r.state !== "APPROVED" || answered(reviewMarker(r.id))) continue;
    const outcome = await onReview(ctx, {
      pull: pr.number,
      reviewId: r.id,
      user: r.user,
      state: r.state,
      commitId: r.commitId,
    });
    if (outcome) count++;
  }
  if (count) ctx.log.info({ pr: pr.number, answered: count }, "answered the requests of a resumed publish");
  return count;
}
