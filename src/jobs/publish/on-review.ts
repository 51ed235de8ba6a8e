import { formatOutcome } from "../../commands/outcome.js";
import type { PullRequest } from "../../github/port.js";
import type { JobContext } from "../context.js";
import { deletedText } from "./delete-revision.js";
import { heldBackRunText, runHeldBack } from "./held-back.js";
import { type PublishOutcome, publishProposal, seenOpen } from "./index.js";

export function reviewMarker(reviewId: number): string {
  return `<!-- porchlight:publish review=${reviewId} -->`;
}

/** The comment answering a review or command that asked to publish. */
function publishText(outcome: PublishOutcome): string {
  switch (outcome.kind) {
    case "published":
      return formatOutcome(outcome);
    case "deleted":
      return deletedText(outcome);
    case "refused":
      return outcome.message;
  }
}

/**
 * An approving review → publish, and answer it once. A review answered before (the same delivery
 * again) is left alone; other review states do nothing.
 */
export async function onReview(
  ctx: JobContext,
  input: {
    pull: number;
    reviewId: number;
    user: string;
    state: string;
    commitId: string;
    /** The pull request as the review's event carried it (publishProposal says where it is trusted). */
    seen?: PullRequest;
  },
): Promise<PublishOutcome | undefined> {
  if (input.state.toLowerCase() !== "approved") return undefined;
  const marker = reviewMarker(input.reviewId);
  if (await ctx.port.findComment(input.pull, marker)) return undefined;
  // An adopted fork's content waits for a maintainer: this review is one, so what waited runs first.
  const released = await runHeldBack(ctx, input.pull, seenOpen(input.seen));
  const outcome = await publishProposal(ctx, {
    pull: input.pull,
    request: { kind: "review", user: input.user, commitId: input.commitId },
    ...(input.seen ? { seen: input.seen } : {}),
  });
  const ran = released ? `${heldBackRunText(input.user, released)}\n\n` : "";
  await ctx.port.ensureComment(input.pull, marker, `${marker}\n${ran}${publishText(outcome)}\n`);
  return outcome;
}
