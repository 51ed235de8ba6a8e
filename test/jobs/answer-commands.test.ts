import { describe, expect, it } from "vitest";
import { parseReplyMarker } from "../../src/commands/reply.js";
import { answerCommands } from "../../src/jobs/commands/answer.js";
import { checkedProposal } from "./helpers.js";

async function setup() {
  const { repo, pr, ctx } = await checkedProposal();
  const replies = () => repo.commentsOn(pr.number).filter((c) => parseReplyMarker(c.body).length > 0);
  return { repo, pr, ctx, replies };
}

describe("answering a pull request's commands from its comments", () => {
  it("a flood of /approve is carried out once per author and answered by one reply counting every comment", async () => {
    const { repo, pr, ctx, replies } = await setup();
    const ids = [
      ...Array.from({ length: 200 }, () => repo.addComment(pr.number, "/approve", "bob").id),
      ...Array.from({ length: 3 }, () => repo.addComment(pr.number, "/approve", "rita").id),
    ];
    expect(await answerCommands(ctx, { issue: pr.number })).toEqual({ answered: 203, replies: 1, edited: 0 });
    const [reply, ...more] = replies();
    expect(more).toEqual([]);
    expect(parseReplyMarker(reply?.body ?? "")).toEqual(ids);
    expect(reply?.body).toContain("`/approve` ×203 from @bob ×200, @rita ×3:");
    expect(reply?.body).toContain("`apps/web/v1`");
    expect(reply?.body).toContain("needs write permission");
    expect(Object.keys(repo.tags())).toEqual(["apps/web/v1"]);
    // Run again (a second sweep, a job after a crash): nothing left to answer.
    expect(await answerCommands(ctx, { issue: pr.number })).toEqual({ answered: 0, replies: 0, edited: 0 });
    expect(replies()).toHaveLength(1);
  });

  it("a command edited after it was written is answered as such and not carried out", async () => {
    const { repo, pr, ctx, replies } = await setup();
    const c = repo.addComment(pr.number, "/approve", "bob");
    c.updatedAt = new Date(Date.parse(c.createdAt) + 5000).toISOString();
    expect(await answerCommands(ctx, { issue: pr.number })).toEqual({ answered: 1, replies: 1, edited: 1 });
    expect(replies().map((r) => r.body)).toEqual([
      expect.stringContaining("was edited after it was written"),
    ]);
    expect(repo.tags()).toEqual({});
    expect(repo.pulls.get(pr.number)?.state).toBe("open");
  });
});
