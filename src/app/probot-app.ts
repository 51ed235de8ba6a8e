import type { ApplicationFunction } from "probot";
import type { AppDeps } from "./deps.js";
import {
  onCheckRunCompleted,
  onCheckSuiteCompleted,
  onComment,
  onPullClosed,
  onPullRequest,
  onPush,
  onReviewSubmitted,
  onStatus,
} from "./handlers.js";

/**
 * The probot app: which webhook starts which job. No logic here; handlers in handlers.ts
 * queue jobs (src/jobs) per repository.
 */
export function porchlightApp(deps: AppDeps): ApplicationFunction {
  return (app) => {
    app.onAny(async (context) => {
      deps.metrics.webhooks.inc({ event: context.name });
    });
    app.on("push", (context) => onPush(deps, context));
    app.on(
      [
        "pull_request.opened",
        "pull_request.synchronize",
        "pull_request.reopened",
        "pull_request.ready_for_review",
      ],
      (context) => onPullRequest(deps, context),
    );
    app.on("pull_request.closed", (context) => onPullClosed(deps, context));
    app.on("pull_request_review.submitted", (context) => onReviewSubmitted(deps, context));
    app.on("issue_comment.created", (context) => onComment(deps, context));
    app.on("check_run.completed", (context) => onCheckRunCompleted(deps, context));
    app.on("check_suite.completed", (context) => onCheckSuiteCompleted(deps, context));
    app.on("status", (context) => onStatus(deps, context));
  };
}
