import type { BotIdentity } from "../jobs/context.js";

interface AppOctokit {
  request(route: "GET /app"): Promise<{ data: { id: number; slug?: string; name?: string } | null }>;
}

/** The bot's login and commit author, from `GET /app`: `<slug>[bot]`, GitHub's noreply address. */
export async function readIdentity(octokit: AppOctokit): Promise<BotIdentity> {
  const { data } = await octokit.request("GET /app");
  const slug = data?.slug ?? "porchlight";
  const login = `${slug}[bot]`;
  return { login, author: { name: login, email: `${data?.id ?? 0}+${login}@users.noreply.github.com` } };
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
