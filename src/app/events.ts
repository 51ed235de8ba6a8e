import type { Context, Probot } from "probot";
import { z } from "zod";
import type { AppDeps } from "./deps.js";
import {
  onCheckRunCompleted,
  onCheckSuiteCompleted,
  onComment,
  onCommentChanged,
  onPullClosed,
  onPullRequest,
  onPush,
  onReviewSubmitted,
  onStatus,
} from "./handlers.js";

/**
 * The webhook events porchlight handles, each declared once: its payload (the fields its handlers read,
 * checked where a delivery enters), its routes (the actions that start a handler), and whether a
 * GitHub Actions run of porchlight takes it. The probot registrations (probot-app.ts), the payload
 * checks of the webhook edge and of the Action (webhook/payloads.ts) and the events a workflow may
 * start porchlight on (src/action/events.ts) are all read from this table.
 */

const repository = z.object({
  name: z.string().min(1),
  owner: z.object({ login: z.string().min(1) }),
  clone_url: z.string().min(1),
  default_branch: z.string().min(1),
});
/** The part of every handled event that names its installation (absent from an Actions run's payload). */
export const INSTALLATION = z.object({ id: z.number().int().positive() });
const installation = INSTALLATION;
const login = z.object({ login: z.string() }).nullish();
const files = z.array(z.string()).nullish();
const checkPulls = z.array(z.object({ head: z.object({ ref: z.string() }) }));

type WebhookName = Context["name"];
/** The event a webhook name belongs to: `pull_request` for `pull_request.closed`. */
type EventOf<N extends string> = N extends `${infer E}.${string}` ? E : N;

/** Webhook names (an event, or some of its actions) and the handler they start. */
interface Route<E extends string> {
  /** For the compiler: the event these names belong to. */
  event?: E;
  names: readonly WebhookName[];
  listen(app: Probot, deps: AppDeps): void;
}

function route<N extends WebhookName>(
  names: N | readonly N[],
  handle: (deps: AppDeps, context: Context<NoInfer<N>>) => Promise<void>,
): Route<EventOf<N>> {
  const list: N[] = typeof names === "string" ? [names] : [...names];
  return { names: list, listen: (app, deps) => app.on(list, (context) => handle(deps, context)) };
}

interface EventSpec<E extends string> {
  /** The fields its handlers read, and nothing more: unknown fields pass. */
  payload: z.ZodObject<{ installation: typeof INSTALLATION } & z.ZodRawShape>;
  routes: readonly Route<E>[];
  /**
   * Whether `porchlight action` takes it (workflows/porchlight.yml's `on:`): the events of a
   * repository's own drafts and proposals. The others reach the Action's repository only through the
   * reconcile (docs/actions.md, "Finished checks wait for the reconcile").
   */
  onActions: boolean;
}

/** The table's entries are specs of the event they are filed under (the compiler checks the routes' names). */
function eventTable<const T extends Record<string, EventSpec<string>>>(
  table: T & { [E in keyof T & string]: { routes: readonly Route<E>[] } },
): T {
  return table;
}

/** In the order the Action names them to a workflow that starts it on another event. */
export const EVENTS = eventTable({
  push: {
    payload: z.object({
      ref: z.string(),
      after: z.string(),
      deleted: z.boolean().optional(),
      commits: z.array(z.object({ added: files, modified: files, removed: files })),
      sender: login,
      repository,
      installation,
    }),
    routes: [route("push", onPush)],
    onActions: true,
  },
  pull_request: {
    payload: z.object({
      pull_request: z.object({
        number: z.number().int().positive(),
        head: z.object({ sha: z.string().min(1), ref: z.string().min(1) }),
      }),
      repository,
      installation,
    }),
    routes: [
      route(
        [
          "pull_request.opened",
          "pull_request.synchronize",
          "pull_request.reopened",
          "pull_request.ready_for_review",
        ],
        onPullRequest,
      ),
      route("pull_request.closed", onPullClosed),
    ],
    onActions: true,
  },
  issue_comment: {
    payload: z.object({
      comment: z.object({
        id: z.number().int(),
        body: z.string().nullish(),
        user: z.object({ login: z.string(), type: z.string().optional() }).nullish(),
      }),
      issue: z.object({ number: z.number().int().positive() }),
      repository,
      installation,
    }),
    routes: [
      route("issue_comment.created", onComment),
      route(["issue_comment.edited", "issue_comment.deleted"], onCommentChanged),
    ],
    onActions: true,
  },
  pull_request_review: {
    payload: z.object({
      review: z.object({
        id: z.number().int(),
        state: z.string(),
        user: login,
        commit_id: z.string(),
      }),
      pull_request: z.object({ number: z.number().int().positive(), head: z.object({ sha: z.string() }) }),
      repository,
      installation,
    }),
    routes: [route("pull_request_review.submitted", onReviewSubmitted)],
    onActions: true,
  },
  check_run: {
    payload: z.object({
      check_run: z.object({
        head_sha: z.string().min(1),
        check_suite: z.object({ head_branch: z.string().nullish() }).nullish(),
        pull_requests: checkPulls,
      }),
      repository,
      installation,
    }),
    routes: [route("check_run.completed", onCheckRunCompleted)],
    onActions: false,
  },
  check_suite: {
    payload: z.object({
      check_suite: z.object({
        head_sha: z.string().min(1),
        head_branch: z.string().nullish(),
        pull_requests: checkPulls,
      }),
      repository,
      installation,
    }),
    routes: [route("check_suite.completed", onCheckSuiteCompleted)],
    onActions: false,
  },
  status: {
    payload: z.object({
      sha: z.string().min(1),
      state: z.string(),
      branches: z.array(z.object({ name: z.string() })),
      repository,
      installation,
    }),
    routes: [route("status", onStatus)],
    onActions: false,
  },
});

/** The events a GitHub Actions run of porchlight handles as the hosted app handles their webhooks. */
export const ACTION_EVENTS: readonly string[] = Object.entries(EVENTS)
  .filter(([, spec]) => spec.onActions)
  .map(([name]) => name);
