import type { RepoPort } from "../../github/port.js";
import { packageDirs } from "../../jobs/packages.js";
import type { DiskCache } from "../disk-cache.js";

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
  disk: DiskCache | undefined,
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
