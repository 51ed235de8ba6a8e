import { describe, expect, it } from "vitest";
import { checkProposal } from "../../src/jobs/check-proposal/index.js";
import { runCommands } from "../../src/jobs/commands/index.js";
import { checkedProposal, cm, PROPOSAL_BRANCH, saying } from "./helpers.js";

const BRANCH = PROPOSAL_BRANCH;

async function setup() {
  const { repo, pr, ctx } = await checkedProposal();
  return { repo, pr, ctx, say: saying(repo, pr.number, ctx) };
}

describe("slash-commands", () => {
  it("/approve publishes and answers with the tag", async () => {
    const { repo, say } = await setup();
    expect(await say("bob", "/approve")).toContain("`apps/web/v1`");
    expect(repo.tags()["apps/web/v1"]).toBeDefined();
  });

  it("refuses a reader's /approve, saying why", async () => {
    const { repo, say } = await setup();
    expect(await say("rita", "/approve")).toContain("needs write permission");
    expect(repo.tags()).toEqual({});
  });

  it("answers an unknown verb with the nearest known one", async () => {
    const { say } = await setup();
    expect(await say("bob", "/aprove")).toContain("did you mean `/approve`");
  });

  it("/fanout runs the fan-out in the job's installation: with no variants, it says there is nothing to do", async () => {
    const { say } = await setup();
    expect(await say("bob", "/fanout")).toContain(
      "Fan-out ran: no variant targets this repository's packages; nothing to do.",
    );
  });

  it("/reject closes the proposal and keeps the branch", async () => {
    const { repo, pr, say } = await setup();
    expect(await say("bob", "/reject")).toContain("Returned to draft");
    expect(repo.pulls.get(pr.number)?.state).toBe("closed");
    expect(repo.refs.has(`refs/heads/${BRANCH}`)).toBe(true);
  });

  it("/propose-delete run again after a crash reuses the branch and pull request it made, never delete-v1-2", async () => {
    const { repo, pr, ctx, say } = await setup();
    await say("bob", "/approve");
    const createPull = repo.createPull.bind(repo);
    repo.createPull = async () => {
      throw new Error("the process died");
    };
    const run = async () => {
      const c = repo.addComment(pr.number, "/propose-delete");
      return runCommands(ctx, { issue: pr.number, commentId: c.id, body: c.body, author: "bob" });
    };
    await run();
    expect(Object.keys(repo.tags())).toEqual(["apps/web/v1"]);
    expect(repo.refs.has("refs/heads/drafts/apps/web/delete-v1")).toBe(true);
    repo.createPull = createPull;
    const addLabels = repo.addLabels.bind(repo);
    repo.addLabels = async () => {
      throw new Error("the process died");
    };
    await run();
    repo.addLabels = addLabels;
    expect(await run()).toMatchObject({ results: [{ kind: "deletion-proposed", revision: 1 }] });
    const deletions = [...repo.pulls.values()].filter((p) => p.headRef.includes("/delete-"));
    expect(deletions.map((p) => [p.headRef, p.labels])).toEqual([
      ["drafts/apps/web/delete-v1", ["porchlight/deletion"]],
    ]);
    expect([...repo.refs.keys()].filter((r) => r.includes("delete-v1-"))).toEqual([]);
  });

  it("/propose-delete opens a labelled deletion proposal whose approval deletes the package and keeps its tags", async () => {
    const { repo, say, ctx } = await setup();
    await say("bob", "/approve");
    expect(await say("bob", "/propose-delete")).toContain("Proposed deleting **apps/web**");
    const deletion = [...repo.pulls.values()].find((p) => p.labels.includes("porchlight/deletion"));
    expect(deletion?.headRef).toBe("drafts/apps/web/delete-v1");
    expect(repo.files(deletion!.headRef, "apps/web")).toEqual({});
    await checkProposal(ctx, { pull: deletion!.number });
    const c = repo.addComment(deletion!.number, "/approve");
    await runCommands(ctx, { issue: deletion!.number, commentId: c.id, body: "/approve", author: "bob" });
    expect(repo.comments.at(-1)?.body).toContain("Deleted **apps/web**");
    expect(repo.files("main", "apps/web")).toEqual({});
    expect(Object.keys(repo.tags())).toEqual(["apps/web/v1"]);
  });

  it("answers a comment once, however often it is delivered", async () => {
    const { repo, pr, ctx } = await setup();
    const c = repo.addComment(pr.number, "/approve");
    for (let i = 0; i < 3; i++)
      await runCommands(ctx, { issue: pr.number, commentId: c.id, body: c.body, author: "bob" });
    expect(repo.comments.filter((x) => x.body.includes(`reply comment=${c.id}`))).toHaveLength(1);
    expect(Object.keys(repo.tags())).toEqual(["apps/web/v1"]);
  });

  it("/render renders the draft again and says so", async () => {
    const { say, repo } = await setup();
    repo.commit(BRANCH, { "apps/web/raw.yaml": cm("raw") });
    expect(await say("bob", "/render")).toContain("pushed the result");
  });

  it("ignores comments without commands", async () => {
    const { repo, pr, ctx } = await setup();
    const before = repo.comments.length;
    await runCommands(ctx, { issue: pr.number, commentId: 999, body: "looks good", author: "bob" });
    expect(repo.comments.length).toBe(before);
  });

  it("in an issue, refuses a pull request's verbs, runs a catalog verb and /help, and reads the issue as no pull request once", async () => {
    const { repo, ctx } = await setup();
    const issue = 900;
    const c = repo.addComment(issue, "/render\n/help\n/skip v1\n/approve");
    repo.calls.length = 0;
    await runCommands(ctx, { issue, commentId: c.id, body: c.body, author: "bob" });
    const reply = repo.comments.find((x) => x.body.includes(`reply comment=${c.id}`))?.body ?? "";
    expect(reply).toContain("- `/render`: `/render` works in a pull request, not in an issue.");
    expect(reply).toContain("| `/rollout resume|hold` | write |");
    expect(reply).toContain("- `/skip v1`: ");
    expect(reply).toContain("- `/approve`: `/approve` works in a pull request, not in an issue.");
    // Not found is not remembered (the pull request may be read for each command that needs it), and
    // /help needs none.
    expect(repo.calls.filter((call) => call === "getPull")).toHaveLength(3);
  });
});
