import { stat } from "node:fs/promises";
import { join } from "node:path";
import { GitCommandError } from "../git-process.js";
import type { CacheClone } from "./clone.js";
import { pruneTips } from "./tips.js";

/** One fetch in this many tidies the cache clone (tidy). */
const MAINTENANCE_EVERY = 20;

/** Whether this fetch is the one in MAINTENANCE_EVERY that tidies the clone. */
export function maintenanceDue(): boolean {
  return Math.random() < 1 / MAINTENANCE_EVERY;
}

/**
 * Tidies the cache clone after a fetch: the tips not fetched or pushed for long are let go, git's
 * automatic maintenance runs (gc, once enough loose objects and packs piled up), and the commit-graph
 * takes the commits added since it was last written (a small layer of its own, `--split`), with the
 * paths each changed (`--changed-paths`). Without it every walk of history parsed each commit from its
 * object: a draft's task history (`log --date-order`, which orders the whole history before it shows
 * the first), a package's last change (`log --first-parent -- <dir>`, a diff of each commit's tree), a
 * push's and a fetch's pass over the commits the other side or the clone's refs hold. In Porch's
 * iterative test they grew with every revision published. The graph only speeds those up (git reads
 * what it lacks from the objects), so failing to write it (another process writing it) fails nothing.
 */
export async function tidy(clone: CacheClone): Promise<void> {
  await pruneTips(clone.gitDir);
  await clone.git(["maintenance", "run", "--auto", "--quiet"]);
  await clone
    .git(["commit-graph", "write", "--reachable", "--split", "--changed-paths", "--no-progress"])
    .catch(() => undefined);
}

/**
 * Runs git in the clone with its credentials, for a command that reaches the remote (fetch, push,
 * ls-remote): a shallow clone's fetch one commit deep, and an expired token renewed once.
 */
export async function remote(clone: CacheClone, args: string[]): Promise<Buffer> {
  await clone.init();
  if (clone.shallow && args[0] === "fetch")
    args = [...args.slice(0, 1), ...(await depthArgs(clone, args)), ...args.slice(1)];
  // After a fetch git checks whether the clone wants maintenance (a process of its own: a third of a
  // small fetch's cost); one fetch in MAINTENANCE_EVERY tidies the clone instead, which keeps it tidy for weeks.
  const fetching = args[0] === "fetch";
  if (fetching) args = ["-c", "maintenance.auto=false", ...args];
  let out: Buffer;
  try {
    out = await clone.git(args, undefined, await clone.authEnv());
  } catch (e) {
    // An installation token can expire before the client's cache lets it go: renew it once, ask again.
    if (!(e instanceof GitCommandError) || e.kind !== "auth") throw e;
    out = await clone.git(args, undefined, await clone.authEnv(true));
  }
  if (fetching && maintenanceDue()) await tidy(clone);
  return out;
}

/** A shallow clone's fetch: one commit deep, or its whole history when every branch is asked for. */
async function depthArgs(clone: CacheClone, args: string[]): Promise<string[]> {
  if (!args.some((a) => a.includes("refs/heads/*"))) return ["--depth=1"];
  const shallowFile = await stat(join(clone.gitDir, "shallow")).catch(() => undefined);
  return shallowFile ? ["--unshallow"] : [];
}

/** `ask` with the credentials as HTTP headers; refused once (an expired token), asked again with new ones. */
export async function withHeaders<T>(
  clone: CacheClone,
  ask: (headers: Record<string, string>) => Promise<T>,
): Promise<T> {
  try {
    return await ask(extraHeaders(await clone.authEnv()));
  } catch (e) {
    if (!(e instanceof GitCommandError) || e.kind !== "auth") throw e;
    return ask(extraHeaders(await clone.authEnv(true)));
  }
}

/** The `http.extraHeader` values of git's environment (GIT_CONFIG_KEY_n/VALUE_n: the token), as headers. */
function extraHeaders(env: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, name] of Object.entries(env)) {
    if (!/^GIT_CONFIG_KEY_\d+$/.test(key) || name.toLowerCase() !== "http.extraheader") continue;
    const value = env[key.replace("KEY", "VALUE")] ?? "";
    const colon = value.indexOf(":");
    if (colon > 0) headers[value.slice(0, colon).trim().toLowerCase()] = value.slice(colon + 1).trim();
  }
  return headers;
}
