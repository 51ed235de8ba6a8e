import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";

/**
 * The one answer to "can the tests use Redis here?" (the distributed mode's tests). Where no Redis
 * answers at PORCHLIGHT_TEST_REDIS_URL (default redis://127.0.0.1:6379), those tests skip with
 * `REDIS_MISSING` as their note; CI sets `PORCHLIGHT_REQUIRE_REDIS=1` (.ci/run), and then a missing
 * Redis fails the test file instead of letting the tests lapse.
 */
const REQUIRE_REDIS_ENV = "PORCHLIGHT_REQUIRE_REDIS";
export const TEST_REDIS_URL = process.env.PORCHLIGHT_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

async function whyNoRedis(url: string): Promise<string | undefined> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (err) {
    return `no Redis answers at ${url} (${err instanceof Error ? err.message : String(err)}): start one (redis-server --port 6379) or set PORCHLIGHT_TEST_REDIS_URL`;
  } finally {
    client.disconnect();
  }
}

function required(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env[REQUIRE_REDIS_ENV]?.trim();
  return v !== undefined && v !== "" && v !== "0";
}

/** Why Redis cannot be used by this test process (asked once per file), or undefined. */
export const REDIS_MISSING: string | undefined = await whyNoRedis(TEST_REDIS_URL);
if (REDIS_MISSING && required())
  throw new Error(
    `${REQUIRE_REDIS_ENV}=${process.env[REQUIRE_REDIS_ENV]}: the Redis tests must run, but ${REDIS_MISSING}`,
  );
if (REDIS_MISSING) console.warn(`skipping the distributed-mode tests: ${REDIS_MISSING}`);
export const hasRedis = REDIS_MISSING === undefined;

/** A key prefix of this test's own (parallel test files never share keys). */
export function testPrefix(name: string): string {
  return `porchlight-test-${name}-${randomBytes(4).toString("hex")}`;
}

/** Deletes every key under `prefix` (a test's cleanup). */
export async function dropPrefix(prefix: string): Promise<void> {
  const client = new Redis(TEST_REDIS_URL);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
      cursor = next;
      if (keys.length) await client.del(...keys);
    } while (cursor !== "0");
  } finally {
    client.disconnect();
  }
}
