import { type Forge, startForge } from "@porchlight/forge";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { ConditionalCache } from "../../src/github/conditional-cache.js";
import { tokenOctokit } from "../../src/github/octokit.js";
import { SharedAnswers } from "../../src/github/shared-answers.js";
import { dropPrefix, hasRedis, REDIS_MISSING, TEST_REDIS_URL, testPrefix } from "../util/redis.js";
import { until } from "../util/waits.js";

const repo = { owner: "alice", repo: "blueprints" };

describe.skipIf(!hasRedis)(
  `GitHub's answers shared by the replicas of a fleet (SharedAnswers)${REDIS_MISSING ? ` (skipped: ${REDIS_MISSING})` : ""}`,
  () => {
    let forge: Forge | undefined;
    let redis: Redis | undefined;
    let prefix = "";
    afterEach(async () => {
      await forge?.stop();
      redis?.disconnect();
      if (prefix) await dropPrefix(prefix);
    });

    it("a replica asking what another read is answered 304 (not counted), a change in full, and one token's answers never serve another", async () => {
      forge = await startForge();
      prefix = testPrefix("shared-answers");
      redis = new Redis(TEST_REDIS_URL);
      const f = forge;
      const alice = f.createUser("alice", { pat: true }).pat as string;
      const bob = f.createUser("bob", { pat: true }).pat as string;
      await f.createRepo("alice/blueprints", { autoInit: true, description: "first" });
      f.setPermission("alice/blueprints", "bob", "read");
      // two replicas: each its own memory, one Redis
      const [one, two] = [0, 1].map(() => new SharedAnswers(new ConditionalCache(), redis as Redis, prefix));
      const client = (token: string, cache: SharedAnswers) =>
        tokenOctokit(token, {
          writeIntervalMs: 0,
          rateLimitRetries: 0,
          apiUrl: f.apiUrl,
          conditional: cache,
        });
      const statuses = (login: string) =>
        f.requestLog.filter({ method: "GET", route: "/repos/{owner}/{repo}", login }).map((e) => e.status);
      /** Until Redis holds the answer of ETag `etag` (a replica keeps it without waiting). */
      const shared = (etag: unknown) =>
        until(async () => {
          const keys = await (redis as Redis).keys(`${prefix}:api:answers:*`);
          const etags = await Promise.all(keys.map((k) => (redis as Redis).hget(k, "etag")));
          return etags.includes(String(etag));
        }, `the answer ${etag} shared`);

      await shared((await client(alice, one as SharedAnswers).rest.repos.get(repo)).headers.etag);
      const there = await client(alice, two as SharedAnswers).rest.repos.get(repo);
      expect(there.data.description).toBe("first");
      expect(statuses("alice")).toEqual([200, 304]);

      await client(alice, one as SharedAnswers).rest.repos.update({ ...repo, description: "second" });
      await shared((await client(alice, one as SharedAnswers).rest.repos.get(repo)).headers.etag);
      const changed = await client(alice, two as SharedAnswers).rest.repos.get(repo);
      expect(changed.data.description).toBe("second");
      expect(statuses("alice")).toEqual([200, 304, 200, 304]);

      // bob's first read is his own: asked in full
      await client(bob, two as SharedAnswers).rest.repos.get(repo);
      expect(statuses("bob")).toEqual([200]);
    });
  },
);
