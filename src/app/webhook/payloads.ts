import { z } from "zod";

/**
 * The fields of each event the handlers (src/app/handlers.ts) read, and nothing more: a payload that
 * lacks one is refused at the edge with the field's name, instead of failing inside a handler or a job.
 * Keep these in step with the handlers; unknown fields pass.
 */
const repository = z.object({
  name: z.string().min(1),
  owner: z.object({ login: z.string().min(1) }),
  clone_url: z.string().min(1),
  default_branch: z.string().min(1),
});
const installation = z.object({ id: z.number().int().positive() });
const login = z.object({ login: z.string() }).nullish();
const files = z.array(z.string()).nullish();
/** The part of every handled event that names its installation. */
const withInstallation = z.object({ installation });
const checkPulls = z.array(z.object({ head: z.object({ ref: z.string() }) }));

const SCHEMAS = {
  push: z.object({
    ref: z.string(),
    after: z.string(),
    deleted: z.boolean().optional(),
    commits: z.array(z.object({ added: files, modified: files })),
    sender: login,
    repository,
    installation,
  }),
  pull_request: z.object({
    pull_request: z.object({
      number: z.number().int().positive(),
      head: z.object({ sha: z.string().min(1), ref: z.string().min(1) }),
    }),
    repository,
    installation,
  }),
  pull_request_review: z.object({
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
  issue_comment: z.object({
    comment: z.object({
      id: z.number().int(),
      body: z.string().nullish(),
      user: z.object({ login: z.string(), type: z.string().optional() }).nullish(),
    }),
    issue: z.object({ number: z.number().int().positive() }),
    repository,
    installation,
  }),
  check_run: z.object({
    check_run: z.object({
      head_sha: z.string().min(1),
      check_suite: z.object({ head_branch: z.string().nullish() }).nullish(),
      pull_requests: checkPulls,
    }),
    repository,
    installation,
  }),
  check_suite: z.object({
    check_suite: z.object({
      head_sha: z.string().min(1),
      head_branch: z.string().nullish(),
      pull_requests: checkPulls,
    }),
    repository,
    installation,
  }),
  status: z.object({
    sha: z.string().min(1),
    state: z.string(),
    branches: z.array(z.object({ name: z.string() })),
    repository,
    installation,
  }),
} as const;

/** The events whose handlers queue work: the ones src/app/probot-app.ts listens to. */
export const HANDLED_EVENTS = Object.keys(SCHEMAS);

/**
 * The same fields for an event a GitHub Actions run hands to the handlers (src/action/run.ts): the
 * workflow's token is the installation, and the payload GitHub writes to `GITHUB_EVENT_PATH` names none
 * (the handlers then connect with the token they were given).
 */
const ACTION_SCHEMAS: Record<string, z.ZodType> = Object.fromEntries(
  Object.entries(SCHEMAS).map(([event, schema]) => [
    event,
    schema.extend({ installation: installation.optional() }),
  ]),
);

export interface PayloadProblem {
  /** The field's path (`repository.clone_url`), or `(payload)` for the payload itself. */
  field: string;
  message: string;
}

/** What is wrong with an event's payload for the handlers, or undefined when nothing is. */
export function payloadProblem(event: string, payload: unknown): PayloadProblem | undefined {
  return problemOf(schemaOf(SCHEMAS, event), payload);
}

/**
 * What is wrong with the payload of an Actions run's event for the handlers (`installation` may be
 * missing), or undefined when nothing is. An event the handlers do not take is a problem here: the
 * Action hands nothing else to them.
 */
export function actionPayloadProblem(event: string, payload: unknown): PayloadProblem | undefined {
  const schema = schemaOf(ACTION_SCHEMAS, event);
  if (!schema) return { field: "(event)", message: `porchlight handles no ${event} event` };
  return problemOf(schema, payload);
}

/** The schema of `event`; none for an event the handlers do not take (nor for `toString`). */
function schemaOf(schemas: Record<string, z.ZodType>, event: string): z.ZodType | undefined {
  return Object.hasOwn(schemas, event) ? schemas[event] : undefined;
}

function problemOf(schema: z.ZodType | undefined, payload: unknown): PayloadProblem | undefined {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    const got = payload === null ? "null" : Array.isArray(payload) ? "an array" : typeof payload;
    return { field: "(payload)", message: `expected a JSON object, got ${got}` };
  }
  const issue = schema?.safeParse(payload).error?.issues[0];
  if (!issue) return undefined;
  return { field: issue.path.join(".") || "(payload)", message: issue.message };
}

/**
 * The installation whose token the handlers of `event` use, for the events that queue work (the
 * payload already checked); undefined for events porchlight only counts.
 */
export function handledInstallation(event: string, payload: unknown): number | undefined {
  if (!schemaOf(SCHEMAS, event)) return undefined;
  return withInstallation.safeParse(payload).data?.installation.id;
}
