import { afterEach, describe, expect, it } from "vitest";
import { RedisQueue } from "../../src/queue/redis-queue.js";
import { type JobOrigin, RepoQueues } from "../../src/queue/repo-queue.js";
import { dropPrefix, hasRedis, REDIS_MISSING, TEST_REDIS_URL, testPrefix } from "../util/redis.js";
import { gate, until } from "../util/waits.js";

/** A job queue as the tests drive it: both backends, one contract. */
interface Backend {
  enqueue(repo: string, key: string, origin?: JobOrigin): Promise<void>;
  idle(): Promise<void>;
  close(): Promise<void>;
}

type Run = (repo: string, key: string) => Promise<void>;

const backends: [string, boolean, (concurrency: number, run: Run) => Promise<Backend>][] = [
  [
    "in one process",
    true,
    async (concurrency, run) => {
      const q = new RepoQueues(concurrency);
      return {
        enqueue: async (repo, key, origin = "event") =>
          void q.enqueue({ repo, key, origin, run: () => run(repo, key) }),
        idle: () => q.idle(),
        close: () => q.close(),
      };
    },
  ],
  [
    `on Redis${REDIS_MISSING ? ` (skipped: ${REDIS_MISSING})` : ""}`,
    hasRedis,
    async (concurrency, run) => {
      const prefix = testPrefix("fair");
      const q = new RedisQueue({
        url: TEST_REDIS_URL,
        prefix,
        concurrency,
        sweep: async () => {},
        sweepIntervalMs: 0,
        run: (j) => run(j.repo, j.key),
      });
      await q.start({ sweepAtStart: false });
      return {
        enqueue: async (repo, key, origin = "event") =>
          void (await q.enqueue({ repo, key, origin, payload: null })),
        idle: () => q.idle(),
        close: async () => {
          await q.close({ abandon: true });
          await dropPrefix(prefix);
        },
      };
    },
  ],
];

describe.each(backends)("fair turns, the job queue %s", (_name, available, open) => {
  const opened: Backend[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((q) => q.close().catch(() => {})));
  });

  /**
   * A queue whose jobs record their start; the first `held` jobs to start wait until released, so
   * that everything after is queued while they run.
   */
  async function queue(concurrency: number, held: number) {
    const started: string[] = [];
    const hold = gate();
    const q = await open(concurrency, async (repo, key) => {
      started.push(`${repo} ${key}`);
      if (started.length <= held) await hold.promise;
    });
    opened.push(q);
    return { q, started, release: hold.open };
  }

  it.skipIf(!available)(
    "a repository's backlog does not delay another repository's job, of its installation or another, beyond one turn",
    async () => {
      const { q, started, release } = await queue(1, 1);
      await q.enqueue("acme/a", "1");
      await until(() => started.length === 1, "acme/a's first job started");
      for (let i = 2; i <= 20; i++) await q.enqueue("acme/a", String(i));
      await q.enqueue("acme/b", "1");
      await q.enqueue("globex/c", "1");
      release();
      await q.idle();

      // The other installation (never served) first, then acme's other repository, then the backlog.
      expect(started.slice(0, 4)).toEqual(["acme/a 1", "globex/c 1", "acme/b 1", "acme/a 2"]);
      expect(started).toHaveLength(22);
    },
  );

  it.skipIf(!available)(
    "installations take turns, and within one its repositories: an installation with one busy repository does not crowd out one with two",
    async () => {
      const { q, started, release } = await queue(1, 1);
      await q.enqueue("acme/a", "1");
      await until(() => started.length === 1, "acme/a's first job started");
      for (const repo of ["acme/a", "acme/b", "globex/c"])
        for (let i = 1; i <= 3; i++) if (repo !== "acme/a" || i > 1) await q.enqueue(repo, String(i));
      release();
      await q.idle();

      expect(started).toEqual([
        "acme/a 1",
        "globex/c 1",
        "acme/b 1",
        "globex/c 2",
        "acme/a 2",
        "globex/c 3",
        "acme/b 2",
        "acme/a 3",
        "acme/b 3",
      ]);
    },
  );

  it.skipIf(!available)(
    "a free slot goes to an installation waiting before the next job of one whose repositories all have backlogs",
    async () => {
      const { q, started, release } = await queue(2, 2);
      await q.enqueue("big/r1", "1");
      await q.enqueue("big/r2", "1");
      await until(() => started.length === 2, "two of big's jobs started");
      for (const repo of ["big/r1", "big/r2", "big/r3"])
        for (let i = 2; i <= 5; i++) await q.enqueue(repo, String(i));
      await q.enqueue("small/x", "1");
      release();
      await q.idle();

      expect(started[2]).toBe("small/x 1");
      expect(started).toHaveLength(15);
    },
  );

  it.skipIf(!available)(
    "events' jobs still go before the sweep's, and each class takes turns by installation",
    async () => {
      const { q, started, release } = await queue(1, 1);
      await q.enqueue("acme/a", "1");
      await until(() => started.length === 1, "acme/a's first job started");
      for (let i = 1; i <= 3; i++) await q.enqueue("acme/s", `reconcile:${i}`, "sweep");
      for (let i = 2; i <= 3; i++) await q.enqueue("acme/a", String(i));
      await q.enqueue("globex/c", "1");
      release();
      await q.idle();

      expect(started).toEqual([
        "acme/a 1",
        "globex/c 1",
        "acme/a 2",
        "acme/a 3",
        "acme/s reconcile:1",
        "acme/s reconcile:2",
        "acme/s reconcile:3",
      ]);
    },
  );
});
