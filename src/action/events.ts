import { readFile } from "node:fs/promises";
import { ACTION_EVENTS } from "../app/events.js";
import { actionPayloadProblem } from "../app/webhook/payloads.js";

/** The events that start the periodic reconcile of the workflow's repository. */
export const RECONCILE_EVENTS = ["schedule", "workflow_dispatch"] as const;

/**
 * `webhook`: one of the events the Action takes (src/app/events.ts, `onActions`), handled as the hosted
 * app handles its webhook.
 */
export type ActionMode =
  | { kind: "webhook"; name: string }
  | { kind: "reconcile" }
  | { kind: "ignored"; reason: string };

/** What a run started by `eventName` does. */
export function modeOf(eventName: string): ActionMode {
  const webhook = ACTION_EVENTS.find((name) => name === eventName);
  if (webhook) return { kind: "webhook", name: webhook };
  if (RECONCILE_EVENTS.some((name) => name === eventName)) return { kind: "reconcile" };
  return {
    kind: "ignored",
    reason:
      `porchlight does nothing on "${eventName}" events; it handles ${ACTION_EVENTS.join(", ")} ` +
      `and reconciles on ${RECONCILE_EVENTS.join(" and ")}. Remove "${eventName}" from the workflow's \`on:\`.`,
  };
}

/** The event payload GitHub wrote to `GITHUB_EVENT_PATH`; an unreadable or non-object file is named. */
export async function readPayload(path: string): Promise<object> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(
      `cannot read the event payload at GITHUB_EVENT_PATH=${path}${code ? ` (${code})` : ""}; ` +
        "GitHub writes it for every workflow run, so run porchlight from a workflow step",
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`the event payload at ${path} is not JSON: ${(e as Error).message}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    throw new Error(`the event payload at ${path} is not a JSON object`);
  return parsed;
}

/**
 * Why the app's handlers cannot take the run's event, read from `path`: a field they read that its
 * payload lacks, as the webhook edge would name it (src/app/webhook/payloads.ts).
 */
export function payloadRefusal(path: string, event: { name: string; payload: unknown }): string {
  const { field, message } = actionPayloadProblem(event.name, event.payload) ?? {
    field: "(payload)",
    message: "invalid",
  };
  return `the ${event.name} event payload at ${path} lacks what porchlight reads: ${field}: ${message}`;
}
