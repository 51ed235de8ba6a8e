import type { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseReplyMarker } from "../../src/commands/reply.js";
import { kptfile, settings } from "../util/krm.js";
import { dropPrefix, hasRedis, REDIS_MISSING, TEST_REDIS_URL, testPrefix } from "../util/redis.js";
import { type ChildWorld, kill9, proposeEdit, startApp, startChildWorld, stopApp } from "./app-child.js";

const KPTFILE = kptfile("web");
const cm = settings;

const FLOOD = 200;

/**
 * 200 `/approve` on one proposal, the app killed with SIGKILL while the first of them is being carried
 * out (the forge holds its permission lookup), then started again: in-process, the queued jobs died
 * with the process; with Redis, they are still there and another start works them. Either way, every
 * comment is answered exactly once (its id in the marker of one reply of the bot), the flood in one
 * reply that counts it, and the proposal is published once.
 */
describe.each([
  ["in-process queue", false],
  ["Redis queue", true],
] as const)("a flood of commands, the app killed mid-flood and restarted (%s)", (_mode, redis) => {
  const skip = redis && !hasRedis;
  let w: ChildWorld;
  let forge: ChildWorld["forge"];
  let creds: ChildWorld["creds"];
  let apps: ChildWorld["apps"];
  const owner = "acme";
  const prefix = testPrefix("command-flood");
  let rest: (user: string) => Octokit;
  const env: Record<string, string> = redis
    ? { REDIS_URL: TEST_REDIS_URL, PORCHLIGHT_REDIS_PREFIX: prefix, PORCHLIGHT_REDIS_LOCK_MS: "1000" }
    : {};

  beforeAll(async () => {
    if (skip) return;
    w = await startChildWorld({
      "README.md": "# blueprints\n",
      ".github/porchlight.yml": "mergeMethod: merge\n",
      "apps/web/Kptfile": KPTFILE,
      "apps/web/cm.yaml": cm("0"),
    });
    ({ forge, creds, apps, rest } = w);
  });
  afterAll(async () => {
    await w?.stop();
    if (redis && !skip) await dropPrefix(prefix);
  });

  const store = () => forge.core.store.data;
  const repoId = () => forge.repo("acme/blueprints").id;
  const pullOf = (number: number) =>
    store().issues.find((i) => i.repoId === repoId() && i.number === number)?.pull;
  const botReplies = (number: number) =>
    store().comments.filter(
      (c) =>
        c.repoId === repoId() &&
        c.number === number &&
        c.appId === creds.appId &&
        parseReplyMarker(c.body).length > 0,
    );
  /** How many replies of the bot name each comment. */
  const answersPer = (number: number, ids: readonly number[]) => {
    const count = new Map(ids.map((id) => [id, 0]));
    for (const r of botReplies(number))
      for (const id of parseReplyMarker(r.body)) count.set(id, (count.get(id) ?? 0) + 1);
    return count;
  };

  it.skipIf(skip)(
    `${FLOOD} × /approve, kill -9 while the first runs, restart: each comment answered once, in one reply, published once${skip ? ` (${REDIS_MISSING})` : ""}`,
    async () => {
      apps.push(await startApp(forge, creds, env));
      const pr = await proposeEdit(w, "drafts/apps/web/one", {
        path: "apps/web/cm.yaml",
        text: cm("1"),
        message: "v: 1",
      });
      await forge.waitFor(() => {
        const p = pullOf(pr.number);
        return (
          p !== undefined &&
          ["porchlight/render", "porchlight/guardrails"].every((n) =>
            store().checkRuns.some(
              (r) => r.headSha === p.headSha && r.name === n && r.status === "completed",
            ),
          )
        );
      }, "the proposal's checks");

      // The first /approve's job stops at its permission lookup; the flood arrives behind it.
      const held = forge.faults.add({
        route: "/repos/{owner}/{repo}/collaborators/{username}/permission",
        method: "GET",
        hang: true,
        times: 1,
      });
      const ids: number[] = [];
      for (let i = 0; i < FLOOD; i++) {
        const { data } = await rest("bob").issues.createComment({
          owner,
          repo: "blueprints",
          issue_number: pr.number,
          body: "/approve",
        });
        ids.push(data.id);
      }
      await forge.waitFor(() => forge.faults.holding(held) === 1, "the first command's permission lookup");
      await forge.waitFor(
        () =>
          forge.webhooks
            .find("issue_comment")
            .filter((d) => ids.includes((d.payload as { comment: { id: number } }).comment.id)).length ===
          FLOOD,
        "every comment delivered to the app",
      );
      await kill9(forge, apps[0]!);
      await forge.waitFor(() => forge.faults.holding(held) === 0, "the dead app's request let go");
      expect(botReplies(pr.number)).toEqual([]);
      expect(pullOf(pr.number)?.merged).toBe(false);

      apps.push(await startApp(forge, creds, env));
      await forge.waitFor(
        () => [...answersPer(pr.number, ids).values()].every((n) => n > 0),
        "every command answered",
        60_000,
      );
      await stopApp(forge, apps[1]!);

      expect([...answersPer(pr.number, ids).values()].filter((n) => n !== 1)).toEqual([]);
      const replies = botReplies(pr.number);
      expect(replies).toHaveLength(1);
      expect(replies[0]?.body).toContain(`\`/approve\` ×${FLOOD} from @bob: Published`);
      expect(pullOf(pr.number)?.merged).toBe(true);
      const tags = (
        await rest("alice").git.listMatchingRefs({ owner, repo: "blueprints", ref: "tags/apps/web/" })
      ).data;
      expect(tags.map((t) => t.ref)).toEqual(["refs/tags/apps/web/v1"]);
    },
    180_000,
  );
});
