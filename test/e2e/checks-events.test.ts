import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ci, startCi } from "./ci-app.js";
import { useWorld } from "./harness.js";
import { settingsConfigMap as cm, devVariant } from "./rollout-world.js";

/**
 * Checks drive fan-out, over real HTTP and git, with no sweep and no sleep: a publish fans out to the dev
 * wave (automerge) in dev-1 and dev-2, whose CI — another app, reporting a check run in dev-1 and a
 * commit status in dev-2 — starts on every push and is finished by the test. Each finished check is a
 * webhook (check_run, check_suite, status) that merges the pull request it concerns, then, once the
 * checks on the merged default branches pass, opens the staging wave; the dashboard follows. A sweep
 * afterwards finds nothing to do: porchlight_sweep_actions_total stays at zero.
 */
const CONFIG = `rollout:
  steps:
    - name: dev
      labels: {env: dev}
      automerge: true
    - name: staging
      labels: {env: staging}
`;

const variant = (name: string, env: string) =>
  devVariant("basens")
    .replace("name: dev-1-basens", `name: ${name}-basens`)
    .replace("{env: dev}", `{env: ${env}}`)
    .replace("repo: dev-1", `repo: ${name}`);

const OWNER = "acme";
const DOWNSTREAMS = ["dev-1", "dev-2", "stg-1"];

describe("checks and statuses drive automerge, rollout gates and the dashboard (forge over HTTP and git)", () => {
  let ci: Ci;
  const rest = () => w.users.alice!.rest;
  const pulls = async (repo: string) =>
    (await rest().pulls.list({ owner: OWNER, repo, state: "all" })).data.filter((p) =>
      p.head.ref.startsWith("porchlight/variant/"),
    );
  const head = async (repo: string) =>
    (await rest().git.getRef({ owner: OWNER, repo, ref: "heads/main" })).data.object.sha;
  const dashboard = async () =>
    (await rest().issues.listForRepo({ owner: OWNER, repo: "blueprints", labels: "porchlight/dashboard" }))
      .data[0]?.body ?? "";
  const sweeps = async () => (await w.app.metrics.sweeps.get()).values.reduce((n, v) => n + v.value, 0);
  const sweepActions = async () => (await w.app.metrics.sweepActions.get()).values;

  const w = useWorld({
    ".github/porchlight.yml": CONFIG,
    ".porchlight/variants/fleet.yaml": [
      variant("dev-1", "dev"),
      variant("dev-2", "dev"),
      variant("stg-1", "staging"),
    ].join("---\n"),
    "basens/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n",
    "basens/cm.yaml": cm("0"),
  });
  beforeAll(async () => {
    for (const repo of DOWNSTREAMS) {
      await w.forge.createRepo(`${OWNER}/${repo}`, { files: { "README.md": `# ${repo}\n` } });
      w.forge.setPermission(`${OWNER}/${repo}`, "alice", "write");
    }
    // dev-2's CI reports a commit status, the others' a check run.
    ci = await startCi(w, { repos: DOWNSTREAMS, statuses: ["dev-2"] });
    await w.settle();
  }, 60_000);
  afterAll(async () => {
    expect(w.forge.errors).toEqual([]);
    ci?.close();
  });

  it("merges each fan-out pull request when its CI finishes, opens the next wave when the merges' CI passes, and leaves the sweep nothing", async () => {
    const { number } = await w.propose("drafts/basens/v2", { "basens/cm.yaml": cm("2") });
    expect(await w.say("bob", number, "/approve")).toContain("Published");

    // The dev wave is open, held by CI: pending on both heads, guardrails passed.
    const [dev1] = await pulls("dev-1");
    const [dev2] = await pulls("dev-2");
    expect([dev1?.state, dev2?.state]).toEqual(["open", "open"]);
    expect(await pulls("stg-1")).toEqual([]);

    // dev-1's CI (a check run) finishes: that event merges dev-1's pull request, and only it.
    await ci.finish("dev-1", dev1!.head.sha);
    expect((await pulls("dev-1"))[0]?.merged_at).toBeTruthy();
    expect((await pulls("dev-2"))[0]?.state).toBe("open");

    // dev-2's CI (a commit status) finishes: merged too.
    await ci.finish("dev-2", dev2!.head.sha);
    expect((await pulls("dev-2"))[0]?.merged_at).toBeTruthy();

    // Each merge started CI on its default branch: staging waits for both to pass.
    expect(await pulls("stg-1")).toEqual([]);
    await ci.finish("dev-1", await head("dev-1"));
    expect(await pulls("stg-1")).toEqual([]);
    await ci.finish("dev-2", await head("dev-2"));
    const [stg] = await pulls("stg-1");
    expect(stg?.state).toBe("open");
    expect(await dashboard()).toContain(`#${String(stg?.number)}`);

    // All on events: no sweep ran, nothing slept.
    expect(await sweeps()).toBe(0);

    // The safety net: a sweep now finds nothing to do, and says so.
    await w.app.sweep();
    await w.settle();
    expect(await sweeps()).toBe(1);
    expect(await sweepActions()).toEqual([]);
  }, 120_000);
});
