import { describe, expect, it } from "vitest";
import { kptfile, configMap as krmConfigMap, pipeline } from "../util/krm.js";
import { type Clone, useWorld } from "./harness.js";

const KPTFILE = kptfile(
  "web",
  pipeline(["ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0", { team: "web" }]),
);
const configMap = (name: string) => krmConfigMap(name, { n: name });

/**
 * One bot, many pushes to one branch: the long-running case. Every head a user pushes ends up
 * checked — the second and third push as surely as the first, and a push to an open proposal.
 */
describe("porchlight bot checks every push, not only the first (forge over HTTP and git)", () => {
  const [owner, repo] = ["acme", "blueprints"];
  const rest = () => w.users.alice!.rest;
  const head = async (branch: string) =>
    (await rest().git.getRef({ owner, repo, ref: `heads/${branch}` })).data.object.sha;
  const completed = async (sha: string) =>
    (await rest().checks.listForRef({ owner, repo, ref: sha })).data.check_runs
      .filter((r) => r.status === "completed")
      .map((r) => `${r.name}=${r.conclusion}`)
      .sort();

  /**
   * Alice's force push, again where the bot's render commit landed while git pushed (the server's
   * update of the branch then finds it moved and refuses, as GitHub does): what a person does next.
   */
  const forcePush = async (alice: Clone) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await alice.git("push", "--quiet", "--force", "origin", `HEAD:refs/heads/${branch}`);
      } catch (e) {
        if (attempt === 3 || !/cannot lock ref|failed to update ref/.test(String(e))) throw e;
      }
    }
  };

  const w = useWorld({
    ".github/porchlight.yml": "guardrails: []\n",
    "apps/web/Kptfile": KPTFILE,
    "apps/web/cm-0.yaml": configMap("cm-0"),
  });

  const branch = "drafts/apps/web/many";

  it("renders each of three pushes to one draft, each on the branch's new head", async () => {
    const alice = await w.clone("alice");
    let from = "origin/main";
    for (const n of [1, 2, 3]) {
      const pushed = await alice.push(branch, { [`apps/web/cm-${n}.yaml`]: configMap(`cm-${n}`) }, from);
      await w.settle();
      const rendered = await head(branch);
      // The bot labelled the new ConfigMap, so it committed on top of this push, and checked that commit.
      expect(rendered, `push ${n} was not rendered`).not.toBe(pushed);
      const commit = await rest().repos.getCommit({ owner, repo, ref: rendered });
      expect(commit.data.parents.map((p) => p.sha)).toEqual([pushed]);
      expect(await completed(rendered), `push ${n}`).toEqual(["porchlight/render=success"]);
      from = `origin/${branch}`;
    }
  });

  it("re-checks an open proposal on a push to it: render and guardrails on the new head", async () => {
    const { data: pr } = await rest().pulls.create({
      owner,
      repo,
      head: branch,
      base: "main",
      title: "many",
    });
    await w.settle();
    expect(await completed(pr.head.sha)).toEqual([
      "porchlight/guardrails=success",
      "porchlight/render=success",
    ]);
    const alice = await w.clone("alice");
    await alice.push(branch, { "apps/web/cm-4.yaml": configMap("cm-4") }, `origin/${branch}`);
    await w.settle();
    const now = await head(branch);
    expect(now).not.toBe(pr.head.sha);
    expect(await completed(now)).toEqual(["porchlight/guardrails=success", "porchlight/render=success"]);
  });

  it("after twelve quick pushes, the last head carries the final checks", async () => {
    const alice = await w.clone("alice");
    await alice.git("checkout", "--quiet", "-B", branch, `origin/${branch}`);
    let last = "";
    for (let n = 5; n <= 16; n++) {
      // Each push builds on alice's previous one; the bot's render commits landing in between are
      // overwritten (force), as a user who does not pull between pushes would.
      alice.write({ [`apps/web/cm-${n}.yaml`]: configMap(`cm-${n}`) });
      await alice.git("add", "-A");
      await alice.git("commit", "--quiet", "-m", `push ${n}`);
      await forcePush(alice);
      last = await alice.git("rev-parse", "HEAD");
    }
    await w.settle();
    const final = await head(branch);
    // Either the bot rendered the last push on top of it, or the last push was already rendered
    // because a bot commit was overwritten; either way the head is checked and carries every file.
    expect(await completed(final)).toEqual(["porchlight/guardrails=success", "porchlight/render=success"]);
    if (final !== last) {
      const commit = await rest().repos.getCommit({ owner, repo, ref: final });
      expect(commit.data.parents.map((p) => p.sha)).toEqual([last]);
    }
    const tree = await rest().git.getTree({ owner, repo, tree_sha: final, recursive: "true" });
    expect(tree.data.tree.filter((e) => /^apps\/web\/cm-\d+\.yaml$/.test(e.path ?? ""))).toHaveLength(17);
  });
});
