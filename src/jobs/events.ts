import type { RepoId } from "../github/port.js";

/** A package revision was published: merged and tagged. Fan-out subscribes to this. */
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

export type PublishedListener = (event: PublishedEvent) => void | Promise<void>;

/**
 * A management repository's fan-out is wanted now, on its own queue: a check or status on one of its
 * downstreams' fan-out pull requests (or default branches) finished, so an automerge, the next wave of a
 * rollout or the dashboard may move.
 */
export interface FanoutWantedEvent {
  repo: RepoId;
  /** What asked, for the logs: the repository and commit whose checks finished. */
  reason: string;
}

export type FanoutWantedListener = (event: FanoutWantedEvent) => void | Promise<void>;

/**
 * The app's in-process events. One instance per app (no module state); a listener that throws is
 * logged by the caller's `onError` and never stops the other listeners or the job that emitted.
 */
export class PorchlightEvents {
  private readonly published = new Set<PublishedListener>();
  private readonly fanoutWanted = new Set<FanoutWantedListener>();

  constructor(
    private readonly onError: (error: unknown, event: PublishedEvent | FanoutWantedEvent) => void = () => {},
  ) {}

  /** Subscribes to published revisions; returns the function that unsubscribes. */
  onPublished(listener: PublishedListener): () => void {
    this.published.add(listener);
    return () => this.published.delete(listener);
  }

  emitPublished(event: PublishedEvent): Promise<void> {
    return this.emit(this.published, event);
  }

  /** Subscribes to fan-out requests; returns the function that unsubscribes. */
  onFanoutWanted(listener: FanoutWantedListener): () => void {
    this.fanoutWanted.add(listener);
    return () => this.fanoutWanted.delete(listener);
  }

  emitFanoutWanted(event: FanoutWantedEvent): Promise<void> {
    return this.emit(this.fanoutWanted, event);
  }

  /** Calls each listener subscribed now, in turn; one that throws goes to onError, the others still run. */
  private async emit<E extends PublishedEvent | FanoutWantedEvent>(
    listeners: ReadonlySet<(event: E) => void | Promise<void>>,
    event: E,
  ): Promise<void> {
    for (const listener of [...listeners]) {
      try {
        await listener(event);
      } catch (error) {
        this.onError(error, event);
      }
    }
  }
}
