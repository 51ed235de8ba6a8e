import type { InstallationRepository, RepoId } from "../github/port.js";

/** A package revision was published: merged and tagged. What its fan-out job is given. */
export interface PublishedEvent {
  repo: RepoId;
  package: string;
  revision: number;
  tag: string;
  /** The merge commit the tag points at. */
  commit: string;
  /**
   * The repository holding the variant that proposed it (`owner/name`), when a fan-out pull request of an
   * OCI or tarball upstream was published: its Kptfile names no git upstream to find that repository by.
   */
  management?: string;
}

/** Whose queue a follow-up job goes to. */
export type FollowUpTarget =
  /** The job's own repository. */
  | { kind: "here" }
  /** Another repository of the job's installation (an auto-published downstream, a management repository). */
  | { kind: "installation"; repository: InstallationRepository }
  /** A repository of another installation of the app (fan-out across accounts, hosted app only). */
  | { kind: "elsewhere"; repository: InstallationRepository };

/**
 * A job that a finishing job implies, as data (it may wait in Redis): a published revision's fan-out
 * (the revision into the catalog, the variants reconciled), or a management repository's fan-out now
 * (checks finished on one of its downstreams). Both jobs are idempotent: run twice, the second finds
 * nothing to do.
 */
export type FollowUp =
  | { task: "fanout-published"; target: FollowUpTarget; event: PublishedEvent }
  | { task: "fanout-wanted"; target: FollowUpTarget; reason: string };

/**
 * Where a job records the jobs it implies. They are queued when the work that implied them returns
 * (or throws: what was recorded already happened, a tag is not taken back) and before the job's
 * deferred steps and its end: with Redis, the follow-up is held there before the job is marked done, so
 * a crash in between loses nothing — the job runs again, and the fact it records again (a draft branch
 * still there, see jobs/publish/finish.ts) records the follow-up again.
 */
export interface Outbox {
  /** Records a follow-up; the same task for the same repository and key again in one job is one. */
  add(followUp: FollowUp): void;
  /** Queues what was recorded since the last send (the runner's queue), once each; resolves once queued. */
  send(): Promise<void>;
}

/** The queue key of a follow-up: a published revision's tag, or `checks` (one waiting fan-out absorbs the next). */
export function followUpKey(followUp: FollowUp): string {
  return followUp.task === "fanout-published" ? followUp.event.tag : "checks";
}

function targetName(target: FollowUpTarget): string {
  return target.kind === "here" ? "" : target.repository.fullName;
}

/**
 * The outbox at the root of a job: `queue` is given each follow-up once (the same task, repository and
 * key recorded again in the job is not queued twice), in the order recorded.
 */
export function rootOutbox(queue: (followUp: FollowUp) => Promise<void>): Outbox {
  const seen = new Set<string>();
  const pending: FollowUp[] = [];
  return {
    add(followUp) {
      const id = `${followUp.task}\0${targetName(followUp.target)}\0${followUpKey(followUp)}`;
      if (seen.has(id)) return;
      seen.add(id);
      pending.push(followUp);
    },
    async send() {
      for (const followUp of pending.splice(0)) await queue(followUp);
    },
  };
}

/**
 * An outbox for a part of a job that finishes on its own (withDeferred): what it records is sent
 * through the job's outbox when the part ends, not at the job's end.
 */
export function scopedOutbox(parent: Outbox): Outbox {
  const recorded: FollowUp[] = [];
  return {
    add: (followUp) => {
      recorded.push(followUp);
    },
    async send() {
      for (const followUp of recorded.splice(0)) parent.add(followUp);
      await parent.send();
    },
  };
}
