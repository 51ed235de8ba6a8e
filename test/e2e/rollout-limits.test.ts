import { describe, expect, it } from "vitest";
import { useDevRollout } from "./rollout-world.js";

/**
 * prConcurrentLimit over real HTTP and git: two packages fan out to one downstream
 * repository with `prConcurrentLimit: 1`, so one update pull request is open and the other is held back
 * and listed on the dashboard until the first merges; a sweep with nothing to do then writes nothing.
 */
const CONFIG = `rollout:
  prConcurrentLimit: 1
  steps:
    - name: dev
      labels: {env: dev}
`;

describe("prConcurrentLimit across packages (forge over HTTP and git)", () => {
  const r = useDevRollout(CONFIG, ["basens", "web"]);

  it("prConcurrentLimit: one open per repository, the other held and listed, opened once the first merges", async () => {
    await r.publish("basens", "1");
    await r.publish("web", "1");
    expect(await r.openBranches()).toEqual(["porchlight/variant/basens/dev-1-basens"]);
    expect((await r.dashboard()).body).toContain("- dev: dev-1/web — prConcurrentLimit: 1 open in dev-1");

    expect(await r.writesOfSweep()).toEqual([]); // still one open: nothing changes
    expect(await r.openBranches()).toEqual(["porchlight/variant/basens/dev-1-basens"]);

    await r.mergeAll();
    await r.sweep();
    expect(await r.openBranches()).toEqual(["porchlight/variant/web/dev-1-web"]);
    expect((await r.dashboard()).body).not.toContain("Held back by a limit");
    expect(await r.writesOfSweep()).toEqual([]);
  }, 60_000);
});
