import { Octokit } from "@octokit/rest";
import { beforeAll, describe, expect, it } from "vitest";
import { packageVariant } from "../util/krm.js";
import { publishDraft, useWorld } from "./harness.js";

/**
 * The issue's story on the embedded forge: three waves over 9 downstreams (3 dev, 3 staging, 3 prod),
 * the app on a virtual clock (the system's plus minutes the test moves it on; the forge dates merges by
 * the system's, so a merge is never later than the app's now). Dev automerges, staging soaks 10 minutes after
 * dev passed, prod opens two at a time outside a freeze window; a failing check on a staging default
 * branch stops the rollout until `/rollout resume`, and a sweep with nothing to do writes nothing.
 */
const ENVS = ["dev", "stg", "prod"] as const;
const REPOS = ENVS.flatMap((env) => [1, 2, 3].map((n) => `${env}-${n}`));
const pv = (repo: string) =>
  packageVariant({ name: repo, labels: `{env: ${repo.split("-")[0]}}`, upstream: "basens", repo });
/** The app's clock starts now; the freeze window is its minutes 25 to 34 (one cron expression each, UTC). */
const START = Date.now();
const FREEZE = Array.from({ length: 10 }, (_, i) => {
  const d = new Date(START + (25 + i) * 60_000);
  return `"${d.getUTCMinutes()} ${d.getUTCHours()} ${d.getUTCDate()} ${d.getUTCMonth() + 1} *"`;
});
const CONFIG = `rollout:
  freeze:
    - cron: [${FREEZE.join(", ")}]
  steps:
    - name: dev
      labels: {env: dev}
      automerge: true
    - name: staging
      labels: {env: stg}
      minimumReleaseAge: 10m
    - name: prod
      labels: {env: prod}
      maxConcurrent: 2
`;
const cm = (v: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  v: "${v}"\n`;

describe("progressive rollout end to end (forge over HTTP and git, virtual clock)", () => {
  let offset = 0;
  const owner = "acme";
  const rest = () => w.users.alice!.rest;
  let ci: () => Octokit;
  /** Moves the app's clock to `minutes` after the start. */
  const at = (minutes: number) => {
    offset = START + minutes * 60_000 - Date.now();
  };
  const sweep = async () => {
    await w.app.sweep();
    await w.settle();
  };
  const openPulls = async (repo: string) =>
    (await rest().pulls.list({ owner, repo, state: "open" })).data.filter((p) =>
      p.head.ref.startsWith("porchlight/variant/"),
    );
  const openIn = async (env: string) => {
    const out: string[] = [];
    for (const repo of REPOS.filter((r) => r.startsWith(env)))
      for (const _ of await openPulls(repo)) out.push(repo);
    return out;
  };
  const dashboard = async () => {
    const issues = (
      await rest().issues.listForRepo({ owner, repo: "blueprints", labels: "porchlight/dashboard" })
    ).data;
    expect(issues).toHaveLength(1);
    return issues[0]!;
  };
  const mainSha = async (repo: string) =>
    (await rest().repos.getBranch({ owner, repo, branch: "main" })).data.commit.sha;
  /** The downstream's CI reports on its default branch's head. */
  const check = async (repo: string, conclusion: "success" | "failure") => {
    await ci().checks.create({
      owner,
      repo,
      name: "ci/e2e",
      head_sha: await mainSha(repo),
      status: "completed",
      conclusion,
    });
  };
  const mergeAll = async (
    env: string,
    conclusion: (repo: string) => "success" | "failure" = () => "success",
  ) => {
    // The downstreams' CI reports on each merge before the bot hears of it (a merge's webhook starts a
    // fan-out run at once, and a default branch with no check yet counts as passed: a step that must
    // wait for slow CI says so with minimumReleaseAge, docs/fanout.md). The merges' deliveries are held
    // until then.
    const held = w.forge.webhooks.deliveries.length;
    w.forge.setWebhookUrl(null);
    for (const repo of REPOS.filter((r) => r.startsWith(env)))
      for (const p of await openPulls(repo)) {
        await rest().pulls.merge({ owner, repo, pull_number: p.number, sha: p.head.sha });
        await check(repo, conclusion(repo));
      }
    w.forge.setWebhookUrl(w.app.webhookUrl);
    for (const d of w.forge.webhooks.deliveries.slice(held)) w.forge.webhooks.redeliver(d.id);
    await w.settle();
  };
  let ws = 0;
  const publish = (v: string) => publishDraft(w, `drafts/basens/ws${++ws}`, { "basens/cm.yaml": cm(v) });

  const w = useWorld(
    {
      ".github/porchlight.yml": CONFIG,
      ".porchlight/variants/fleet.yaml": REPOS.map(pv).join("---\n"),
      "basens/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n",
      "basens/cm.yaml": cm("0"),
    },
    { now: () => new Date(Date.now() + offset) },
  );
  beforeAll(async () => {
    for (const repo of REPOS) {
      await w.forge.createRepo(`acme/${repo}`, { files: { "README.md": `# ${repo}\n` } });
      w.forge.setPermission(`acme/${repo}`, "alice", "write");
    }
    const app = w.forge.createApp({ name: "ci", owner: "acme", webhookUrl: null });
    const installation = w.forge.createInstallation(app.appId, "acme");
    ci = () => new Octokit({ baseUrl: w.forge.apiUrl, auth: w.forge.installationToken(installation.id) });
    await w.settle();
  }, 120_000);

  it("opens the dev wave only, automerges it without a person, and soaks before staging", async () => {
    await publish("1");
    // The dev pull requests' checks finished: their own events merged them (and published them), no
    // sweep; nothing of staging or prod opened.
    expect(await openIn("dev")).toEqual([]);
    for (const repo of ["dev-1", "dev-2", "dev-3"]) {
      const tags = (await rest().repos.listTags({ owner, repo })).data.map((x) => x.name);
      expect(tags).toEqual(["basens/v1"]);
    }
    expect(await openIn("stg")).toEqual([]);
    expect(await openIn("prod")).toEqual([]);
    const body = (await dashboard()).body ?? "";
    expect(body).toContain("### Rollout of blueprints/basens");
    expect(body).toMatch(
      /```mermaid\ngraph LR\n {2}subgraph s[0-9a-f]{8}\["1\. dev: ✅ done \(automerge\)"\]/,
    );
    await sweep();
    expect(await openIn("stg")).toEqual([]);
    expect((await dashboard()).body).toMatch(
      /Step \*\*staging\*\*: ⏲️ soaking — soaking until \S+Z \(minimumReleaseAge 10m\)/,
    );
  }, 120_000);

  it("opens staging once soaked; a freeze window holds prod; prod opens two at a time, the third held back and listed", async () => {
    at(11);
    await sweep();
    expect(await openIn("stg")).toEqual(["stg-1", "stg-2", "stg-3"]);
    // Staging merged inside the freeze window: the runs the merges start, and the sweep, open no prod.
    at(26);
    await mergeAll("stg");
    await sweep();
    expect(await openIn("prod")).toEqual([]);
    expect((await dashboard()).body).toContain("a freeze window is on");

    at(35);
    await sweep();
    expect(await openIn("prod")).toEqual(["prod-1", "prod-2"]);
    const body = (await dashboard()).body ?? "";
    expect(body).toContain("Held back by a limit (1):");
    expect(body).toContain("- prod: prod-3/basens — maxConcurrent: 2 pull requests of prod open at once");
    await mergeAll("prod");
    await sweep();
    expect(await openIn("prod")).toEqual(["prod-3"]);
    await mergeAll("prod");
    await sweep();
    expect((await dashboard()).body).toContain("Every step is done.");
  }, 180_000);

  it("a failing check on a staging default branch stops prod; /rollout resume after the fix goes on", async () => {
    at(36);
    await publish("2");
    await sweep(); // dev automerged
    expect(await openIn("dev")).toEqual([]);
    at(47);
    await sweep();
    expect(await openIn("stg")).toEqual(["stg-1", "stg-2", "stg-3"]);
    await mergeAll("stg", (repo) => (repo === "stg-2" ? "failure" : "success"));
    await sweep();
    expect(await openIn("prod")).toEqual([]);
    const stopped = await dashboard();
    expect(stopped.labels.map((l) => (typeof l === "string" ? l : l.name))).toContain(
      "porchlight/rollout-stopped",
    );
    expect(stopped.body).toContain(
      "🛑 **Stopped at step staging**: stg-2/basens: checks failed on the default branch: ci/e2e.",
    );

    // Someone with read permission cannot resume it.
    w.forge.setPermission("acme/blueprints", "rita", "read");
    const refused = await w.say("rita", stopped.number, "/rollout resume");
    expect(refused).toContain("needs write permission");

    // The fix lands; the rollout stays stopped until a person resumes it.
    await rest().repos.createOrUpdateFileContents({
      owner,
      repo: "stg-2",
      path: "FIX.md",
      message: "fix",
      content: Buffer.from("fixed\n").toString("base64"),
    });
    await check("stg-2", "success");
    await sweep();
    expect(await openIn("prod")).toEqual([]);
    const reply = await w.say("alice", stopped.number, "/rollout resume");
    expect(reply).toContain("Rollout resumed");
    expect(await openIn("prod")).toEqual(["prod-1", "prod-2"]);
    expect((await dashboard()).labels.map((l) => (typeof l === "string" ? l : l.name))).not.toContain(
      "porchlight/rollout-stopped",
    );
  }, 180_000);

  it("a sweep with nothing new to do writes nothing", async () => {
    await sweep();
    const before = w.forge.requestLog.entries.length;
    await sweep();
    const writes = w.forge.requestLog.entries
      .slice(before)
      // git's fetches are POSTs too (smart HTTP), and tokens are minted: neither writes anything.
      .filter(
        (e) =>
          e.method !== "GET" && !e.route.includes("access_tokens") && !e.route.endsWith("git-upload-pack"),
      );
    expect(writes.map((e) => `${e.method} ${e.route}`)).toEqual([]);
  }, 120_000);
});
