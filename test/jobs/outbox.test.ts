import { describe, expect, it } from "vitest";
import { type JobContext, withDeferred } from "../../src/jobs/context.js";
import { type FollowUp, rootOutbox } from "../../src/jobs/outbox.js";
import { publishProposal } from "../../src/jobs/publish/index.js";
import { checkedProposal, PROPOSAL_BRANCH } from "./helpers.js";

const approve = { kind: "command", user: "bob" } as const;
const tagOf = (f: FollowUp) => (f.task === "fanout-published" ? f.event.tag : f.reason);

/** A job as the runner runs it (app/run-job.ts): its outbox queues into `queue`, its steps deferred. */
async function runAsJob(
  queue: (f: FollowUp) => Promise<void>,
  work: Parameters<typeof withDeferred>[1],
  ctx: Parameters<typeof withDeferred>[0],
) {
  return withDeferred({ ...ctx, outbox: rootOutbox(queue), defer: undefined }, work);
}

describe("follow-up work goes through the job's outbox, queued before the job's last steps", () => {
  it("a publish queues its fan-out before the draft branch, the marker of an unfinished publish, goes", async () => {
    const { repo, pr, ctx } = await checkedProposal();
    const seen: string[] = [];
    await runAsJob(
      async (f) => {
        seen.push(
          `${f.task} ${tagOf(f)}; branch ${repo.refs.has(`refs/heads/${PROPOSAL_BRANCH}`) ? "left" : "gone"}`,
        );
      },
      (c) => publishProposal(c, { pull: pr.number, request: approve }),
      ctx,
    );
    expect(seen).toEqual(["fanout-published apps/web/v1; branch left"]);
    expect(repo.refs.has(`refs/heads/${PROPOSAL_BRANCH}`)).toBe(false);
  });

  it("a fan-out that cannot be queued (Redis gone) fails the job and keeps the branch; the run again queues it", async () => {
    const { repo, pr, ctx } = await checkedProposal();
    const publish = (c: JobContext) => publishProposal(c, { pull: pr.number, request: approve });
    await expect(
      runAsJob(
        async () => {
          throw new Error("Redis is not answering");
        },
        publish,
        ctx,
      ),
    ).rejects.toThrow("Redis is not answering");
    // Merged and tagged, but unfinished: the branch says so to the job's next run (and to the sweep).
    expect(repo.tags()["apps/web/v1"]).toBeDefined();
    expect(repo.refs.has(`refs/heads/${PROPOSAL_BRANCH}`)).toBe(true);

    const queued: string[] = [];
    await runAsJob(async (f) => void queued.push(`${f.task} ${tagOf(f)}`), publish, ctx);
    expect(queued).toEqual(["fanout-published apps/web/v1"]);
    expect(Object.keys(repo.tags())).toEqual(["apps/web/v1"]);
    expect(repo.refs.has(`refs/heads/${PROPOSAL_BRANCH}`)).toBe(false);
  });

  it("what the work recorded before it failed is queued all the same; its deferred steps are not run", async () => {
    const { ctx } = await checkedProposal();
    const queued: string[] = [];
    let stepRan = false;
    await expect(
      runAsJob(
        async (f) => void queued.push(tagOf(f)),
        async (c) => {
          c.defer?.("step", async () => {
            stepRan = true;
          });
          c.outbox.add({ task: "fanout-wanted", target: { kind: "here" }, reason: "checks finished" });
          throw new Error("the reply could not be written");
        },
        ctx,
      ),
    ).rejects.toThrow("the reply could not be written");
    expect(queued).toEqual(["checks finished"]);
    expect(stepRan).toBe(false);
  });

  it("the same follow-up recorded twice in a job, by the job and by a part that finishes on its own, is queued once", async () => {
    const { ctx } = await checkedProposal();
    const queued: string[] = [];
    const wanted: FollowUp = { task: "fanout-wanted", target: { kind: "here" }, reason: "a" };
    await runAsJob(
      async (f) => void queued.push(tagOf(f)),
      async (c) => {
        c.outbox.add(wanted);
        await withDeferred(c, async (part) => {
          part.outbox.add({ ...wanted, reason: "b" });
          part.outbox.add({
            task: "fanout-published",
            target: { kind: "here" },
            event: { repo: ctx.port.id, package: "p", revision: 1, tag: "p/v1", commit: "c" },
          });
        });
        // the part's follow-ups are queued when the part ends, with what the job had recorded before
        expect(queued).toEqual(["a", "p/v1"]);
        c.outbox.add(wanted);
      },
      ctx,
    );
    expect(queued).toEqual(["a", "p/v1"]);
  });
});
