import { describe, expect, it } from "vitest";
import { parseReplyMarker } from "../../src/commands/reply.js";
import { tagsOf, useWorld, WEB_KPTFILE, webSettings } from "./harness.js";

/**
 * Commands written while the bot is busy on the same pull request (the forge holds its first command's
 * permission lookup): what runs is what the comments say when their turn comes, read from GitHub.
 */
describe("commands queued behind a running one (forge over HTTP and git)", () => {
  /** How far the forge's clock runs ahead of the system's: an edit a few seconds after the comment. */
  let skew = 0;
  const [owner, repo] = ["acme", "blueprints"];

  const w = useWorld(
    { "apps/web/Kptfile": WEB_KPTFILE, "apps/web/settings.yaml": webSettings("0") },
    { forgeNow: () => new Date(Date.now() + skew) },
  );

  const comment = async (body: string) =>
    (await w.users.bob!.rest.issues.createComment({ owner, repo, issue_number: number, body })).data.id;
  let number = 0;
  const botReplies = () =>
    w.forge.core.store.data.comments
      .filter((c) => c.number === number && c.appId !== null && parseReplyMarker(c.body).length > 0)
      .map((c) => ({ ids: parseReplyMarker(c.body), body: c.body }));

  it("an edited command is answered and not carried out, a deleted one is not carried out, a flood is one reply and one 👀", async () => {
    ({ number } = await w.propose("drafts/apps/web/one", { "apps/web/settings.yaml": webSettings("1") }));
    const held = w.forge.faults.add({
      route: "/repos/{owner}/{repo}/collaborators/{username}/permission",
      method: "GET",
      hang: true,
      times: 1,
    });
    const first = await comment("/render");
    await w.forge.waitFor(() => w.forge.faults.holding(held) === 1, "the first command's permission lookup");

    const edited = await comment("/approve");
    skew += 5000;
    await w.users.bob!.rest.issues.updateComment({
      owner,
      repo,
      comment_id: edited,
      body: "/approve\n\nEdit: not yet, the settings are wrong.",
    });
    const deleted = await comment("/reject");
    await w.users.bob!.rest.issues.deleteComment({ owner, repo, comment_id: deleted });
    const flood: number[] = [];
    for (let i = 0; i < 30; i++) flood.push(await comment("/render"));

    w.forge.faults.release(held);
    await w.settle();

    const pull = (await w.users.alice!.rest.pulls.get({ owner, repo, pull_number: number })).data;
    expect([pull.state, pull.merged]).toEqual(["open", false]);
    expect(await tagsOf(w)).toEqual({});
    const replies = botReplies();
    expect(replies.map((r) => r.ids)).toEqual([[first], [edited], flood]);
    expect(replies[1]?.body).toContain("was edited after it was written");
    expect(replies[2]?.body).toContain("`/render` ×30 from @bob");
    expect(replies.flatMap((r) => r.ids)).not.toContain(deleted);
    // 👀 on the comments that started a job (the held one, the one that waited); none on those it absorbed.
    const eyes = w.forge.core.store.data.reactions
      .filter((r) => r.content === "eyes" && r.userLogin.endsWith("[bot]"))
      .map((r) => Number(r.subject.replace("comment:", "")));
    expect(eyes.sort((a, b) => a - b)).toEqual([first, edited]);
  }, 120_000);
});
