import { beforeAll, describe, expect, it } from "vitest";
import { type Clone, sweep, useWorld } from "./harness.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n";
const configMap = (name: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  n: "${name}"\n`;
const LIST_CHECKS = "/repos/{owner}/{repo}/commits/{ref}/check-runs";

/**
 * Pushes to a proposal faster than porchlight checks them: the heads in between are passed over (the
 * waiting job checks the newest), and each of them still shows a status, naming the head that was
 * checked — while the app is busy, and after a restart that lost its queue.
 */
describe("every head of a proposal gets a status (forge over HTTP and git)", () => {
  let alice: Clone;
  const [owner, repo] = ["acme", "blueprints"];
  const branch = "drafts/apps/web/burst";
  const checks = async (sha: string) =>
    Object.fromEntries(
      (await w.users.alice!.rest.checks.listForRef({ owner, repo, ref: sha })).data.check_runs
        .filter((r) => r.status === "completed")
        .map((r) => [r.name, { conclusion: r.conclusion, text: `${r.output.title}\n${r.output.summary}` }]),
    );
  /** One commit on top of the branch's head in alice's clone, pushed; its sha. */
  const pushOne = async (n: number) => {
    alice.write({ [`apps/web/cm-${n}.yaml`]: configMap(`cm-${n}`) });
    await alice.git("add", "-A");
    await alice.git("commit", "--quiet", "-m", `push ${n}`);
    await alice.git("push", "--quiet", "origin", `HEAD:refs/heads/${branch}`);
    return alice.git("rev-parse", "HEAD");
  };
  const pushed = async (sha: string) =>
    w.forge.waitFor(
      () => w.forge.webhooks.find("push").some((d) => (d.payload as { after?: string }).after === sha),
      `the push of ${sha}`,
    );
  const expectPassedOver = async (
    sha: string,
    checked: string,
    names = ["porchlight/render", "porchlight/guardrails"],
  ) => {
    const runs = await checks(sha);
    for (const name of names) {
      expect(runs[name]?.conclusion, `${name} on ${sha}`).toBe("neutral");
      expect(runs[name]?.text).toContain(`${checked.slice(0, 7)} was checked instead`);
      expect(runs[name]?.text).toContain(
        `(${w.forge.url.replace(/\/$/, "")}/${owner}/${repo}/commit/${checked})`,
      );
    }
  };
  const expectChecked = async (sha: string) => {
    const runs = await checks(sha);
    expect([runs["porchlight/render"]?.conclusion, runs["porchlight/guardrails"]?.conclusion]).toEqual([
      "success",
      "success",
    ]);
  };

  const w = useWorld({
    ".github/porchlight.yml": "guardrails: []\n",
    "apps/web/Kptfile": KPTFILE,
    "apps/web/cm-0.yaml": configMap("cm-0"),
  });
  beforeAll(async () => {
    await w.propose(branch, { "apps/web/cm-1.yaml": configMap("cm-1") });
    alice = await w.clone("alice");
    await alice.git("checkout", "--quiet", "-B", branch, `origin/${branch}`);
  }, 60_000);

  it("three pushes while the app is busy: the last head is checked, the two before it name it", async () => {
    // The first push's job is held at its first read of check runs: the app is busy, the rest queue.
    const hold = w.forge.faults.add({ route: LIST_CHECKS, method: "GET", times: 1, hang: true });
    const first = await pushOne(2);
    await w.forge.waitFor(() => w.forge.faults.holding(hold) === 1, "the first push's job");
    const second = await pushOne(3);
    await pushed(second);
    const third = await pushOne(4);
    await pushed(third);
    w.forge.faults.release(hold);
    await w.settle();
    await expectChecked(third);
    // The held job was the first push's render: that head is rendered; its proposal check was passed over.
    expect((await checks(first))["porchlight/render"]?.conclusion).toBe("success");
    await expectPassedOver(first, third, ["porchlight/guardrails"]);
    await expectPassedOver(second, third);
    // The sweep finds nothing more to do: the statuses stay as they are.
    await sweep(w);
    await expectPassedOver(second, third);
  }, 60_000);

  it("pushes the app never heard of (down, its queue lost): the start-up sweep gives each head a status", async () => {
    w.forge.setWebhookUrl(null);
    const fourth = await pushOne(5);
    const fifth = await pushOne(6);
    await pushed(fifth);
    w.forge.setWebhookUrl(w.app.webhookUrl);
    await sweep(w);
    await expectChecked(fifth);
    await expectPassedOver(fourth, fifth);
  }, 60_000);
});
