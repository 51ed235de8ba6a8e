import type { Permission } from "../../api/permission.js";
import type { PullRequest, RepoAccess, RepoChecks, RepoFiles, RepoPulls } from "../../github/port.js";
import { type CheckRunInfo, REQUIRED_CHECKS, type ReviewInfo } from "../../lifecycle/publish.js";
import type { RefInfo } from "../../lifecycle/refs.js";

export interface PublishFacts {
  reviews: ReviewInfo[];
  checkRuns: CheckRunInfo[];
  refs: RefInfo[];
  permissionOf: (user: string) => Promise<Permission>;
}

/**
 * Everything decidePublish needs, read once: reviews with each reviewer's permission (asked once per
 * person), the head's check runs, and every ref in one ls-remote, however many revisions there are.
 * A proposal that changes no file (a revision's deletion) is decided without checks (`checks: false`):
 * none is asked for, none of the budget spent on them.
 */
export async function gatherFacts(
  port: RepoFiles & RepoPulls & RepoChecks & RepoAccess,
  pr: PullRequest,
  what: {
    /** Whether the head's check runs are weighed; a list is the one read an instant before (approve's wait). */
    checks: boolean | CheckRunInfo[];
  },
): Promise<PublishFacts> {
  const cache = new Map<string, Promise<Permission>>();
  const permissionOf = (user: string): Promise<Permission> => {
    let p = cache.get(user);
    if (!p) {
      p = port.permissionOf(user);
      cache.set(user, p);
    }
    return p;
  };
  const [reviews, checkRuns, refs] = await Promise.all([
    port.listReviews(pr.number),
    what.checks === true ? port.listCheckRuns(pr.headSha, REQUIRED_CHECKS) : what.checks || [],
    port.listRefs(),
  ]);
  const counted = reviews.filter((r) => r.state === "APPROVED" || r.state === "CHANGES_REQUESTED");
  const withPermission: ReviewInfo[] = [];
  for (const r of reviews) {
    withPermission.push({
      user: r.user,
      state: r.state,
      commitId: r.commitId,
      permission: counted.includes(r) ? await permissionOf(r.user) : "none",
    });
  }
  return { reviews: withPermission, checkRuns, refs, permissionOf };
}
