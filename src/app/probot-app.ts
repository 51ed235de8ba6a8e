import type { ApplicationFunction } from "probot";
import type { AppDeps } from "./deps.js";
import { EVENTS } from "./events.js";

/**
 * The probot app: which webhook starts which handler, as the table of events (events.ts) says. No logic
 * here; handlers in handlers.ts queue jobs (src/jobs) per repository.
 */
export function porchlightApp(deps: AppDeps): ApplicationFunction {
  return (app) => {
    app.onAny(async (context) => {
      deps.metrics.webhooks.inc({ event: context.name });
      const repository = (context.payload as { repository?: { full_name?: unknown } }).repository?.full_name;
      if (deps.onRepositoryEvent && typeof repository === "string") {
        try {
          deps.onRepositoryEvent(repository, context.name, context.payload);
        } catch (e) {
          deps.log.warn({ err: e, repository }, "a listener of the app's events failed");
        }
      }
    });
    for (const event of Object.values(EVENTS)) for (const route of event.routes) route.listen(app, deps);
  };
}
