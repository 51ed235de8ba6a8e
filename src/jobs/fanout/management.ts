import type { InstallationPort, InstallationRepository } from "../../github/port.js";
import type { JobContext } from "../context.js";

/**
 * The management (upstream) repository a fan-out pull request names, as a job in the downstream reaches
 * it: a repository of the job's own installation (by short or full name), else, for `owner/name`, one of
 * the app's other installations. Undefined when neither reaches it.
 */
export async function reachManagement(
  ctx: JobContext,
  name: string,
): Promise<{ installation: InstallationPort; repository: InstallationRepository } | undefined> {
  if (!ctx.installation) return undefined;
  const own = (await ctx.installation.listRepositories()).find(
    (r) => r.id.repo === name || r.fullName === name,
  );
  if (own) return { installation: ctx.installation, repository: own };
  const [owner, repo, ...rest] = name.split("/");
  if (!owner || !repo || rest.length > 0 || !ctx.installationFor) return undefined;
  const installation = await ctx.installationFor({ owner, repo });
  if (!installation) return undefined;
  return { installation, repository: await installation.repository({ owner, repo }) };
}
