import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openRepository, type Repository } from "../porch/repository.js";
import { type CliIO, UsageError } from "./io.js";
import { asUsageError, describeFailure } from "./rpkg/errors.js";

/**
 * Runs `work` on GitHub repository `full` (`--repository`), opened as `porchlight rpkg` opens one: the
 * token from GH_TOKEN or GITHUB_TOKEN, `--api-url` or the environment's API URL, a cache removed at the
 * end. A failure (no token, GitHub's refusal) is the message for the user, returned as `{ failed }`.
 */
export async function withRepository<T>(
  io: CliIO,
  opts: { full: string; apiUrl: string | undefined; command: string },
  work: (repo: Repository) => Promise<T>,
): Promise<T | { failed: string }> {
  const token = io.env.GH_TOKEN || io.env.GITHUB_TOKEN;
  if (!token)
    return {
      failed: "no token: set GH_TOKEN (or GITHUB_TOKEN) to a token that can read and push to the repository",
    };
  const cacheDir = await mkdtemp(join(tmpdir(), "porchlight-catalog-"));
  try {
    const apiUrl = opts.apiUrl || io.env.PORCHLIGHT_API_URL || io.env.GITHUB_API_URL || undefined;
    const repo = await openRepository(
      { token, apiUrl, cacheDir, authorEnv: io.env },
      opts.full,
      opts.command,
    );
    return await work(repo);
  } catch (e) {
    const usage = asUsageError(e);
    if (usage instanceof UsageError) throw usage;
    return { failed: describeFailure(e, opts.full) };
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
}

export function failed(x: unknown): x is { failed: string } {
  return typeof x === "object" && x !== null && "failed" in x;
}
