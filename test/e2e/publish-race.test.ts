import { describe, expect, it } from "vitest";
import { commentsOn, tagsOf, useWorld } from "./harness.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n";
const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;
const MERGE_ROUTE = "/repos/{owner}/{repo}/pulls/{pull_number}/merge";

/**
 * `porchlight rpkg approve` reviews the pull request and runs the publish job itself, while the bot
 * runs the same job on that review: whichever merges second finds the pull request merged between its
 * read and its merge. The forge holds the bot's merge call while the test merges (as the other
 * publisher would), at that exact point.
 */
describe("a publish job that finds its proposal merged by someone else (forge over HTTP and git)", () => {
  const [owner, repo] = ["acme", "blueprints"];
  const rest = () => w.users.alice!.rest;
  const comments = (n: number) => commentsOn(w, n);
  const tags = () => tagsOf(w);
  let ws = 0;
  const proposal = async () => {
    const branch = `drafts/apps/web/ws${++ws}`;
    await (await w.clone("alice")).push(branch, { [`apps/web/cm${ws}.yaml`]: cm(`cm${ws}`) });
    await w.settle();
    const { data } = await rest().pulls.create({ owner, repo, head: branch, base: "main", title: branch });
    await w.settle();
    return data;
  };
  /** bob approves; just before the bot's merge call, `meanwhile` runs (someone else publishing). */
  const approveRacing = async (
    pr: { number: number; head: { sha: string } },
    meanwhile: () => Promise<void>,
  ) => {
    const botMerges = () =>
      w.forge.requestLog.filter({ route: MERGE_ROUTE }).filter((r) => r.installationId !== null).length;
    const before = botMerges();
    // The bot's merge call is held while someone else publishes, then let go.
    const fault = w.forge.faults.add({ route: MERGE_ROUTE, method: "PUT", times: 1, hang: true });
    const { data: review } = await w.users.bob!.rest.pulls.createReview({
      owner,
      repo,
      pull_number: pr.number,
      event: "APPROVE",
      commit_id: pr.head.sha,
    });
    await w.forge.waitFor(() => w.forge.faults.holding(fault) === 1, "the bot's merge call");
    await meanwhile();
    w.forge.faults.release(fault);
    await w.settle();
    expect(fault.hits).toBe(1);
    // One merge call from the bot: a 405 is an answer, not something to retry for 14 seconds.
    expect(botMerges() - before).toBe(1);
    return (await comments(pr.number)).filter((c) => c.includes(`porchlight:publish review=${review.id}`));
  };
  const mergeAsAlice = async (pr: { number: number; head: { sha: string } }) =>
    (await rest().pulls.merge({ owner, repo, pull_number: pr.number, sha: pr.head.sha })).data.sha;

  const w = useWorld({ "apps/web/Kptfile": KPTFILE });

  it("merged and tagged meanwhile: the review is answered with the revision, no false failure, no second tag", async () => {
    const pr = await proposal();
    let merge = "";
    const replies = await approveRacing(pr, async () => {
      merge = await mergeAsAlice(pr);
      await rest().git.createRef({ owner, repo, ref: "refs/tags/apps/web/v1", sha: merge });
    });
    expect(replies).toHaveLength(1);
    expect(replies[0]).toContain("Published **apps/web** as `apps/web/v1`");
    expect((await comments(pr.number)).join("\n")).not.toMatch(/cannot merge|Not published/);
    expect(await tags()).toEqual({ "apps/web/v1": merge });
  });

  it("merged but not yet tagged meanwhile: the job tags it at once, without waiting for the sweep", async () => {
    const pr = await proposal();
    let merge = "";
    const replies = await approveRacing(pr, async () => {
      merge = await mergeAsAlice(pr);
    });
    expect(replies).toHaveLength(1);
    expect(replies[0]).toContain("Published **apps/web** as `apps/web/v2`");
    expect((await tags())["apps/web/v2"]).toBe(merge);
    expect(Object.keys(await tags())).toHaveLength(2);
    // Finished as a publish is: the draft branch is gone.
    const branches = (await rest().repos.listBranches({ owner, repo })).data.map((b) => b.name);
    expect(branches).not.toContain(pr.head.ref);
  });
});
