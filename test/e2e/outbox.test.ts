import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dropPrefix, hasRedis, REDIS_MISSING, TEST_REDIS_URL, testPrefix } from "../util/redis.js";
import { startWorld, sweepWrites, type World } from "./harness.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n";
const cm = (v: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  v: "${v}"\n`;
const VARIANT = `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: c1
spec:
  upstream: {package: basens, channel: stable}
  downstream: {repo: cluster-01, package: basens}
`;

/**
 * A publish implies its fan-out; the job records it in its outbox, and it is queued (held by Redis)
 * before the job ends and before the draft branch — the marker of an unfinished publish — is deleted.
 * The app here is one replica on Redis; "killed" is a replica that stops mid-job (its jobs left
 * running, as a dead process leaves them), and another replica takes the job up once its lock expires.
 */
describe.skipIf(!hasRedis)(
  `a publish's fan-out through the outbox, on Redis, over the forge${REDIS_MISSING ? ` (skipped: ${REDIS_MISSING})` : ""}`,
  () => {
    let w: World;
    const prefix = testPrefix("outbox");
    const owner = "acme";
    const rest = () => w.users.alice!.rest;
    const downstreamPulls = async () =>
      (await rest().pulls.list({ owner, repo: "cluster-01", state: "all" })).data.map((p) => ({
        state: p.state,
        head: p.head.sha,
      }));
    const tags = async () =>
      (await rest().git.listMatchingRefs({ owner, repo: "blueprints", ref: "tags/basens/" })).data.map(
        (r) => `${r.ref} ${r.object.sha}`,
      );
    const comments = async (n: number) =>
      (await rest().issues.listComments({ owner, repo: "blueprints", issue_number: n })).data.map(
        (c) => c.body ?? "",
      );
    const stalled = async () => {
      const metrics = await (await fetch(`${w.app.url}/metrics`)).text();
      return Number(
        /porchlight_queue_retries_total\{[^}]*reason="stalled"[^}]*\} (\d+)/.exec(metrics)?.[1] ?? 0,
      );
    };

    beforeAll(async () => {
      w = await startWorld(
        {
          ".porchlight/variants/fleet.yaml": VARIANT,
          "basens/Kptfile": KPTFILE,
          "basens/cm.yaml": cm("0"),
        },
        {
          redis: { url: TEST_REDIS_URL, prefix, lockMs: 1500, stalledIntervalMs: 200, busyDelayMs: 20 },
        },
      );
      await w.forge.createRepo("acme/cluster-01", { files: { "README.md": "# cluster-01\n" } });
      w.forge.setPermission("acme/cluster-01", "alice", "read");
      await w.settle();
    }, 120_000);
    afterAll(async () => {
      await w?.stop();
      await dropPrefix(prefix);
    });

    it("stopped between the tag and the queueing of its fan-out, then the same events again, then a restart: one tag, one reply, one downstream pull request", async () => {
      const { number } = await w.propose("drafts/basens/one", { "basens/cm.yaml": cm("1") });
      // bob's /approve (its delivery held back until the fault is in place), then the reply to it held:
      // the job has merged and tagged; its fan-out is still in its outbox.
      w.forge.setWebhookUrl(null);
      const { data: approve } = await w.users.bob!.rest.issues.createComment({
        owner,
        repo: "blueprints",
        issue_number: number,
        body: "/approve",
      });
      const reply = w.forge.faults.add({
        route: "/repos/{owner}/{repo}/issues/{issue_number}/comments",
        method: "POST",
        hang: true,
        times: 1,
      });
      await w.forge.webhooks.idle();
      const delivery = w.forge.webhooks
        .find("issue_comment", "created")
        .find((d) => (d.payload as { comment?: { id?: number } }).comment?.id === approve.id);
      if (!delivery) throw new Error("no delivery of /approve");
      // Only /approve reaches the app until the restart: the merge's own event (pull_request closed),
      // which would queue the fan-out too, is held back, so the job's run again is all that can.
      await fetch(w.app.webhookUrl, {
        method: "POST",
        headers: delivery.requestHeaders,
        body: JSON.stringify(delivery.payload),
      });
      await w.forge.waitFor(() => w.forge.faults.holding(reply) === 1, "the reply to /approve", 20_000);
      const merge = (await rest().pulls.get({ owner, repo: "blueprints", pull_number: number })).data
        .merge_commit_sha;
      expect(await tags()).toEqual([`refs/tags/basens/v1 ${merge}`]);
      expect(await downstreamPulls()).toEqual([]);

      // The replica stops mid-job; another takes the job up, answers, queues the fan-out, deletes the draft.
      await w.restart({ abandon: true });
      await w.settle();
      expect(await stalled()).toBeGreaterThanOrEqual(1);
      expect(await tags()).toEqual([`refs/tags/basens/v1 ${merge}`]);
      const answers = (await comments(number)).filter((c) => c.includes(`reply comment=${approve.id}`));
      expect(answers).toEqual([expect.stringContaining("`basens/v1`")]);
      const pulls = await downstreamPulls();
      expect(pulls).toEqual([{ state: "open", head: expect.any(String) }]);
      expect(
        (await rest().git.listMatchingRefs({ owner, repo: "blueprints", ref: "heads/drafts/" })).data,
      ).toEqual([]);

      // /approve's event again and the merge's (GitHub's redelivery: the same bodies, new delivery ids):
      // nothing new.
      for (const d of [
        ...w.forge.webhooks.find("issue_comment", "created"),
        ...w.forge.webhooks.find("pull_request", "closed"),
      ]) {
        const res = await fetch(w.app.webhookUrl, {
          method: "POST",
          headers: { ...d.requestHeaders, "x-github-delivery": randomUUID() },
          body: JSON.stringify(d.payload),
        });
        expect(res.status).toBe(200);
      }
      await w.settle();
      expect(await tags()).toEqual([`refs/tags/basens/v1 ${merge}`]);
      expect((await comments(number)).filter((c) => c.includes(`reply comment=${approve.id}`))).toEqual(
        answers,
      );
      expect(await downstreamPulls()).toEqual(pulls);

      // A restart and its sweep: nothing left to do.
      await w.restart();
      expect(await sweepWrites(w)).toEqual([]);
      expect(await downstreamPulls()).toEqual(pulls);
    }, 120_000);
  },
);
