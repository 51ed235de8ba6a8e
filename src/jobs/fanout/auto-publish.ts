import type { MergeMethod } from "../../config/schema.js";
import type { PullRequest, RepoPort } from "../../github/port.js";
import { passes } from "../../lifecycle/check-run.js";
import type { PackageVariant } from "../../variants/index.js";
import { CHECK } from "../context.js";
import type { FollowUpTarget, Outbox } from "../outbox.js";
import { managementOf } from "../publish/finish.js";
import { ensureRevisionTag } from "../publish/tag.js";
import { AUTO_PUBLISH_ANNOTATION } from "./context.js";

export type AutoPublishOutcome =
  | { kind: "published"; tag: string; mergeSha: string }
  | { kind: "waiting"; why: string }
  | { kind: "off" };

function wantsAutoPublish(variant: PackageVariant): boolean {
  return variant.metadata.annotations?.[AUTO_PUBLISH_ANNOTATION] === "true";
}

/**
 * A variant annotated `porchlight.dev/auto-publish: "true"`: once every check on its update pull
 * request's head has passed (the proposal's guardrails among them, and any commit status), publish it as the bot publishes a proposal — merge
 * naming the checked head SHA, tag `<package>/v<N>` on the merge commit, its fan-out in the outbox. Conflicts or a
 * failing or pending check wait for a person or the next run.
 */
export async function autoPublish(
  port: RepoPort,
  input: {
    pr: PullRequest;
    variant: PackageVariant;
    conflicts: number;
    /** A rollout step's automerge, with the downstream's merge method (else the annotation decides). */
    automerge?: { method: MergeMethod };
    /** Where the published revision's fan-out is recorded, and for which repository's queue. */
    outbox: Outbox;
    target: FollowUpTarget;
  },
): Promise<AutoPublishOutcome> {
  if (!input.automerge && !wantsAutoPublish(input.variant)) return { kind: "off" };
  if (input.conflicts > 0) return { kind: "waiting", why: "it has conflicts to resolve" };
  const runs = await port.listCheckRuns(input.pr.headSha);
  if (runs.length === 0) return { kind: "waiting", why: "no check has run yet" };
  // The proposal's own check must have run on this head, whatever else did (fan-out posts the
  // render check with the push, before any proposal check).
  if (!runs.some((r) => r.name === CHECK.guardrails))
    return { kind: "waiting", why: `${CHECK.guardrails} has not run yet` };
  const pending = runs.filter((r) => r.status !== "completed");
  if (pending.length)
    return { kind: "waiting", why: `${pending.map((r) => r.name).join(", ")} still running` };
  const failing = runs.filter((r) => !passes(r.conclusion));
  if (failing.length)
    return { kind: "waiting", why: `${failing.map((r) => r.name).join(", ")} did not pass` };
  // CI that reports commit statuses instead of check runs counts as well (read once the runs passed).
  const statuses = await port.listCommitStatuses(input.pr.headSha);
  const running = statuses.filter((s) => s.status !== "completed");
  if (running.length)
    return { kind: "waiting", why: `${running.map((s) => s.name).join(", ")} still running` };
  const failed = statuses.filter((s) => !passes(s.conclusion));
  if (failed.length) return { kind: "waiting", why: `${failed.map((s) => s.name).join(", ")} did not pass` };
  const pkg = input.variant.spec.downstream.package;
  const mergeSha = await port.mergePull(input.pr.number, {
    sha: input.pr.headSha,
    method: input.automerge?.method ?? "merge",
    title: `Publish ${pkg} (#${input.pr.number}, ${input.automerge ? "automerge" : "auto-publish"})`,
  });
  const tag = await ensureRevisionTag(port, pkg, mergeSha, await port.listRefs());
  if (tag.created)
    input.outbox.add({
      task: "fanout-published",
      target: input.target,
      event: {
        repo: port.id,
        package: pkg,
        revision: tag.revision,
        tag: tag.tag,
        commit: mergeSha,
        ...managementOf(input.pr),
      },
    });
  return { kind: "published", tag: tag.tag, mergeSha };
}
