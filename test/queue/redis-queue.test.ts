import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { ENQUEUE } from "../../src/queue/fair-redis.js";
import { type QueuedJob, RedisQueue, type RedisQueueOptions } from "../../src/queue/redis-queue.js";
import { dropPrefix, hasRedis, REDIS_MISSING, TEST_REDIS_URL, testPrefix } from "../util/redis.js";
import { gate, until } from "../util/waits.js";

describe.skipIf(!hasRedis)(
  `the shared job queue on Redis${REDIS_MISSING ? ` (skipped: ${REDIS_MISSING})` : ""}`,
  () => {
    let prefix = "";
    const open: RedisQueue[] = [];
    const replica = (opts: Partial<RedisQueueOptions> & Pick<RedisQueueOptions, "run">): RedisQueue => {
      const q = new RedisQueue({
        url: TEST_REDIS_URL,
        prefix,
        concurrency: 3,
        sweep: async () => {},
        sweepIntervalMs: 0,
        busyDelayMs: 20,
        ...opts,
      });
      open.push(q);
      return q;
    };
    const job = (repo: string, key: string, payload: unknown = null): QueuedJob => ({ repo, key, payload });

    afterEach(async () => {
      await Promise.all(open.splice(0).map((q) => q.close({ abandon: true }).catch(() => {})));
      await dropPrefix(prefix);
    });

    it("runs one repository's jobs one at a time across two replicas, other repositories alongside", async () => {
      prefix = testPrefix("serial");
      const running = new Map<string, number>();
      const most = new Map<string, number>();
      let overall = 0;
      let mostOverall = 0;
      const ran: string[] = [];
      const run = async (j: QueuedJob) => {
        running.set(j.repo, (running.get(j.repo) ?? 0) + 1);
        most.set(j.repo, Math.max(most.get(j.repo) ?? 0, running.get(j.repo) ?? 0));
        mostOverall = Math.max(mostOverall, ++overall);
        await new Promise((resolve) => setTimeout(resolve, 15));
        ran.push(`${j.repo} ${j.key}`);
        overall--;
        running.set(j.repo, (running.get(j.repo) ?? 1) - 1);
      };
      const [a, b] = [replica({ run }), replica({ run })];
      await Promise.all([a.start({ sweepAtStart: false }), b.start({ sweepAtStart: false })]);
      for (let i = 0; i < 6; i++) {
        await (i % 2 ? a : b).enqueue(job("acme/one", `render:${i}`));
        await (i % 2 ? b : a).enqueue(job("acme/two", `render:${i}`));
      }
      await a.idle();

      expect(ran.sort()).toEqual(
        [0, 1, 2, 3, 4, 5].flatMap((i) => [`acme/one render:${i}`, `acme/two render:${i}`]).sort(),
      );
      expect(most.get("acme/one")).toBe(1);
      expect(most.get("acme/two")).toBe(1);
      expect(mostOverall).toBe(2);
    });

    it("a waiting job absorbs a new one with the same key (the newest runs); a running one never does", async () => {
      prefix = testPrefix("absorb");
      const started: string[] = [];
      const first = gate();
      const [a] = [
        replica({
          run: async (j) => {
            started.push(String(j.payload));
            if (started.length === 1) await first.promise;
          },
        }),
      ];
      await a.start({ sweepAtStart: false });
      const enqueued = [await a.enqueue(job("acme/one", "render:drafts/app/v1", "push 1"))];
      await until(() => started.length === 1, "the first push's job started", 10);
      enqueued.push(await a.enqueue(job("acme/one", "render:drafts/app/v1", "push 2")));
      enqueued.push(await a.enqueue(job("acme/one", "render:drafts/app/v1", "push 3")));
      first.open();
      await a.idle();
      // Same key, sequentially, on an idle queue: runs every time.
      enqueued.push(await a.enqueue(job("acme/one", "render:drafts/app/v1", "push 4")));
      await a.idle();

      expect(started).toEqual(["push 1", "push 3", "push 4"]);
      expect(enqueued).toEqual(["queued", "queued", "absorbed", "queued"]);
    });

    it("a webhook's job starts before the sweep's jobs still waiting; one repository at a time still", async () => {
      prefix = testPrefix("priority");
      const started: string[] = [];
      const running = new Set<string>();
      const overlaps: string[] = [];
      const first = gate();
      const a = replica({
        concurrency: 1,
        run: async (j) => {
          if (running.has(j.repo)) overlaps.push(j.repo);
          running.add(j.repo);
          started.push(`${j.repo} ${j.key}`);
          if (started.length === 1) await first.promise;
          running.delete(j.repo);
        },
      });
      await a.start({ sweepAtStart: false });
      for (let i = 0; i < 12; i++)
        await a.enqueue({ ...job(`acme/s${i}`, "reconcile:sweep"), origin: "sweep" });
      await until(() => started.length === 1, "the sweep's first job started", 10);
      // A push to another repository, and a command on the repository whose sweep job is running.
      await a.enqueue({ ...job("acme/hook", "render:drafts/app/v2"), origin: "event" });
      await a.enqueue(job("acme/s0", "command:7"));
      first.open();
      await a.idle();

      expect(started.slice(0, 3)).toEqual([
        "acme/s0 reconcile:sweep",
        "acme/hook render:drafts/app/v2",
        "acme/s0 command:7",
      ]);
      expect(started).toHaveLength(14);
      expect(overlaps).toEqual([]);
    });

    it("a job that waited for its repository starts before another installation's burst queued after it", async () => {
      prefix = testPrefix("oldest");
      const started: string[] = [];
      const first = gate();
      const burst = gate();
      const a = replica({
        concurrency: 2,
        run: async (j) => {
          started.push(`${j.repo} ${j.key}`);
          if (j.key === "render:drafts/app/v1") await first.promise;
          if (j.repo.startsWith("big/")) await burst.promise;
        },
      });
      await a.start({ sweepAtStart: false });
      // Installation "small": a push being rendered, and a command on that repository behind it.
      await a.enqueue(job("small/app", "render:drafts/app/v1"));
      await until(() => started.length === 1, "the render started", 10);
      await a.enqueue(job("small/app", "command:4"));
      // Then installation "big" publishes: its fan-out opens proposals in six repositories at once.
      for (let i = 1; i <= 6; i++) await a.enqueue(job(`big/edge-${i}`, "check:1"));
      await until(() => started.length >= 2, "the burst's first job started in the free slot", 10);
      first.open();
      await until(() => started.length >= 3, "the render's slot taken again", 10);
      burst.open();
      await a.idle();

      expect(started.slice(0, 3)).toEqual([
        "small/app render:drafts/app/v1",
        "big/edge-1 check:1",
        "small/app command:4",
      ]);
      expect(started).toHaveLength(8);
    });

    it("a job whose replica dies mid-way is run by another replica, once", async () => {
      prefix = testPrefix("stalled");
      const timing = { lockMs: 600, stalledIntervalMs: 150 };
      const inA = gate();
      const ranOn: string[] = [];
      const retries: string[] = [];
      const a = replica({
        ...timing,
        run: async () => {
          ranOn.push("a");
          inA.open();
          await new Promise(() => {}); // dies here: never finishes, never fails
        },
      });
      await a.start({ sweepAtStart: false });
      await a.enqueue(job("acme/one", "publish:7"));
      await inA.promise;
      await a.close({ abandon: true });
      const b = replica({
        ...timing,
        run: async () => {
          ranOn.push("b");
        },
        onRetry: (reason) => retries.push(reason),
      });
      await b.start({ sweepAtStart: false });
      await b.idle();

      expect(ranOn).toEqual(["a", "b"]);
      expect(retries).toContain("stalled");
    });

    it("a job queued by a replica killed before it handed the job's turn to BullMQ is run by the next start", async () => {
      prefix = testPrefix("repair");
      // What enqueue does up to its kill: the job held in Redis, its turn issued, never added to BullMQ.
      const raw = new Redis(TEST_REDIS_URL);
      const answer = (await raw.eval(
        ENQUEUE,
        0,
        `${prefix}:jobs:fair`,
        "acme/one",
        "command:7",
        "acme",
        "event",
        JSON.stringify("the comment"),
        "job-1",
        Date.now(),
      )) as unknown[];
      expect(answer[0]).toBe("queued");
      expect(await raw.scard(`${prefix}:jobs:fair:jobs`)).toBe(1);
      raw.disconnect();
      const ran: unknown[] = [];
      const a = replica({ run: async (j) => void ran.push(j.payload) });
      await a.start({ sweepAtStart: false });
      await a.idle();

      expect(ran).toEqual(["the comment"]);
      expect(await a.counts()).toEqual({ waiting: 0, active: 0, delayed: 0, prioritized: 0, held: 0 });
    });

    it("the fleet sweeps once per period, whatever the number of replicas", async () => {
      prefix = testPrefix("sweep");
      const sweeps: string[] = [];
      const sweep = async (id: string) => {
        sweeps.push(id);
      };
      const [a, b, c] = [0, 1, 2].map(() => replica({ run: async () => {}, sweep, sweepIntervalMs: 100 }));
      await Promise.all([a, b, c].map((q) => q?.start({ sweepAtStart: false })));
      await until(() => sweeps.length >= 5, "five sweeps", 10);
      await Promise.all([a, b, c].map((q) => q?.close()));

      const periods = sweeps.map((id) => Math.floor(Number(id.split(":").pop()) / 100));
      expect(new Set(sweeps).size).toBe(sweeps.length);
      expect(new Set(periods).size).toBe(periods.length);
    });
  },
);
