import { once } from "node:events";
import { Octokit } from "@octokit/rest";
import { type Forge, startForge } from "@porchlight/forge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseReplyMarker } from "../../src/commands/reply.js";
import { RedisQueue } from "../../src/queue/redis-queue.js";
import { kptfile, settings, topicSet } from "../util/krm.js";
import { dropPrefix, hasRedis, REDIS_MISSING, TEST_REDIS_URL, testPrefix } from "../util/redis.js";
import { alive, type Replica, roundRobin, startReplica } from "./fleet-process.js";

const DOWNSTREAMS = Number(process.env.FLEET_DOWNSTREAMS ?? 30);
const KPTFILE = kptfile("basens");
const cm = settings;
const SET = topicSet("edge", "basens", "edge");

describe.skipIf(!hasRedis)(
  `three replicas as child processes on one Redis, the forge over HTTP and git${REDIS_MISSING ? ` (skipped: ${REDIS_MISSING})` : ""}`,
  () => {
    let forge: Forge;
    let prefix: string;
    let queue: RedisQueue;
    let lb: Awaited<ReturnType<typeof roundRobin>>;
    const replicas: Replica[] = [];
    let creds: ReturnType<Forge["createApp"]>;
    const users: Record<string, Octokit> = {};
    const live = () => replicas.filter(alive);

    /** Every delivery sent and every job of the fleet done (the shared queue empty), twice in a row. */
    const settle = async () => {
      let quiet = 0;
      for (let i = 0; i < 3000 && quiet < 2; i++) {
        await forge.webhooks.idle();
        const c = await queue.counts();
        quiet = Object.values(c).every((n) => n === 0) ? quiet + 1 : 0;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      if (quiet < 2)
        throw new Error(`the fleet did not settle:\n${replicas.map((r) => r.output()).join("\n")}`);
    };
    const writeLog = () =>
      forge.requestLog
        .filter({})
        .filter(
          (r) =>
            r.method !== "GET" && !r.route.includes("access_tokens") && !r.route.endsWith("git-upload-pack"),
        );
    const writes = () => writeLog().length;

    beforeAll(async () => {
      prefix = testPrefix("fleet");
      forge = await startForge();
      creds = forge.createApp({ name: "porchlight", owner: "acme" });
      forge.createUser("acme", { type: "Organization" });
      await forge.createRepo("acme/blueprints", {
        files: {
          "README.md": "# blueprints\n",
          ".porchlight/variants/fleet.yaml": SET,
          "basens/Kptfile": KPTFILE,
          "basens/cm.yaml": cm("0"),
        },
      });
      for (let i = 1; i <= DOWNSTREAMS; i++)
        await forge.createRepo(`acme/edge-${String(i).padStart(2, "0")}`, {
          files: { "README.md": "# edge\n" },
          topics: ["edge"],
        });
      forge.createInstallation(creds.appId, "acme");
      for (const login of ["alice", "bob"]) {
        const { pat } = forge.createUser(login, { pat: true });
        forge.setPermission("acme/blueprints", login, "write");
        for (let i = 1; i <= DOWNSTREAMS; i++)
          forge.setPermission(`acme/edge-${String(i).padStart(2, "0")}`, login, "read");
        users[login] = new Octokit({ baseUrl: forge.apiUrl, auth: pat });
      }
      queue = new RedisQueue({
        url: TEST_REDIS_URL,
        prefix,
        concurrency: 1,
        run: async () => {},
        sweep: async () => {},
        sweepIntervalMs: 0,
      });
      for (const name of ["r1", "r2", "r3"]) replicas.push(await startReplica(forge, creds, name, prefix));
      lb = await roundRobin(live);
      forge.setWebhookUrl(lb.url);
      await settle();
    }, 120_000);

    afterAll(async () => {
      forge?.setWebhookUrl(null);
      for (const r of replicas) if (alive(r)) r.child.kill("SIGKILL");
      await queue?.close({ abandon: true });
      lb?.server.close();
      await forge?.stop();
      await dropPrefix(prefix);
    });

    it("a publish fanning out to 30 repositories and concurrent commands, one replica killed -9 mid-way: each thing once, nothing lost", async () => {
      const rest = users.alice!;
      const owner = "acme";
      // A proposal of v1, and a second one to talk on.
      const pulls: number[] = [];
      for (const ws of ["ws1", "ws2"]) {
        const base = (await rest.git.getRef({ owner, repo: "blueprints", ref: "heads/main" })).data.object
          .sha;
        await rest.git.createRef({
          owner,
          repo: "blueprints",
          ref: `refs/heads/drafts/basens/${ws}`,
          sha: base,
        });
        const { data: file } = await rest.repos.getContent({
          owner,
          repo: "blueprints",
          path: "basens/cm.yaml",
          ref: `drafts/basens/${ws}`,
        });
        await rest.repos.createOrUpdateFileContents({
          owner,
          repo: "blueprints",
          path: "basens/cm.yaml",
          branch: `drafts/basens/${ws}`,
          message: `v for ${ws}`,
          content: Buffer.from(cm(ws)).toString("base64"),
          sha: (file as { sha: string }).sha,
        });
        const { data: pr } = await rest.pulls.create({
          owner,
          repo: "blueprints",
          head: `drafts/basens/${ws}`,
          base: "main",
          title: ws,
        });
        pulls.push(pr.number);
      }
      await settle();

      // Publish v1 (fan-out to every edge repository), and at once five commands on the other proposal.
      const approve = await users.bob!.issues.createComment({
        owner,
        repo: "blueprints",
        issue_number: pulls[0]!,
        body: "/approve",
      });
      const commands = await Promise.all(
        [1, 2, 3, 4, 5].map((i) =>
          rest.issues.createComment({
            owner,
            repo: "blueprints",
            issue_number: pulls[1]!,
            body: i % 2 ? "/help" : "/render",
          }),
        ),
      );
      // Kill one replica in the middle of the fan-out: some pull requests opened, not all.
      const opened = () =>
        forge.core.store.data.issues.filter((i) => i.pull?.headRef.startsWith("porchlight/variant/")).length;
      await forge
        .waitFor(() => opened() >= Math.min(5, DOWNSTREAMS - 1), "the fan-out under way", 120_000)
        .catch(async (e) => {
          const said = (
            await rest.issues.listComments({ owner, repo: "blueprints", issue_number: pulls[0]! })
          ).data;
          throw new Error(
            `${e.message}\nreplies: ${said.map((c) => c.body).join("\n---\n")}\n${replicas
              .map((r) =>
                r
                  .output()
                  .split("\n")
                  .filter((l) => /fanout|variant|failed|error/i.test(l))
                  .join("\n")
                  .slice(-4000),
              )
              .join("\n")}`,
          );
        });
      const openedAtKill = opened();
      const victim = live()[0]!;
      const exited = once(victim.child, "exit");
      victim.child.kill("SIGKILL");
      await exited;
      await settle();

      expect(openedAtKill).toBeLessThan(DOWNSTREAMS);
      const tags = (await rest.git.listMatchingRefs({ owner, repo: "blueprints", ref: "tags/basens/" })).data;
      expect(tags.map((t) => t.ref)).toEqual(["refs/tags/basens/v1"]);
      for (let i = 1; i <= DOWNSTREAMS; i++) {
        const repo = `edge-${String(i).padStart(2, "0")}`;
        const open = (await rest.pulls.list({ owner, repo, state: "all" })).data;
        expect(
          open.map((p) => p.title),
          repo,
        ).toEqual(["Clone blueprints/basens v1 into basens"]);
      }
      const replies = async (n: number) =>
        (
          await rest.issues.listComments({ owner, repo: "blueprints", issue_number: n, per_page: 100 })
        ).data.map((c) => c.body ?? "");
      // Each comment answered once: a reply's marker names every comment it answers (a flood of the
      // same command is answered once, naming each).
      const answering = (bodies: string[], id: number) =>
        bodies.filter((b) => parseReplyMarker(b).includes(id));
      expect(answering(await replies(pulls[0]!), approve.data.id)).toHaveLength(1);
      const talk = await replies(pulls[1]!);
      for (const c of commands) expect(answering(talk, c.data.id), String(c.data.id)).toHaveLength(1);
      expect([...lb.sent.keys()].sort()).toEqual(["r1", "r2", "r3"]);

      // A replica started now sweeps the whole fleet's repositories: nothing left to write.
      const before = writes();
      replicas.push(await startReplica(forge, creds, "r4", prefix));
      await settle();
      // Named, so a failure says what the new replica still found to do.
      expect(
        writeLog()
          .slice(before)
          .map((r) => `${r.method} ${r.path}`),
      ).toEqual([]);
      // SIGTERM: a replica finishes what it runs, lets go of Redis and exits 0.
      const r4 = replicas.at(-1)!;
      const exit = once(r4.child, "exit");
      r4.child.kill("SIGTERM");
      expect((await exit)[0], r4.output()).toBe(0);
    }, 600_000);
  },
);
