import { clusterName, type FanoutBenchRow, FLEET_SET, fanoutBenchWorld } from "./fanout.js";

/**
 * A three-wave rollout over N downstreams (default 200, env ROLLOUT_BENCH_N) on the embedded forge with
 * its secondary rate limit on: wave 1 is 5% of the fleet, wave 2 the next 45%, wave 3 the rest
 * (maxConcurrent 50%). Each run opens what the rollout lets through; between runs the bench merges every
 * open pull request, as people would. Then two runs with nothing left: the first writes the dashboard's
 * "every step is done", the second writes nothing. Reports REST calls per pull request opened too.
 */
export async function benchRollout(): Promise<(FanoutBenchRow & { opened: number; restPerPR: number })[]> {
  const n = Number(process.env.ROLLOUT_BENCH_N ?? 200);
  const first = Math.max(1, Math.round(n * 0.05));
  const second = Math.max(first + 1, Math.round(n * 0.5));
  const names = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, i) => `fleet-${clusterName(from + i)}-basens`);
  const world = await fanoutBenchWorld(
    n,
    { ".porchlight/variants/fleet.yaml": FLEET_SET },
    {
      rollout: {
        steps: [
          { name: "canary", variants: names(0, first) },
          { name: "early", variants: names(first, second) },
          { name: "rest", variants: ["fleet-*"], maxConcurrent: "50%" },
        ],
      },
    },
  );
  const opened: number[] = [];
  try {
    const step = async (name: string) => {
      const report = await world.run(name);
      opened.push(report.pullRequests.filter((p) => p.action === "created").length);
    };
    await step("wave 1 (canary) opens");
    await world.mergeAll();
    await step("wave 2 opens");
    await world.mergeAll();
    await step("wave 3 opens, half at a time");
    await world.mergeAll();
    await step("wave 3, the other half");
    await world.mergeAll();
    await step("all done: the dashboard says so");
    await step("nothing to do");
    return world.rows.map((r, i) => ({
      ...r,
      opened: opened[i] ?? 0,
      restPerPR: opened[i] ? Math.round((r.restCalls / (opened[i] as number)) * 100) / 100 : 0,
    }));
  } finally {
    await world.stop();
  }
}
