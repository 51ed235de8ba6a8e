import { describe, expect, it } from "vitest";
import { checkProposal } from "../../src/jobs/check-proposal/index.js";
import { runCommands } from "../../src/jobs/commands/index.js";
import { publishProposal } from "../../src/jobs/publish/index.js";
import { fakeRepoWith } from "./fake-repo.js";
import { cm, jobContext, KPTFILE, saying } from "./helpers.js";

/** What the fake renderer appends: a file ending so is rendered. */
const R = "# rendered\n";

/**
 * A fork's pull request, as the port shows it: the head lives in another repository (the fork's
 * commits reachable in this one, as GitHub keeps `refs/pull/<n>/head`). Its branch has a draft's name.
 */
async function setup() {
  const repo = fakeRepoWith({ "apps/web/Kptfile": KPTFILE, "apps/web/cm.yaml": `${cm("web")}${R}` });
  repo.permissions.set("bob", "write");
  repo.branch("fork-head", "main");
  repo.commit("fork-head", {
    "apps/web/cm.yaml": `${cm("web", "  changed: yes\n")}${R}`,
    ".github/porchlight.yml": "guardrails: []\n",
  });
  const pr = repo.openPull("fork-head", {
    headRef: "drafts/apps/web/evil",
    headRepo: "mallory/blueprints",
    author: "mallory",
  });
  const ctx = jobContext(repo);
  // Its checks are green: what keeps it from publishing is the fork rule alone.
  expect(await checkProposal(ctx, { pull: pr.number })).toMatchObject({ render: true, guardrails: true });
  return { repo, pr, ctx, say: saying(repo, pr.number, ctx) };
}

describe("a fork's pull request", () => {
  it("is never published, whoever approves, and the refusal says to /adopt it", async () => {
    const { repo, pr, ctx, say } = await setup();
    repo.review(pr.number, "bob");
    const outcome = await publishProposal(ctx, {
      pull: pr.number,
      request: { kind: "review", user: "bob", commitId: pr.headSha },
    });
    expect(outcome).toMatchObject({
      kind: "refused",
      message: expect.stringContaining("comes from the fork"),
    });
    const reply = await say("bob", "/approve\n/reject\n/promote stable\n/update");
    expect(reply.match(/a fork's branch is not a draft of this repository/g)).toHaveLength(4);
    expect(reply).toContain("`/adopt`");
    expect(repo.pulls.get(pr.number)).toMatchObject({ state: "open", merged: false });
    expect(repo.tags()).toEqual({});
  });

  it("names no package of this repository to the catalog commands: they need the revision's tag there", async () => {
    const { repo, say } = await setup();
    const reply = await say("bob", "/skip v1\n/rollback");
    expect(reply.match(/Outside a proposal of a package of this repository/g)).toHaveLength(2);
    expect(repo.refs.has("refs/heads/porchlight/catalog")).toBe(false);
    expect(await say("bob", "/skip apps/web/v1")).toContain("the catalog has no package apps/web");
  });

  it("/adopt copies only the package onto one draft and proposes it; said again, the same draft and proposal", async () => {
    const { repo, say } = await setup();
    const first = await say("bob", "/adopt");
    const branch = "drafts/apps/web/fork-pr-1";
    expect(first).toContain(`draft \`${branch}\``);
    const tree = (await repo.readTree(branch)).tree;
    expect(tree.get("apps/web/cm.yaml")?.toString()).toContain("changed: yes");
    expect(tree.has(".github/porchlight.yml")).toBe(false);
    await say("bob", "/adopt");
    expect([...repo.pulls.values()].filter((p) => p.headRef === branch)).toHaveLength(1);
  });

  it("/adopt on a pull request of this repository's own branch is refused", async () => {
    const { repo } = await setup();
    repo.branch("drafts/apps/web/mine", "main");
    repo.commit("drafts/apps/web/mine", { "apps/web/x.yaml": cm("x") });
    const own = repo.openPull("drafts/apps/web/mine");
    const c = repo.addComment(own.number, "/adopt");
    await runCommands(jobContext(repo), {
      issue: own.number,
      commentId: c.id,
      body: "/adopt",
      author: "bob",
    });
    expect(repo.comments.at(-1)?.body).toContain("is already in this repository");
  });
});
