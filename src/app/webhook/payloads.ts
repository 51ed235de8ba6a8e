import { z } from "zod";
import { EVENTS, INSTALLATION } from "../events.js";

/**
 * The payload checks of the events porchlight handles (src/app/events.ts declares each event's fields):
 * a payload that lacks a field its handlers read is refused at the edge with the field's name, instead
 * of failing inside a handler or a job.
 */
const SCHEMAS: Record<string, z.ZodType> = Object.fromEntries(
  Object.entries(EVENTS).map(([event, spec]) => [event, spec.payload]),
);

/**
 * The same fields for an event a GitHub Actions run hands to the handlers (src/action/run.ts), for the
 * events the Action takes: the workflow's token is the installation, and the payload GitHub writes to
 * `GITHUB_EVENT_PATH` names none (the handlers then connect with the token they were given).
 */
const ACTION_SCHEMAS: Record<string, z.ZodType> = Object.fromEntries(
  Object.entries(EVENTS)
    .filter(([, spec]) => spec.onActions)
    .map(([event, spec]) => [event, spec.payload.extend({ installation: INSTALLATION.optional() })]),
);

/** The part of every handled event that names its installation. */
const withInstallation = z.object({ installation: INSTALLATION });

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
