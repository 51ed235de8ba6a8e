import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { type HeardNotice, RedisNotices } from "../../src/queue/redis-notices.js";
import { dropPrefix, hasRedis, REDIS_MISSING, TEST_REDIS_URL, testPrefix } from "../util/redis.js";
import { until } from "../util/waits.js";

describe.skipIf(!hasRedis)(
  `notices every replica hears, numbered per key (RedisNotices)${REDIS_MISSING ? ` (skipped: ${REDIS_MISSING})` : ""}`,
  () => {
    const open: RedisNotices[] = [];
    let prefix = "";
    afterEach(async () => {
      for (const n of open.splice(0)) await n.close();
      if (prefix) await dropPrefix(prefix);
    });

    const replica = async (name: string, heard: HeardNotice[], gaps: string[]) => {
      const n = new RedisNotices({ url: TEST_REDIS_URL, prefix, replica: name });
      open.push(n);
      await n.listen(
        (h) => heard.push(h),
        () => gaps.push(name),
      );
      return n;
    };

    it("every replica hears each notice in its key's order, its own marked; a lost subscription is told as a gap and heard again after it", async () => {
      prefix = testPrefix("notices");
      const [heardA, heardB, gaps]: [HeardNotice[], HeardNotice[], string[]] = [[], [], []];
      const a = await replica("a", heardA, gaps);
      const b = await replica("b", heardB, gaps);
      expect(await a.sequence("acme")).toBe(0);
      const told = await Promise.all([1, 2, 3].map((i) => (i % 2 ? a : b).tell({ i }, "acme")));
      expect([...told].sort()).toEqual([1, 2, 3]);
      await a.tell({ webhook: true });
      await until(() => heardA.length === 4 && heardB.length === 4, "both replicas heard four notices");
      // the numbers in the order heard, the same on both
      const order = (h: HeardNotice[]) => h.filter((n) => n.key === "acme").map((n) => n.seq);
      expect(order(heardA)).toEqual([1, 2, 3]);
      expect(order(heardB)).toEqual([1, 2, 3]);
      expect(heardB.find((n) => n.key === undefined)).toMatchObject({ body: { webhook: true }, own: false });
      expect(heardA.find((n) => n.key === undefined)?.own).toBe(true);
      expect(await b.sequence("acme")).toBe(3);

      // Redis drops b's subscription (a restart of Redis, a network cut): b hears of the gap, then hears on
      const admin = new Redis(TEST_REDIS_URL);
      try {
        const clients = String(await admin.call("CLIENT", "LIST", "TYPE", "pubsub"));
        const id = new RegExp(`id=(\\d+) .*name=${prefix}-notices-b `).exec(clients)?.[1];
        expect(id).toBeDefined();
        await admin.call("CLIENT", "KILL", "ID", id as string);
      } finally {
        admin.disconnect();
      }
      await until(() => gaps.includes("b"), "b told of the gap", 20, 1000);
      expect(b.listening).toBe(true);
      await a.tell({ after: true }, "acme");
      await until(() => heardB.some((n) => n.seq === 4), "b hears the notice told after the gap");
      expect(gaps).toEqual(["b"]);
    });
  },
);
