import { describe, expect, it } from "vitest";
import { commentsOn, useWorld } from "./harness.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n";
const configMap = (name: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  n: "${name}"\n`;
const LIST_CHECKS = "/repos/{owner}/{repo}/commits/{ref}/check-runs";

/**
 * A proposal's check decides on the pull request its event carried while the draft branch is at that
 * head; a proposal rejected (closed, its draft kept) before its check ran gets no check and no summary,
 * as when the check read the pull request itself.
 */
describe("a proposal closed before its check ran (forge over HTTP and git)", () => {
  const [owner, repo] = ["acme", "blueprints"];
  const w = useWorld({
    ".github/porchlight.yml": "guardrails: []\n",
    "apps/web/Kptfile": KPTFILE,
    "apps/web/cm.yaml": configMap("cm"),
    "apps/api/Kptfile": KPTFILE.replace("web", "api"),
    "apps/api/cm.yaml": configMap("api"),
  });

  it("writes no summary on it: the waiting check reads it, closed", async () => {
    const alice = w.users.alice!.rest;
    const branch = "drafts/apps/web/closed";
    await (await w.clone("alice")).push(branch, { "apps/web/cm-1.yaml": configMap("cm-1") });
    await w.settle();
    // the app busy with another draft's render (held at its first read of check runs): the rest queue
    const hold = w.forge.faults.add({ route: LIST_CHECKS, method: "GET", times: 1, hang: true });
    await (await w.clone("alice")).push("drafts/apps/api/busy", { "apps/api/cm-1.yaml": configMap("api-1") });
    await w.forge.waitFor(() => w.forge.faults.holding(hold) === 1, "the other draft's render");
    const { data: pr } = await alice.pulls.create({ owner, repo, head: branch, base: "main", title: branch });
    await w.forge.waitFor(
      () => w.forge.webhooks.find("pull_request", "opened").length > 0,
      "the proposal's opened event",
    );
    await alice.pulls.update({ owner, repo, pull_number: pr.number, state: "closed" });
    await w.forge.waitFor(
      () => w.forge.webhooks.find("pull_request", "closed").length > 0,
      "the proposal's closed event",
    );
    w.forge.faults.release(hold);
    await w.settle();
    expect(await commentsOn(w, pr.number)).toEqual([]);
    const runs = (await alice.checks.listForRef({ owner, repo, ref: pr.head.sha })).data.check_runs;
    expect(runs.map((r) => r.name)).not.toContain("porchlight/guardrails");
  }, 60_000);
});
