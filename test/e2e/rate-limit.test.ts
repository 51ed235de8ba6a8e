import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dropPrefix, hasRedis, REDIS_MISSING, TEST_REDIS_URL, testPrefix } from "../util/redis.js";
import { branchHead, checkRuns, startWorld, WEB_KPTFILE, type World, webSettings } from "./harness.js";

/**
 * The installation's REST budget spent, over real HTTP and git on the forge: the job that meets it does
 * not wait for the reset inside a call (an hour on GitHub); it is parked, /healthz says degraded and why,
 * the metrics count it, and it runs once the budget is back — the forge's window is one minute on a
 * virtual clock the app shares, so nothing here waits for wall-clock time to pass.
 */
const QUEUES = [
  { queue: "the in-process queue", skip: false, redis: () => undefined },
  {
    queue: `Redis (BullMQ) ${REDIS_MISSING ?? ""}`,
    skip: !hasRedis,
    redis: () => ({ url: TEST_REDIS_URL, prefix: testPrefix("rate-limit") }),
  },
];

describe.each(QUEUES)(
  "a spent rate limit parks the job, reports it, and resumes after the reset, with $queue (forge over HTTP and git)",
  ({ skip, redis }) => {
    let w: World;
    let clock = Date.now();
    const now = () => new Date(clock);
    const settings = redis();

    beforeAll(async () => {
      if (skip) return;
      w = await startWorld(
        {
          "apps/web/Kptfile": WEB_KPTFILE,
          "apps/web/cm.yaml": webSettings("0"),
        },
        { now, forgeNow: now, maxWaitS: 5, parkPollMs: 10, ...(settings ? { redis: settings } : {}) },
      );
    });
    afterAll(async () => {
      await w?.stop();
      if (settings) await dropPrefix(settings.prefix);
    });

    const text = async (path: string) => (await fetch(`${w.app.url}${path}`)).text();
    const renderChecks = async (sha: string) =>
      (await checkRuns(w, sha)).filter((r) => r.name === "porchlight/render").length;

    it.skipIf(skip)(
      "parks while the budget is spent, says so in /healthz and /metrics, and renders the draft after the reset",
      async () => {
        const installation = w.forge.core.store.data.installations[0]?.id;
        w.forge.rateLimit.primary({ windowMs: 60_000 });
        w.forge.rateLimit.exhaust(`installation:${installation}`);
        expect(await text("/healthz")).toMatch(/^ok\n/);

        const branch = "drafts/apps/web/spent";
        await (await w.clone("alice")).push(branch, { "apps/web/cm.yaml": webSettings("1") });
        await w.settle();
        const pushed = await branchHead(w, branch);
        expect(await renderChecks(pushed)).toBe(0);
        // each refused call asked once, then the job parked: not asked again and again for the hour (maxWaitS)
        const refused = w.forge.requestLog
          .filter({ status: 403, installationId: installation })
          .map((r) => `${r.method} ${r.path}`);
        expect(refused.length).toBeGreaterThan(0);
        expect(refused).toEqual([...new Set(refused)]);
        const health = await text("/healthz");
        expect(health).toMatch(
          new RegExp(
            `^degraded\\nrate limit: installation ${installation}'s GitHub budget is spent until \\S+Z; 1 job parked until then \\(.*API rate limit exceeded`,
          ),
        );
        const parked = await text("/metrics");
        expect(parked).toMatch(/^porchlight_jobs_parked_total\{kind="render",reason="rate-limit"[^}]*\} 1$/m);
        expect(parked).toMatch(/^porchlight_parked_jobs(\{[^}]*\})? 1$/m);

        // the window ends on the shared clock: the parked job is queued again and runs
        clock += 61_000;
        const stillParked = async () =>
          /^porchlight_parked_jobs(\{[^}]*\})? 1$/m.test(await text("/metrics"));
        for (let i = 0; i < 10_000 && (await stillParked()); i++) await new Promise((r) => setImmediate(r));
        await w.settle();
        expect(await text("/healthz")).toMatch(/^ok\n/);
        const rendered = await branchHead(w, branch);
        expect(rendered).not.toBe(pushed);
        expect(await renderChecks(rendered)).toBe(1);
        expect(await text("/metrics")).toMatch(/^porchlight_parked_jobs(\{[^}]*\})? 0$/m);
      },
      120_000,
    );

    it.skipIf(skip)(
      "stops in bounded time with a job parked, leaving it to the next start",
      async () => {
        const installation = w.forge.core.store.data.installations[0]?.id;
        w.forge.rateLimit.exhaust(`installation:${installation}`);
        await (await w.clone("alice")).push("drafts/apps/web/stop", { "apps/web/cm.yaml": webSettings("2") });
        await w.settle();
        expect(await text("/healthz")).toMatch(/^degraded\n/);
        await w.app.close();
      },
      120_000,
    );
  },
);
