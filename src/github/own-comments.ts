import { LRUCache } from "lru-cache";
import type { RepoId } from "./port.js";

/**
 * What every marker the app finds its comments by begins with (`<!-- porchlight:summary -->`, a review's
 * or a command's answer): a comment without it cannot be found by one, so it is not kept.
 */
export const APP_MARKER = "<!-- porchlight:";

/** A marked comment as kept: enough to find it by its marker and to tell whether a write changes it. */
interface Marked {
  id: number;
  body: string;
}

/** How many bytes the kept bodies take at most, across every pull request (the oldest let go first). */
const MAX_BYTES = 32 * 1024 * 1024;

/**
 * The marked comments of each pull request (or issue) this process listed, for the process's life, kept
 * up to date with every comment the app writes there since: the app finds its own answers again by
 * their markers (a review answered, the summary to edit, a command's reply), and a pull request whose
 * comments a job before listed — the proposal's check, then its approval — is answered here instead of
 * listing them again. Found as GitHub's listing finds them: the first comment, oldest first, whose body
 * holds the marker, whoever wrote it. Only an issue listed in this process is answered (what a process
 * before it wrote is not known here; after a restart GitHub is asked), only for markers (other comments
 * are not kept), and only in one process: a fleet's replicas each write, so there every question goes
 * to GitHub (server.ts gives none), as it does for the app's own check runs (own-check-runs.ts).
 */
export class OwnComments {
  private readonly issues = new LRUCache<string, Marked[]>({
    maxSize: MAX_BYTES,
    sizeCalculation: (kept, key) => key.length + kept.reduce((n, c) => n + 2 * c.body.length + 16, 16),
  });

  private static key(repo: RepoId, issue: number): string {
    return `${repo.owner.toLowerCase()}/${repo.repo.toLowerCase()}#${issue}`;
  }

  /**
   * The first comment of `issue` holding `marker`: undefined when it has none, "unknown" when this
   * process has not listed it (or the marker is none of the app's, whose comments are not kept).
   */
  find(repo: RepoId, issue: number, marker: string): Marked | undefined | "unknown" {
    const held = marker.includes(APP_MARKER) ? this.issues.get(OwnComments.key(repo, issue)) : undefined;
    if (!held) return "unknown";
    const found = held.find((c) => c.body.includes(marker));
    return found && { ...found };
  }

  /** What GitHub listed for `issue`, oldest first (every comment: the marked ones are kept). */
  listed(repo: RepoId, issue: number, comments: readonly { id: number; body: string }[]): void {
    this.keep(
      OwnComments.key(repo, issue),
      comments.filter((c) => c.body.includes(APP_MARKER)).map(({ id, body }) => ({ id, body })),
    );
  }

  /** A comment the app wrote (created, or edited to `body`): kept when the issue's comments are. */
  wrote(repo: RepoId, issue: number, comment: Marked): void {
    const key = OwnComments.key(repo, issue);
    const held = this.issues.get(key);
    if (!held) return;
    const others = held.filter((c) => c.id !== comment.id);
    const edited = held.map((c) => (c.id === comment.id ? { ...comment } : c));
    // an edit that took the marker out leaves a comment no marker finds
    if (!comment.body.includes(APP_MARKER)) this.keep(key, others);
    else this.keep(key, others.length === held.length ? [...held, { ...comment }] : edited);
  }

  /**
   * What the app wrote to `issue` is not all known (a write failed part way, a kept comment is gone):
   * asked of GitHub next time.
   */
  forget(repo: RepoId, issue: number): void {
    this.issues.delete(OwnComments.key(repo, issue));
  }

  /** Set anew, so the cache weighs the bodies as they are now. */
  private keep(key: string, comments: Marked[]): void {
    this.issues.set(key, comments);
  }
}
