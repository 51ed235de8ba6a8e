import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { packageVariant } from "../util/krm.js";
import { type Ci, startCi } from "./ci-app.js";
import { startWorld, sweep, type World } from "./harness.js";

/**
 * A rollout that outlives its installation tokens: the forge mints tokens that live two minutes and the
 * clock moves on past them between the waves, while the app's token cache would keep them for an hour.
 * REST calls and git both renew the token on the 401 and go on. The clock moved is the process's own
 * (vitest's fake `Date`, timers left real), so the forge, the app and Octokit's token bookkeeping agree
 * on the time, as they do in production: Octokit's auth-app takes a 401 within 5 s of a token's
 * creation for GitHub's replication delay and waits 1 + 2 + 3 s before giving up on the token, which a
 * clock moved for the forge and the app alone made it do at every wave (9 s of this test's 16).
 */
const pv = (name: string, env: string) =>
  packageVariant({ name, labels: `{env: ${env}}`, upstream: "basens", repo: name });
const CONFIG = `rollout:
  steps:
    - name: dev
      labels: {env: dev}
      automerge: true
    - name: staging
      labels: {env: stg}
      minimumReleaseAge: 2m
`;

describe("a rollout longer than an installation token's life", () => {
  let w: World;
  let ci: Ci;
  /** Moves the clock of the whole process on by `ms`. */
  const later = (ms: number) => vi.setSystemTime(Date.now() + ms);
  const owner = "acme";
  const openPulls = async (repo: string) =>
    (await w.users.alice!.rest.pulls.list({ owner, repo, state: "open" })).data;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    w = await startWorld({
      ".github/porchlight.yml": CONFIG,
      ".porchlight/variants/fleet.yaml": [pv("dev-1", "dev"), pv("stg-1", "stg")].join("---\n"),
      "basens/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n",
      "basens/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
    });
    for (const repo of ["dev-1", "stg-1"]) {
      await w.forge.createRepo(`acme/${repo}`, { files: { "README.md": `# ${repo}\n` } });
      w.forge.setPermission(`acme/${repo}`, "alice", "write");
    }
    w.forge.setTokenLifetime(120_000);
    ci = await startCi(w, { repos: ["dev-1"] });
    await w.settle();
  }, 60_000);
  afterAll(async () => {
    ci?.close();
    await w?.stop();
    vi.useRealTimers();
  });

  it("renews expired tokens for REST and git, wave after wave", async () => {
    const { number } = await w.propose("drafts/basens/one", {
      "basens/cm.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  v: "1"\n',
    });
    expect(await w.say("bob", number, "/approve")).toContain("Published");
    const [pr] = await openPulls("dev-1");
    expect(pr).toBeDefined(); // its CI runs

    later(150_000); // every token minted so far has expired
    const refusedBefore = w.forge.requestLog.entries.filter((e) => e.status === 401).length;
    await ci.finish("dev-1", pr!.head.sha);
    expect(await openPulls("dev-1")).toEqual([]); // automerged on its CI's check_run, with renewed tokens
    const { data: main } = await w.users.alice!.rest.git.getRef({ owner, repo: "dev-1", ref: "heads/main" });
    await ci.finish("dev-1", main.object.sha); // the merge's CI passes: staging soaks from now
    await sweep(w);
    expect(await openPulls("stg-1")).toEqual([]); // soaking
    later(150_000);
    await sweep(w);
    expect((await openPulls("stg-1")).length).toBe(1);

    const refused = w.forge.requestLog.entries.filter((e) => e.status === 401).length - refusedBefore;
    expect(refused).toBeGreaterThan(0); // the tokens did expire on the way
    expect(w.forge.errors).toEqual([]);
  }, 120_000);
});
