import type { InstallationPort, InstallationRepository } from "../../github/port.js";
import type { JobContext } from "../context.js";
import type { FollowUpTarget } from "../outbox.js";

/** A management repository as a job reached it, and where a job for it is queued. */
export interface ReachedManagement {
  installation: InstallationPort;
  repository: InstallationRepository;
  /** Its queue, for a follow-up job: the job's own installation's, or another installation's. */
  target: FollowUpTarget;
}

/**
 * The management (upstream) repository a fan-out pull request names, as a job in the downstream reaches
 * it: a repository of the job's own installation (by short or full name), else, for `owner/name`, one of
 * the app's other installations. Undefined when neither reaches it.
 */
export async function reachManagement(
  ctx: Pick<JobContext, "installation" | "installationFor">,
  name: string,
): Promise<ReachedManagement | undefined> {
  const own = (await ctx.installation.listRepositories()).find(
    (r) => r.id.repo === name || r.fullName === name,
  );
  if (own)
    return {
      installation: ctx.installation,
      repository: own,
      target: { kind: "installation", repository: own },
    };
  const [owner, repo, ...rest] = name.split("/");
  if (!owner || !repo || rest.length > 0 || !ctx.installationFor) return undefined;
  const installation = await ctx.installationFor({ owner, repo });
  if (!installation) return undefined;
  const repository = await installation.repository({ owner, repo });
  return { installation, repository, target: { kind: "elsewhere", repository } };
}
