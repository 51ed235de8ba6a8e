import { type Forge, startForge } from "@porchlight/forge";
import { Redis } from "ioredis";
import { pino } from "pino";
import { Probot } from "probot";
import { afterEach, describe, expect, it } from "vitest";
import { clusteredPacing, porchlightOctokit } from "../../src/github/octokit.js";
import { dropPrefix, hasRedis, REDIS_MISSING, TEST_REDIS_URL, testPrefix } from "../util/redis.js";

interface Rest {
  rest: {
    issues: { create(p: object): Promise<{ status: number }> };
    repos: { get(p: object): Promise<unknown> };
  };
}

describe.skipIf(!hasRedis)(
  `write pacing and GitHub's secondary limit, shared by the replicas of one app (Bottleneck on Redis)${REDIS_MISSING ? ` (skipped: ${REDIS_MISSING})` : ""}`,
  () => {
    let forge: Forge | undefined;
    const closers: (() => Promise<void>)[] = [];
    let prefix = "";
    afterEach(async () => {
      for (const close of closers.splice(0)) await close();
      await forge?.stop();
      forge = undefined;
      await dropPrefix(prefix);
    });

    /**
     * A forge with acme/r and the app installed on acme, its Redis keys under a prefix of `name`; `replica`
     * makes one replica's client for the installation: its own Bottleneck groups, clustered on Redis.
     */
    async function installed(name: string) {
      const started = await startForge();
      forge = started;
      prefix = testPrefix(name);
      const creds = started.createApp({ name: "porchlight", owner: "acme" });
      started.createUser("acme", { type: "Organization" });
      await started.createRepo("acme/r", { autoInit: true });
      const installation = started.createInstallation(creds.appId, "acme");
      const replica = async (rateLimitRetries: number): Promise<Rest> => {
        const pacing = clusteredPacing(TEST_REDIS_URL, `${prefix}-app`, () => {});
        closers.push(pacing.close);
        const probot = new Probot({
          appId: creds.appId,
          privateKey: creds.privateKeyPem,
          baseUrl: started.apiUrl,
          log: pino({ level: "silent" }),
          Octokit: porchlightOctokit({ writeIntervalMs: 0, rateLimitRetries, cluster: pacing.cluster }),
        });
        return (await probot.auth(installation.id)) as unknown as Rest;
      };
      return { forge: started, replica };
    }

    it("a write refused with retry-after holds the installation's writes in the other replica for the wait", async () => {
      const { forge, replica } = await installed("secondary");
      const [a, b] = [await replica(2), await replica(2)];
      const r = { owner: "acme", repo: "r" };
      await Promise.all([a.rest.repos.get(r), b.rest.repos.get(r)]);
      const log = () => forge.requestLog.entries.map((e) => `${e.method} ${e.path} ${e.status}`);

      // Replica a's write meets the secondary limit (retry-after 5 s); the limit then lifts.
      forge.rateLimit.secondary({ everyNthMutation: 1, retryAfter: 5 });
      const first = a.rest.issues.create({ ...r, title: "from a" });
      await forge.waitFor(() => log().some((l) => l.endsWith(" 403")), "a's write refused");
      forge.rateLimit.secondary(null);
      // Replica b writes for the same installation meanwhile, then reads three times.
      const second = b.rest.issues.create({ ...r, title: "from b" });
      for (let i = 0; i < 3; i++) await b.rest.repos.get(r);
      const probed = log().length;
      await Promise.all([first, second]);

      const writes = log().filter((l) => l.startsWith("POST /repos/acme/r/issues"));
      expect(writes).toEqual([
        "POST /repos/acme/r/issues 403",
        "POST /repos/acme/r/issues 201",
        "POST /repos/acme/r/issues 201",
      ]);
      // The installation's next write (b's, or a's retry) reached GitHub only after the wait: after b's reads.
      const all = log();
      const refused = all.indexOf("POST /repos/acme/r/issues 403");
      const next = all.findIndex((l, i) => i > refused && l === "POST /repos/acme/r/issues 201");
      expect(next).toBeGreaterThanOrEqual(probed);
    }, 30_000);

    it("an installation quiet until its pacing's keys expired in Redis writes again", async () => {
      const client = await (await installed("pacing-expiry")).replica(0);
      const r = { owner: "acme", repo: "r" };
      await client.rest.issues.create({ ...r, title: "before" });
      // Bottleneck's keys of the installation's limiters expire after the group's timeout (5 minutes
      // quiet): gone, as Redis leaves them then.
      const redis = new Redis(TEST_REDIS_URL);
      try {
        const keys = await redis.keys(`b_${prefix}-app-*`);
        expect(keys.length).toBeGreaterThan(0);
        await redis.del(...keys);
      } finally {
        redis.disconnect();
      }

      await expect(client.rest.issues.create({ ...r, title: "after" })).resolves.toMatchObject({
        status: 201,
      });
    }, 30_000);
  },
);
