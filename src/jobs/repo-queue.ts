import PQueue from "p-queue";

/**
 * One queue per repository: a repository's jobs run one at a time, in arrival order, so two quick
 * pushes or two commands never race; different repositories run in parallel (up to `concurrency`).
 * A free slot goes to the oldest job waiting for one: a job that waited behind its repository's
 * running job is not overtaken by jobs queued after it, so one installation's burst of events over
 * many repositories never starves another installation's job that was there first.
 *
 * Jobs are level-triggered (each reads the current state and moves it one step), so a job already
 * *waiting* with the same key is not queued twice: the newer request takes the waiting one's place
 * (its `run` is the one that runs, so the newest event's head and token are used) and both callers
 * get the same outcome. A job that has *started* never absorbs a new one: the new one queues behind
 * it and runs after it, so a push made while its predecessor is being rendered is rendered too.
 *
 * Jobs a user's event started (`origin: "event"`, the default) take a free slot before the periodic
 * sweep's (`origin: "sweep"`): a sweep of hundreds of repositories never makes a push or a command
 * wait for it. Within one repository the order stays arrival order; a sweep job that an event's job
 * waits behind is raised to the event's rank, so that repository is not left behind the sweep either.
 */
export type JobOrigin = "event" | "sweep";

/** p-queue runs a greater priority first: every event's job before the sweep's, then oldest first. */
const RANK: Record<JobOrigin, number> = { event: 1, sweep: 0 };
/** More jobs than one process queues in its life: a rank's priorities never reach the next rank's. */
const RANK_SPAN = 2 ** 40;
const priority = (rank: JobOrigin, seq: number) => RANK[rank] * RANK_SPAN - seq;

/**
 * What became of a request: a job of its own (`queued`), or taken in by a job with the same key that was
 * already waiting (`absorbed`), whose run does the work of both. A command's comment that started no job
 * of its own gets no 👀: its answer comes with the waiting job's.
 */
export type Enqueued = "queued" | "absorbed";

export interface JobSpec {
  /** `owner/repo`: jobs with the same repository never overlap. */
  repo: string;
  /** Identifies the work (e.g. `render:drafts/app/v2`); a waiting job with the same key absorbs this one. */
  key: string;
  run: () => Promise<void>;
  /** What caused it: a user's event (default) or the periodic sweep, whose jobs wait for the events'. */
  origin?: JobOrigin;
}

export interface JobOutcome {
  repo: string;
  key: string;
  ok: boolean;
  error?: unknown;
  durationMs: number;
}

/** A job queued and not yet started: the spec it will run (the newest absorbed) and its outcome. */
interface Waiting {
  job: JobSpec;
  /** `event` once any job it absorbed was an event's. */
  origin: JobOrigin;
  /** Order of arrival (of the first request it absorbed): the older, the sooner it gets a slot. */
  seq: number;
  outcome: Promise<JobOutcome>;
}

/** A repository's queue, and what it tells the shared queue about the job at its head. */
interface Repo {
  queue: PQueue;
  /** Event jobs of this repository queued and not yet at its head. */
  eventsBehind: number;
  /** The p-queue id of the head job while it waits for a slot in the shared queue, and its arrival. */
  headId?: string;
  headSeq?: number;
  /** Called once the next head is queued for a slot (the previous job keeps its slot until then). */
  onHead?: () => void;
}

export class RepoQueues {
  private readonly all: PQueue;
  private readonly perRepo = new Map<string, Repo>();
  private nextId = 0;
  private nextSeq = 0;
  /** Jobs queued and not started, by repository and key. An entry leaves the map when its job starts. */
  private readonly waiting = new Map<string, Waiting>();
  private closed = false;

