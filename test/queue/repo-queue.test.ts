import { describe, expect, it } from "vitest";
import { RepoQueues } from "../../src/queue/repo-queue.js";

/** A job that records its start and end, and finishes when released. */
function gate() {
  let release!: () => void;
  const done = new Promise<void>((r) => {
    release = r;
  });
  return { done, release };
}

/**
 * A queue of `slots` holding a sweep's backlog: a reconcile and a fan-out job for each of `repos`
 * repositories (o/s0, o/s1, …), queued in that order. Every job, these and those the test adds with
 * `job`, logs `start NAME` and `end NAME` and is held until `release`.
 */
function sweepBacklog(slots: number, repos: number) {
  const log: string[] = [];
  const q = new RepoQueues(slots);
  const g = gate();
  const job = (repo: string, key: string, origin: "event" | "sweep", name = `${repo} ${key}`) => ({
    repo,
    key,
    origin,
    run: async () => {
      log.push(`start ${name}`);
      await g.done;
      log.push(`end ${name}`);
    },
  });
  const all: Promise<unknown>[] = [];
  for (let i = 0; i < repos; i++) {
    all.push(q.enqueue(job(`o/s${i}`, "reconcile:sweep", "sweep")));
    all.push(q.enqueue(job(`o/s${i}`, "fanout:sweep", "sweep")));
  }
  /** The names of the jobs started, in order. */
  const started = () => log.filter((l) => l.startsWith("start ")).map((l) => l.slice("start ".length));
  return { q, job, all, log, started, release: g.release };
}

