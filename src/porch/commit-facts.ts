import type { RepoPort } from "../github/port.js";
import { packageDirs } from "../jobs/packages.js";

/**
 * Where facts of commits are kept across runs (the command line's cache on disk, cli/disk-cache.ts): a
 * commit's facts never change, so what is kept is never asked of git again.
 */
export interface CommitFactCache {
  commitFact(sha: string, kind: string): unknown;
  keepCommitFact(sha: string, kind: string, value: unknown): void;
}

/**
 * What a listing reads of commits, which never changes for a commit: read from the disk cache first
 * (cli/disk-cache.ts), from git otherwise and then kept. A listing whose commits are all known there
 * starts no git process: the refs are read in this process, the rest over REST.
 */
export interface CommitFacts {
  /** The package directories of commit `sha` (the directories holding a Kptfile, "" for the root). */
  packagesAt(sha: string): Promise<string[]>;
  /** The messages of commits `shas`, by SHA. */
  messages(shas: readonly string[]): Promise<Map<string, string>>;
}

/** The facts' names in the cache; a new reading of a fact takes a new name, so no old entry is misread. */
const PACKAGES = "package-dirs";
const MESSAGE = "message";

export function commitFacts(
  port: Pick<RepoPort, "listFiles" | "commitMessages">,
  disk: CommitFactCache | undefined,
): CommitFacts {
  return {
    async packagesAt(sha) {
      const kept = disk?.commitFact(sha, PACKAGES);
      if (Array.isArray(kept) && kept.every((d) => typeof d === "string")) return kept;
      const listing = await port.listFiles(sha);
      const dirs = packageDirs(listing.files.map((f) => f.path));
      // the commit the listing is of: `sha` itself (a SHA names its commit), unless git says otherwise
      if (listing.sha === sha) disk?.keepCommitFact(sha, PACKAGES, dirs);
      return dirs;
    },
    async messages(shas) {
      const out = new Map<string, string>();
      const missing: string[] = [];
      for (const sha of new Set(shas)) {
        const kept = disk?.commitFact(sha, MESSAGE);
        if (typeof kept === "string") out.set(sha, kept);
        else missing.push(sha);
      }
      if (missing.length === 0) return out;
      for (const [sha, message] of await port.commitMessages(missing)) {
        out.set(sha, message);
        disk?.keepCommitFact(sha, MESSAGE, message);
      }
      return out;
    },
  };
}
