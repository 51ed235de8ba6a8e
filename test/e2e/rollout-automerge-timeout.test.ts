import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ci, startCi } from "./ci-app.js";
import type { World } from "./harness.js";
import { settingsConfigMap as cm, type DevRollout, startDevRollout } from "./rollout-world.js";

/**
 * `automergeTimeout` on the app's virtual clock, over real HTTP and git: an automerge step's pull request
 * whose CI never finishes is left open while within the timeout; once past it, it is labelled
 * `porchlight/automerge-failed` and left to people: not merged even when its checks pass later, and
 * sweeps after that write nothing (the label is put on once).
 */
const CONFIG = `rollout:
  automergeTimeout: 30m
  steps:
    - name: dev
      labels: {env: dev}
      automerge: true
`;

describe("an automerge that times out (forge over HTTP and git, virtual clock)", () => {
  let r: DevRollout;
  let w: World;
  let offset = 0;
  let ci: Ci;
  const owner = "acme";
  const rest = () => w.users.alice!.rest;
  const sweep = () => r.sweep();
  const pulls = async () => (await rest().pulls.list({ owner, repo: "dev-1", state: "all" })).data;
  const dashboard = async () =>
    (await rest().issues.listForRepo({ owner, repo: "blueprints", labels: "porchlight/dashboard" })).data[0]
      ?.body ?? "";
  const GIVEN_UP = "not automerged within 30m: labelled porchlight/automerge-failed and left to people";
  const labelsOf = (p: { labels: { name?: string }[] }) => p.labels.map((l) => l.name);
  const writesOfSweep = () => r.writesOfSweep();

  beforeAll(async () => {
    r = await startDevRollout(CONFIG, ["basens"], { now: () => new Date(Date.now() + offset) });
    w = r.w;
    // The downstream's CI starts on every push, before the pull request opens, and never finishes alone.
    ci = await startCi(w, { repos: ["dev-1"] });
    await w.settle();
  }, 60_000);
  afterAll(async () => {
    expect(w?.forge.errors).toEqual([]);
    ci?.close();
    await w?.stop();
  });

  it("labels the pull request porchlight/automerge-failed past the timeout and leaves it to people, once", async () => {
    const { number } = await w.propose("drafts/basens/one", { "basens/cm.yaml": cm("1") });
    expect(await w.say("bob", number, "/approve")).toContain("Published");
    const [opened] = await pulls();
    expect(opened?.state).toBe("open");
    // The downstream's CI started on the pull request's head and does not finish.
    expect(ci.started.map((c) => c.sha)).toContain(opened!.head.sha);

    offset += 29 * 60_000;
    await sweep(); // within the timeout: waits, unlabelled
    let [pr] = await pulls();
    expect([pr?.state, pr?.merged_at ?? null]).toEqual(["open", null]);
    expect(labelsOf(pr!)).not.toContain("porchlight/automerge-failed");
    expect(await dashboard()).toContain("ci/e2e still running");

    offset += 2 * 60_000;
    await sweep(); // past it: labelled and left alone
    [pr] = await pulls();
    expect([pr?.state, pr?.merged_at ?? null]).toEqual(["open", null]);
    expect(labelsOf(pr!)).toContain("porchlight/automerge-failed");
    expect(await dashboard()).toContain(GIVEN_UP);

    // CI passes at last: still left to people, and nothing more is written.
    await ci.finish("dev-1", opened!.head.sha);
    expect(await writesOfSweep()).toEqual([]);
    [pr] = await pulls();
    expect([pr?.state, pr?.merged_at ?? null]).toEqual(["open", null]);
    expect(labelsOf(pr!).filter((l) => l === "porchlight/automerge-failed")).toHaveLength(1);
    expect(await dashboard()).toContain(GIVEN_UP);
  }, 60_000);
});