describe("RepoQueues", () => {
  it("runs one repository's jobs one at a time, in order, and other repositories alongside", async () => {
    const log: string[] = [];
    const q = new RepoQueues(4);
    const a1 = gate();
    const first = q.enqueue({
      repo: "o/a",
      key: "1",
      run: async () => {
        log.push("a1 start");
        await a1.done;
        log.push("a1 end");
      },
    });
    const second = q.enqueue({ repo: "o/a", key: "2", run: async () => void log.push("a2") });
    const other = q.enqueue({ repo: "o/b", key: "1", run: async () => void log.push("b1") });
    await other;
    expect(log).toEqual(["a1 start", "b1"]);
    a1.release();
    await Promise.all([first, second]);
    expect(log).toEqual(["a1 start", "b1", "a1 end", "a2"]);
  });

  it("merges a job into the same job still waiting, but not into one already running", async () => {
    let runs = 0;
    const q = new RepoQueues(2);
    const g = gate();
    const blocker = q.enqueue({ repo: "o/a", key: "block", run: () => g.done });
    const job = { repo: "o/a", key: "render", run: async () => void runs++ };
    expect(q.isWaiting("o/a", "render")).toBe(false);
    const x = q.enqueue(job);
    expect(q.isWaiting("o/a", "render")).toBe(true);
    const y = q.enqueue(job);
    expect(x).toBe(y);
    g.release();
    await Promise.all([blocker, x]);
    expect(runs).toBe(1);
    expect(q.isWaiting("o/a", "render")).toBe(false);
    await q.enqueue(job);
    expect(runs).toBe(2);
  });

  it("runs the same key every time it is queued on an idle queue, one after another", async () => {
    let runs = 0;
    const q = new RepoQueues(2);
    const job = { repo: "o/r", key: "render:drafts/app/v2", run: async () => void runs++ };
    for (let i = 1; i <= 3; i++) {
      const outcome = await q.enqueue(job);
      expect(outcome.ok).toBe(true);
      expect(runs).toBe(i);
    }
  });

  it("queues a job behind a running one with the same key: a push during its render is rendered too", async () => {
    const seen: string[] = [];
    const q = new RepoQueues(2);
    const g = gate();
    const first = q.enqueue({
      repo: "o/r",
      key: "render:b",
      run: async () => {
        seen.push("head-1");
        await g.done;
      },
    });
    const second = q.enqueue({ repo: "o/r", key: "render:b", run: async () => void seen.push("head-2") });
    expect(second).not.toBe(first);
    g.release();
    await Promise.all([first, second]);
    expect(seen).toEqual(["head-1", "head-2"]);
  });

  it("runs the newest request of a key that waited: twelve quick pushes end on the last head", async () => {
    const rendered: number[] = [];
    const q = new RepoQueues(1);
    const g = gate();
    const blocker = q.enqueue({ repo: "o/r", key: "check:1", run: () => g.done });
    const outcomes = [];
    for (let head = 1; head <= 12; head++) {
      outcomes.push(q.enqueue({ repo: "o/r", key: "render:b", run: async () => void rendered.push(head) }));
    }
    g.release();
    await Promise.all([blocker, ...outcomes]);
    expect(rendered).toEqual([12]);
    expect(new Set(outcomes).size).toBe(1);
  });

  it("starts a webhook's job before the sweep's jobs still waiting for a slot", async () => {
    const { q, job, all, started, release } = sweepBacklog(2, 10);
    all.push(q.enqueue(job("o/hook", "render:drafts/app/v2", "event")));
    release();
    await Promise.all(all);

    // The two sweep jobs that had the slots, then the push, then the other 18 sweep jobs.
    expect(started().slice(0, 3)).toEqual([
      "o/s0 reconcile:sweep",
      "o/s1 reconcile:sweep",
      "o/hook render:drafts/app/v2",
    ]);
    expect(started()).toHaveLength(21);
  });

  it("keeps a repository's order: a webhook's job behind its sweep jobs lifts them ahead of the rest", async () => {
    const { q, job, all, log, release } = sweepBacklog(1, 6);
    all.push(q.enqueue(job("o/s3", "command:9", "event")));
    release();
    await Promise.all(all);

    const starts = log.filter((l) => l.startsWith("start"));
    expect(starts.slice(0, 4)).toEqual([
      "start o/s0 reconcile:sweep",
      "start o/s3 reconcile:sweep",
      "start o/s3 fanout:sweep",
      "start o/s3 command:9",
    ]);
    expect(starts).toHaveLength(13);
    // One job at a time: every start follows the previous job's end.
    for (let i = 1; i < log.length; i += 2) expect(log[i]?.replace("end", "start")).toBe(log[i - 1]);
  });

  it("a waiting sweep job that absorbs a webhook's request of the same key runs at the webhook's rank", async () => {
    const { q, job, all, started, release } = sweepBacklog(1, 4);
    const absorbed = q.enqueue(job("o/s2", "fanout:sweep", "event", "o/s2 fanout:sweep (published)"));
    expect(all).toContain(absorbed);
    release();
    await Promise.all(all);

    expect(started().slice(0, 3)).toEqual([
      "o/s0 reconcile:sweep",
      "o/s2 reconcile:sweep",
      "o/s2 fanout:sweep (published)",
    ]);
    expect(started()).toHaveLength(8);
  });

  it("gives a free slot to the oldest job: another installation's burst does not overtake a job waiting behind its repository", async () => {
    const started: string[] = [];
    const q = new RepoQueues(2);
    const first = gate();
    const burst = gate();
    const job = (repo: string, key: string, wait?: Promise<void>) => ({
      repo,
      key,
      run: async () => {
        started.push(`${repo} ${key}`);
        await wait;
      },
    });
    const all: Promise<unknown>[] = [];
    // Installation "small": a push being rendered and a command on the same repository behind it.
    all.push(q.enqueue(job("small/app", "render:drafts/app/v1", first.done)));
    all.push(q.enqueue(job("small/app", "command:4")));
    // Then installation "big" publishes: its fan-out opens proposals in six repositories at once.
    for (let i = 1; i <= 6; i++) all.push(q.enqueue(job(`big/edge-${i}`, "check:1", burst.done)));
    first.release();
    // The render's slot is free: the command, queued before the burst, takes it.
    for (let i = 0; i < 100 && started.length < 3; i++) await new Promise((r) => setTimeout(r, 0));
    burst.release();
    await Promise.all(all);

    expect(started.slice(0, 3)).toEqual([
      "small/app render:drafts/app/v1",
      "big/edge-1 check:1",
      "small/app command:4",
    ]);
    expect(started).toHaveLength(8);
  });

  it("reports a failing job as an outcome and goes on with the next", async () => {
    const outcomes: boolean[] = [];
    const q = new RepoQueues(1, (o) => outcomes.push(o.ok));
    const failed = await q.enqueue({
      repo: "o/a",
      key: "x",
      run: async () => {
        throw new Error("boom");
      },
    });
    expect(failed.ok).toBe(false);
    expect((failed.error as Error).message).toBe("boom");
    expect((await q.enqueue({ repo: "o/a", key: "y", run: async () => {} })).ok).toBe(true);
    expect(outcomes).toEqual([false, true]);
  });

  it("finishes queued jobs on close and refuses new ones", async () => {
    let ran = false;
    const q = new RepoQueues(1);
    void q.enqueue({
      repo: "o/a",
      key: "x",
      run: async () => {
        ran = true;
      },
    });
    await q.close();
    expect(ran).toBe(true);
    expect((await q.enqueue({ repo: "o/a", key: "y", run: async () => {} })).ok).toBe(false);
  });
});
