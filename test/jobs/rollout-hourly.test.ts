import { describe, expect, it } from "vitest";
import type { Rollout } from "../../src/config/rollout-schema.js";
import type { FanoutState } from "../../src/jobs/fanout/read-state.js";
import { gateByRollout } from "../../src/jobs/fanout/rollout.js";
import type { RepoSnapshot } from "../../src/jobs/fanout/snapshot.js";
import type { FanoutAction } from "../../src/variants/index.js";
import { envVariant } from "../util/krm.js";
import { FakeRepo } from "./fake-repo.js";

const NOW = new Date();
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();
const ROLLOUT: Rollout = { prHourlyLimit: 1, steps: [{ name: "all", labels: { env: "dev" } }] };

const variant = (name: string) => envVariant(name, "dev");

/**
 * dev-1 is up to date (its update merged just now, in the last commit of its default branch); dev-2 needs
 * the update. `pulls` are dev-1's fan-out pull requests as GitHub lists them.
 */
async function plan(pulls: { createdAt: string; state: "open" | "closed"; merged: boolean }[]) {
  const repos = new Map<string, FakeRepo>();
  const snapshots = new Map<string, RepoSnapshot>();
  for (const name of ["dev-1", "dev-2"]) {
    const repo = new FakeRepo(`acme/${name}`);
    const baseSha = repo.commit("main", { "basens/Kptfile": "kind: Kptfile\n" }); // committed now
    repos.set(name, repo);
    snapshots.set(name, { port: repo, baseSha, pulls: [] } as unknown as RepoSnapshot);
  }
  const dev1 = repos.get("dev-1") as FakeRepo;
  for (const [i, p] of pulls.entries()) {
    const branch = `porchlight/variant/basens/dev-1${i ? `-${i}` : ""}`;
    dev1.branch(branch, "main");
    const pr = dev1.openPull(branch, p);
    if (p.state === "open") (snapshots.get("dev-1") as RepoSnapshot).pulls.push(pr);
  }
  const state = {
    variants: ["dev-1", "dev-2"].map((n) => ({ variant: variant(n) })),
    snapshots,
    pulls: new Map(),
    upstreamRepos: new Map(),
    upstream: {},
  } as unknown as FanoutState;
  const actions: FanoutAction[] = [
    {
      kind: "nothing",
      variant: "dev-1",
      downstream: { repo: "dev-1", package: "basens" },
      deployed: "v2",
      target: "v2",
      reason: "up to date",
    },
    {
      kind: "update",
      variant: "dev-2",
      upstream: { repo: "blueprints", package: "basens" },
      downstream: { repo: "dev-2", package: "basens" },
      branch: "porchlight/variant/basens/dev-2",
      from: "v1",
      to: "v2",
      toCommit: "c2",
      reason: "update",
    } as FanoutAction,
  ];
  const result = await gateByRollout(ROLLOUT, state, actions, NOW);
  const kind = result.actions.find((a) => a.variant === "dev-2")?.kind;
  const member = result.rollouts[0]?.steps[0]?.members.find((m) => m.variant === "dev-2");
  return kind === "skip" ? `held: ${member?.why}` : kind;
}

describe("prHourlyLimit counts pull requests opened in the last hour", () => {
  it("does not count an update merged within the hour whose pull request was opened earlier", async () => {
    expect(await plan([{ createdAt: ago(120), state: "closed", merged: true }])).toBe("update");
  });

  it("counts a pull request opened within the hour, merged or still open", async () => {
    expect(await plan([{ createdAt: ago(20), state: "closed", merged: true }])).toBe(
      "held: prHourlyLimit: 1 opened in the last hour",
    );
    expect(await plan([{ createdAt: ago(20), state: "open", merged: false }])).toBe(
      "held: prHourlyLimit: 1 opened in the last hour",
    );
  });

  it("counts one closed without merging within the hour, not one opened 61 minutes ago", async () => {
    expect(await plan([{ createdAt: ago(10), state: "closed", merged: false }])).toBe(
      "held: prHourlyLimit: 1 opened in the last hour",
    );
    expect(await plan([{ createdAt: ago(61), state: "closed", merged: false }])).toBe("update");
  });
});