  constructor(
    concurrency: number,
    private readonly onDone: (outcome: JobOutcome) => void = () => {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.all = new PQueue({ concurrency });
  }

  /** Whether a job of `repo` with `key` waits (queued, not started): a request for it now is absorbed. */
  isWaiting(repo: string, key: string): boolean {
    return !this.closed && this.waiting.has(`${repo}\0${key}`);
  }

  /** Queues a job; resolves when it (or the waiting job it was merged into) has run. Never rejects. */
  enqueue(job: JobSpec): Promise<JobOutcome> {
    if (this.closed) {
      return Promise.resolve({
        repo: job.repo,
        key: job.key,
        ok: false,
        error: new Error("shutting down"),
        durationMs: 0,
      });
    }
    const id = `${job.repo}\0${job.key}`;
    const queued = this.waiting.get(id);
    let repo = this.perRepo.get(job.repo);
    if (!repo) {
      repo = { queue: new PQueue({ concurrency: 1 }), eventsBehind: 0 };
      this.perRepo.set(job.repo, repo);
    }
    if (queued) {
      if (origin(job) === "event" && queued.origin === "sweep") {
        queued.origin = "event";
        this.eventArrived(repo);
      }
      queued.job = job;
      return queued.outcome;
    }
    if (origin(job) === "event") this.eventArrived(repo);
    // The entry is in the map before the task can start, whether p-queue starts it now or later,
    // and the task removes exactly this entry: nothing depends on when p-queue calls it.
    let settle!: (outcome: JobOutcome) => void;
    const entry: Waiting = {
      job,
      origin: origin(job),
      seq: this.nextSeq++,
      outcome: new Promise((resolve) => (settle = resolve)),
    };
    this.waiting.set(id, entry);
    const r = repo;
    void r.queue.add(async () => {
      if (this.waiting.get(id) === entry) this.waiting.delete(id);
      if (entry.origin === "event") r.eventsBehind--;
      const rank = r.eventsBehind > 0 ? "event" : entry.origin;
      const headId = String(this.nextId++);
      r.headId = headId;
      r.headSeq = entry.seq;
      const done = new Promise<JobOutcome>((resolve) => {
        void this.all.add(
          async () => {
            if (r.headId === headId) r.headId = undefined;
            resolve(await this.runOne(entry.job));
            // A job waits next in this repository: keep the slot until it is queued for one, so
            // that it competes by its age, not behind the jobs queued while it waited.
            if (r.queue.size > 0) await new Promise<void>((next) => (r.onHead = next));
          },
          { priority: priority(rank, entry.seq), id: headId },
        );
      });
      r.onHead?.();
      r.onHead = undefined;
      settle(await done);
    });
    return entry.outcome;
  }

  /** An event's job now waits in `repo`: the job at its head, waiting for a slot, goes at the event's rank. */
  private eventArrived(repo: Repo): void {
    repo.eventsBehind++;
    if (repo.headId === undefined || repo.headSeq === undefined) return;
    try {
      this.all.setPriority(repo.headId, priority("event", repo.headSeq));
    } catch {
      // p-queue has just taken it off its queue: it is starting.
    }
  }

  private async runOne(job: JobSpec): Promise<JobOutcome> {
    const start = this.now();
    let outcome: JobOutcome;
    try {
      await job.run();
      outcome = { repo: job.repo, key: job.key, ok: true, durationMs: this.now() - start };
    } catch (error) {
      outcome = { repo: job.repo, key: job.key, ok: false, error, durationMs: this.now() - start };
    }
    this.onDone(outcome);
    return outcome;
  }

  /** Jobs waiting or running, across repositories. */
  get size(): number {
    let n = 0;
    for (const { queue } of this.perRepo.values()) n += queue.size + queue.pending;
    return n;
  }

  /** Resolves when every queued job has run. */
  async idle(): Promise<void> {
    while (this.size > 0) {
      await Promise.all([...this.perRepo.values()].map(({ queue }) => queue.onIdle()));
    }
  }

  /** Stops taking jobs and waits for the queued ones (graceful shutdown: nothing left half-done). */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
  }
}

function origin(job: JobSpec): JobOrigin {
  return job.origin ?? "event";
}
