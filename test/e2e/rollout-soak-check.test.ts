import { beforeAll, describe, expect, it } from "vitest";
import { packageVariant } from "../util/krm.js";
import { sweep, useWorld } from "./harness.js";

/**
 * `soak: pending-check`: the soaking step's pull request opens at once with a pending check run
 * `porchlight/rollout` ("Soaking until …"); automerge waits for it, and once the app's (virtual) clock is
 * past the soak time the check passes and the pull request is merged.
 */
const CONFIG = `rollout:
  soak: pending-check
  steps:
    - name: dev
      labels: {env: dev}
      automerge: true
      minimumReleaseAge: 30m
`;
const VARIANT = packageVariant({ name: "dev-1", labels: "{env: dev}", upstream: "basens", repo: "dev-1" });

describe("a soak shown as a pending check on the pull request", () => {
  let offset = 0;
  const owner = "acme";
  const rest = () => w.users.alice!.rest;
  const pulls = async () => (await rest().pulls.list({ owner, repo: "dev-1", state: "all" })).data;
  const rolloutCheck = async (sha: string) =>
    (await rest().checks.listForRef({ owner, repo: "dev-1", ref: sha })).data.check_runs.find(
      (r) => r.name === "porchlight/rollout",
    );

  const w = useWorld(
    {
      ".github/porchlight.yml": CONFIG,
      ".porchlight/variants/dev.yaml": VARIANT,
      "basens/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n",
      "basens/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
    },
    { now: () => new Date(Date.now() + offset) },
  );
  beforeAll(async () => {
    await w.forge.createRepo("acme/dev-1", { files: { "README.md": "# dev-1\n" } });
    w.forge.setPermission("acme/dev-1", "alice", "read");
    await w.settle();
  }, 60_000);

  it("opens the pull request with the check pending, and merges it once soaked", async () => {
    const { number } = await w.propose("drafts/basens/one", {
      "basens/cm.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  v: "1"\n',
    });
    expect(await w.say("bob", number, "/approve")).toContain("Published");
    const [opened] = await pulls();
    expect(opened?.state).toBe("open");
    const pending = await rolloutCheck(opened!.head.sha);
    expect(pending?.status).toBe("in_progress");
    expect(pending?.output.title).toMatch(/^Soaking until \S+Z$/);

    await sweep(w); // still soaking: not merged, the check as it was
    expect((await pulls())[0]?.state).toBe("open");
    expect((await rolloutCheck(opened!.head.sha))?.status).toBe("in_progress");

    offset += 31 * 60_000;
    await sweep(w);
    const passed = await rolloutCheck(opened!.head.sha);
    expect([passed?.status, passed?.conclusion]).toEqual(["completed", "success"]);
    expect((await pulls())[0]?.merged_at).toBeTruthy();
  }, 90_000);
});
