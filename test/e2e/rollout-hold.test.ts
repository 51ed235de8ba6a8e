import { describe, expect, it } from "vitest";
import { useDevRollout } from "./rollout-world.js";

/**
 * `/rollout hold` and `/rollout resume` on the dashboard issue over real HTTP and git: a hold (write
 * permission; a read-only user is refused with a reply) keeps a newly published revision's pull request
 * from opening, sweep after sweep, without writing anything; `/rollout resume` lets it open, and a sweep
 * after that writes nothing.
 */
const CONFIG = `rollout:
  steps:
    - name: dev
      labels: {env: dev}
`;

describe("/rollout hold and resume on the dashboard issue (forge over HTTP and git)", () => {
  const r = useDevRollout(CONFIG, ["basens"]);

  it("/rollout hold stops pull requests from opening (write permission only); /rollout resume opens them", async () => {
    const { w } = r;
    await r.publish("basens", "1");
    expect(await r.openBranches()).toEqual(["porchlight/variant/basens/dev-1-basens"]);
    await r.mergeAll();
    await r.sweep();
    const board = await r.dashboard();

    w.forge.setPermission("acme/blueprints", "rita", "read");
    expect(await w.say("rita", board.number, "/rollout hold")).toContain("needs write permission");
    expect(await r.labels()).not.toContain("porchlight/rollout-hold");

    expect(await w.say("alice", board.number, "/rollout hold")).toContain("Rollout on hold");
    expect(await r.labels()).toContain("porchlight/rollout-hold");
    await r.publish("basens", "2");
    await r.sweep();
    expect(await r.openBranches()).toEqual([]);
    expect(await r.writesOfSweep()).toEqual([]);

    expect(await w.say("alice", board.number, "/rollout resume")).toContain("Rollout resumed");
    await r.sweep();
    expect(await r.labels()).not.toContain("porchlight/rollout-hold");
    expect(await r.openBranches()).toEqual(["porchlight/variant/basens/dev-1-basens"]);
    expect(await r.writesOfSweep()).toEqual([]);
  }, 60_000);
});
