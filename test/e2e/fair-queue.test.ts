import { Octokit } from "@octokit/rest";
import { type Forge, startForge } from "@porchlight/forge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseReplyMarker } from "../../src/commands/reply.js";
import { dropPrefix, hasRedis, REDIS_MISSING, TEST_REDIS_URL, testPrefix } from "../util/redis.js";
import { type AppProcess, startApp, stopApp } from "./app-child.js";

const KPTFILE = (name: string) => `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: ${name}
`;
const cm = (v: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  v: "${v}"\n`;

const FLOOD = 200;
const PERMISSION = "/repos/{owner}/{repo}/collaborators/{username}/permission";

/**
 * One job slot (PORCHLIGHT_CONCURRENCY=1), so that every job waits for its turn. A flood of `/approve`
 * on a proposal of acme/blueprints: the first command's job is held at its permission lookup, the
 * other 199 comments queue the pull request's next command job behind it. Then a push to a draft in
 * acme/edge (the same installation) and one in globex/site (another installation). When the first
 * command's job ends, both pushes are checked before the flood's next job runs: that job is held at
 * its own permission lookup, so the flood is provably still being worked through when both checks
 * complete. Before fair turns, the flood's job (queued first) took the slot and the pushes waited.
 */
describe.each([
  ["in-process queue", false],
  ["Redis queue", true],
] as const)("a comment flood on one repository does not hold up other repositories (%s)", (_mode, redis) => {
  const skip = redis && !hasRedis;
  let forge: Forge;
  let creds: ReturnType<Forge["createApp"]>;
  let app: AppProcess | undefined;
  const prefix = testPrefix("fair-e2e");
  let rest: (user: string) => Octokit;
  const pats: Record<string, string> = {};
  const pkg = (name: string) => ({
    "README.md": `# ${name}\n`,
    ".github/porchlight.yml": "mergeMethod: merge\n",
    [`apps/${name}/Kptfile`]: KPTFILE(name),
    [`apps/${name}/cm.yaml`]: cm("0"),
  });
  const env: Record<string, string> = {
    PORCHLIGHT_CONCURRENCY: "1",
    PORCHLIGHT_RECONCILE_INTERVAL_MS: "0",
    ...(redis
      ? { REDIS_URL: TEST_REDIS_URL, PORCHLIGHT_REDIS_PREFIX: prefix, PORCHLIGHT_REDIS_LOCK_MS: "1000" }
      : {}),
  };

  beforeAll(async () => {
    if (skip) return;
    forge = await startForge();
    creds = forge.createApp({ name: "porchlight", owner: "acme" });
    forge.setWebhookUrl(null);
    forge.createUser("acme", { type: "Organization" });
    await forge.createRepo("acme/blueprints", { files: pkg("web") });
    forge.createInstallation(creds.appId, "acme");
    for (const login of ["alice", "bob"]) {
      pats[login] = forge.createUser(login, { pat: true }).pat as string;
      forge.setPermission("acme/blueprints", login, "write");
    }
    rest = (user) => new Octokit({ baseUrl: forge.apiUrl, auth: pats[user] });
  });
  afterAll(async () => {
    if (app && app.child.exitCode === null && app.child.signalCode === null) app.child.kill("SIGKILL");
    await forge?.stop();
    if (redis && !skip) await dropPrefix(prefix);
  });

  const store = () => forge.core.store.data;
  const repoId = (full: string) => forge.repo(full).id;
  const pullOf = (number: number) =>
    store().issues.find((i) => i.repoId === repoId("acme/blueprints") && i.number === number)?.pull;
  const checked = (sha: string, name = "porchlight/render") =>
    store().checkRuns.some((r) => r.headSha === sha && r.name === name && r.status === "completed");
  /** How many replies of the bot name each comment. */
  const answersPer = (number: number, ids: readonly number[]) => {
    const count = new Map(ids.map((id) => [id, 0]));
    for (const c of store().comments)
      if (c.repoId === repoId("acme/blueprints") && c.number === number && c.appId === creds.appId)
        for (const id of parseReplyMarker(c.body)) count.set(id, (count.get(id) ?? 0) + 1);
    return count;
  };
  /** Pushes a draft branch at the default branch's head; resolves once the app has taken its webhook. */
  const pushDraft = async (full: string, branch: string): Promise<string> => {
    const [owner, repo] = full.split("/") as [string, string];
    const main = (await rest("alice").git.getRef({ owner, repo, ref: "heads/main" })).data.object.sha;
    await rest("alice").git.createRef({ owner, repo, ref: `refs/heads/${branch}`, sha: main });
    await forge.waitFor(
      () =>
        forge.webhooks
          .find("push")
          .some(
            (d) =>
              d.repositoryId === repoId(full) &&
              (d.payload as { ref: string }).ref === `refs/heads/${branch}` &&
              d.statusCode >= 200 &&
              d.statusCode < 300,
          ),
      `the app took ${full}'s push`,
    );
    return main;
  };

  it.skipIf(skip)(
    `${FLOOD} × /approve on one proposal, then pushes in two other repositories: both are checked before the flood's next job${skip ? ` (${REDIS_MISSING})` : ""}`,
    async () => {
      app = await startApp(forge, creds, env);
      // The other repositories come after the start-up sweep has queued its jobs: no sweep job of
      // theirs is waiting to be lifted by their push (the periodic sweep is off).
      await forge.waitFor(
        () => app?.output().includes('"msg":"sweep queued"') === true,
        "the start-up sweep",
      );
      await forge.createRepo("acme/edge", { files: pkg("edge") });
      forge.createUser("globex", { type: "Organization" });
      await forge.createRepo("globex/site", { files: pkg("site") });
      forge.createInstallation(creds.appId, "globex");
      for (const login of ["alice", "bob"])
        for (const full of ["acme/edge", "globex/site"]) forge.setPermission(full, login, "write");
      const owner = "acme";
      const repo = "blueprints";
      const main = (await rest("alice").git.getRef({ owner, repo, ref: "heads/main" })).data.object.sha;
      await rest("alice").git.createRef({ owner, repo, ref: "refs/heads/drafts/apps/web/one", sha: main });
      await rest("alice").repos.createOrUpdateFileContents({
        owner,
        repo,
        path: "apps/web/cm.yaml",
        branch: "drafts/apps/web/one",
        message: "v: 1",
        content: Buffer.from(cm("1")).toString("base64"),
        sha: (
          (await rest("alice").repos.getContent({ owner, repo, path: "apps/web/cm.yaml" })).data as {
            sha: string;
          }
        ).sha,
      });
      const { data: pr } = await rest("alice").pulls.create({
        owner,
        repo,
        head: "drafts/apps/web/one",
        base: "main",
        title: "one",
      });
      await forge.waitFor(() => {
        const p = pullOf(pr.number);
        return p !== undefined && checked(p.headSha) && checked(p.headSha, "porchlight/guardrails");
      }, "the proposal's checks");

      // Every permission lookup is held until let through: the first /approve's job holds the only slot
      // at its lookup while the flood queues behind it.
      const gate = forge.faults.add({ route: PERMISSION, method: "GET", hang: true });
      const ids: number[] = [];
      for (let i = 0; i < FLOOD; i++) {
        const { data } = await rest("bob").issues.createComment({
          owner,
          repo,
          issue_number: pr.number,
          body: "/approve",
        });
        ids.push(data.id);
        if (i === 0)
          await forge.waitFor(() => forge.faults.holding(gate) === 1, "the first command's lookup");
      }
      await forge.waitFor(
        () =>
          forge.webhooks
            .find("issue_comment")
            .filter(
              (d) =>
                ids.includes((d.payload as { comment: { id: number } }).comment.id) &&
                d.statusCode >= 200 &&
                d.statusCode < 300,
            ).length === FLOOD,
        "every comment taken by the app",
      );
      // Other repositories' pushes, queued after the whole flood.
      const edgeHead = await pushDraft("acme/edge", "drafts/apps/edge/one");
      const siteHead = await pushDraft("globex/site", "drafts/apps/site/one");

      // The first command's job goes on (each of its lookups let through) until it has answered its
      // comment; every later lookup stays held: the flood's next job cannot finish.
      while (answersPer(pr.number, ids.slice(0, 1)).get(ids[0] as number) === 0) {
        forge.faults.release(gate);
        await forge.waitFor(
          () =>
            forge.faults.holding(gate) > 0 ||
            (answersPer(pr.number, ids.slice(0, 1)).get(ids[0] as number) ?? 0) > 0,
          "the first command's job held again, or done",
        );
      }
      await forge.waitFor(
        () => checked(edgeHead) && checked(siteHead),
        "both other repositories' drafts checked while the flood waits",
      );
      const answered = answersPer(pr.number, ids);
      expect(ids.slice(1).filter((id) => (answered.get(id) ?? 0) > 0)).toEqual([]);

      // The flood goes on: every comment answered once, the proposal published.
      forge.faults.remove(gate);
      await forge.waitFor(
        () => [...answersPer(pr.number, ids).values()].every((n) => n > 0),
        "every command answered",
        60_000,
      );
      await stopApp(forge, app);
      expect([...answersPer(pr.number, ids).values()].filter((n) => n !== 1)).toEqual([]);
      expect(pullOf(pr.number)?.merged).toBe(true);
    },
    180_000,
  );
});
