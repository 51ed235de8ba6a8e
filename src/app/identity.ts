import type { AppIdentity } from "../github/port.js";
import type { BotIdentity } from "../jobs/context.js";

/** The bot's login and commit author, from the app's `GET /app`: `<slug>[bot]`, GitHub's noreply address. */
export function botIdentity(app: AppIdentity): BotIdentity {
  const login = `${app.slug}[bot]`;
  return { login, author: { name: login, email: `${app.id}+${login}@users.noreply.github.com` } };
}

/** Calls `load` once, shares the result; a failure is retried on the next call. */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= load().catch((e) => {
      value = undefined;
      throw e;
    });
    return value;
  };
}
