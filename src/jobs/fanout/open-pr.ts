import { GitHubError } from "../../github/errors.js";
import type { PullRequest } from "../../github/port.js";
import type { RepoSnapshot } from "./snapshot.js";

export interface PullRequestText {
  branch: string;
  title: string;
  body: string;
  labels: string[];
  /**
   * Open it as a draft (the merge left conflicts for a person): it cannot be merged by mistake until
   * someone resolves them and marks it ready. An existing pull request keeps its state (the REST API
   * cannot make one a draft); its failing check blocks it.
   */
  draft?: boolean;
}

/**
 * The one pull request of a fan-out branch: the open one is edited in place (only what differs), else one
 * is opened and labelled. GitHub refusing a second pull request for the branch (another run got there
 * first) finds that one and edits it instead, so a variant never has two.
 */
export async function upsertPullRequest(
  snap: RepoSnapshot,
  existing: PullRequest | undefined,
  text: PullRequestText,
): Promise<{ number: number; action: "created" | "updated" | "unchanged" }> {
  const port = snap.port;
  let pr = existing;
  let action: "created" | "updated" | "unchanged" = "unchanged";
  if (!pr) {
    try {
      pr = await port.createPull({
        head: text.branch,
        base: snap.repository.defaultBranch,
        title: text.title,
        body: text.body,
        ...(text.draft ? { draft: true } : {}),
      });
      action = "created";
    } catch (e) {
      if (!(e instanceof GitHubError && e.kind === "validation")) throw e;
      pr = (await port.listOpenPulls()).find((p) => p.headRef === text.branch);
      if (!pr) throw e;
    }
  }
  if (action !== "created" && (pr.title !== text.title || pr.body !== text.body)) {
    await port.updatePull(pr.number, { title: text.title, body: text.body });
    action = "updated";
  }
  const missing = text.labels.filter((l) => !pr.labels.includes(l));
  if (missing.length > 0) await port.addLabels(pr.number, missing);
  return { number: pr.number, action };
}

/** The marker of the comment that says why fan-out closed a pull request. */
const CLOSED_MARKER = "<!-- porchlight:fanout-closed -->";

/**
 * Closes pull requests a person would otherwise wait on (a proposal of a revision deleted since), each
 * with a comment saying why — the comment first, found again by its marker, so a run after a crash
 * between the two writes it once.
 */
export async function closeExplained(
  snap: RepoSnapshot | undefined,
  close: readonly { number: number; reason: string }[] | undefined,
): Promise<void> {
  if (!snap) return;
  for (const c of close ?? []) {
    await snap.port.ensureComment(
      c.number,
      CLOSED_MARKER,
      `${CLOSED_MARKER}\nClosed by fan-out: ${c.reason}.`,
    );
    await snap.port.updatePull(c.number, { state: "closed" });
  }
}

/** Closes the pull requests the plan says are stale (one PATCH each). */
export async function closePullRequests(
  snap: RepoSnapshot,
  close: readonly { number: number; reason: string }[] | undefined,
): Promise<void> {
  for (const c of close ?? []) await snap.port.updatePull(c.number, { state: "closed" });
}
