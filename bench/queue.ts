import { RedisQueue } from "../src/queue/redis-queue.js";
import { RepoQueues } from "../src/queue/repo-queue.js";
import { dropPrefix, REDIS_MISSING, TEST_REDIS_URL, testPrefix } from "../test/util/redis.js";

/** What the other repositories' jobs waited, with and without a flood in one repository. */
export interface QueueBenchRow {
  backend: string;
  scenario: string;
  /** Jobs of the other repositories measured. */
  jobs: number;
  /** From queued to done, in seconds: mean, 95th percentile, max. */
  meanS: number;
  p95S: number;
  maxS: number;
}

const JOB_MS = 30;
const FLOOD = 200;
/** The other repositories (two installations), one job each every `EVERY_MS`. */
const OTHERS = ["acme/edge", "acme/site", "globex/app", "globex/web"];
const ROUNDS = 10;
const EVERY_MS = 150;

type Enqueue = (repo: string, key: string) => Promise<void>;

interface Backend {
  name: string;
  open(
    concurrency: number,
    run: (repo: string, key: string) => Promise<void>,
  ): Promise<{
    enqueue: Enqueue;
    idle(): Promise<void>;
    close(): Promise<void>;
  }>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const memory: Backend = {
  name: "one process",
  open: async (concurrency, run) => {
    const q = new RepoQueues(concurrency);
    return {
      enqueue: async (repo, key) => void q.enqueue({ repo, key, run: () => run(repo, key) }),
      idle: () => q.idle(),
      close: () => q.close(),
    };
  },
};

const redis: Backend = {
  name: "Redis",
  open: async (concurrency, run) => {
    const prefix = testPrefix("bench-queue");
    const q = new RedisQueue({
      url: TEST_REDIS_URL,
      prefix,
      concurrency,
      sweep: async () => {},
      sweepIntervalMs: 0,
      busyDelayMs: 500,
      run: (j) => run(j.repo, j.key),
    });
    await q.start({ sweepAtStart: false });
    return {
      enqueue: async (repo, key) => void (await q.enqueue({ repo, key, payload: null })),
      idle: () => q.idle(),
      close: async () => {
        await q.close();
        await dropPrefix(prefix);
      },
    };
  },
};

/**
 * The issue's measurement, on the queue alone: other repositories' jobs (every job `JOB_MS` of work)
 * queued every `EVERY_MS`, alone, then while `FLOOD` jobs of one repository (a flood of commands
 * before they were coalesced, or any repository's backlog) are worked through, then while `FLOOD`
 * jobs spread over 8 repositories of one installation (a fan-out's proposals) are; 4 jobs at once.
 */
async function measure(backend: Backend, floodRepos: number): Promise<QueueBenchRow> {
  const queuedAt = new Map<string, number>();
  const took: number[] = [];
  const q = await backend.open(4, async (repo, key) => {
    await sleep(JOB_MS);
    const at = queuedAt.get(`${repo} ${key}`);
    if (at !== undefined) took.push(performance.now() - at);
  });
  try {
    for (let i = 0; floodRepos > 0 && i < FLOOD; i++)
      await q.enqueue(`acme/blueprints-${i % floodRepos}`, `command:${i}`);
    for (let round = 0; round < ROUNDS; round++) {
      for (const repo of OTHERS) {
        queuedAt.set(`${repo} render:${round}`, performance.now());
        await q.enqueue(repo, `render:${round}`);
      }
      await sleep(EVERY_MS);
    }
    await q.idle();
  } finally {
    await q.close();
  }
  took.sort((a, b) => a - b);
  const s = (ms: number) => Math.round(ms) / 1000;
  return {
    backend: backend.name,
    scenario:
      floodRepos === 0
        ? "alone"
        : `during ${FLOOD} jobs queued in ${floodRepos === 1 ? "one repository" : `${floodRepos} repositories`} of acme`,
    jobs: took.length,
    meanS: s(took.reduce((a, b) => a + b, 0) / Math.max(1, took.length)),
    p95S: s(took[Math.floor(took.length * 0.95)] ?? 0),
    maxS: s(took[took.length - 1] ?? 0),
  };
}

export async function benchQueueFairness(): Promise<QueueBenchRow[]> {
  const rows: QueueBenchRow[] = [];
  for (const backend of REDIS_MISSING ? [memory] : [memory, redis])
    for (const floodRepos of [0, 1, 8]) rows.push(await measure(backend, floodRepos));
  return rows;
}
