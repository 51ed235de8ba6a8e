import type { BotIdentity } from "../jobs/context.js";

/** The user GitHub Actions' `GITHUB_TOKEN` acts as, and its noreply address (user id 41898282). */
const ACTIONS_BOT: BotIdentity = {
  login: "github-actions[bot]",
  author: {
    name: "github-actions[bot]",
    email: "41898282+github-actions[bot]@users.noreply.github.com",
  },
};

/**
 * Who porchlight is on Actions. `GET /app` (how the hosted app learns its name) needs the app's JWT,
 * which a workflow never has, so the identity is the token's: `github-actions[bot]` for
 * `GITHUB_TOKEN`, or `PORCHLIGHT_BOT_LOGIN` (and `PORCHLIGHT_BOT_EMAIL`) when the workflow passes
 * another app's token or a machine user's.
 */
export function actionIdentity(env: NodeJS.ProcessEnv): BotIdentity {
  const login = env.PORCHLIGHT_BOT_LOGIN?.trim();
  if (!login) return ACTIONS_BOT;
  const email = env.PORCHLIGHT_BOT_EMAIL?.trim() || `${login}@users.noreply.github.com`;
  return { login, author: { name: login, email } };
}
