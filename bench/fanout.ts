import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { startForge } from "@porchlight/forge";
import { pino } from "pino";
import { Probot } from "probot";
import type { Rollout } from "../src/config/rollout-schema.js";
import { installationPort } from "../src/github/installation.js";
import { porchlightOctokit } from "../src/github/octokit.js";
import { reconcileFanout } from "../src/jobs/fanout/index.js";
import { KptRenderer } from "../src/jobs/kpt-renderer/index.js";
import { rootOutbox } from "../src/jobs/outbox.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n";
const CM = (v: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  v: "${v}"\n`;
const SET = `apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: fleet
spec:
  upstream: {package: basens, revision: v1}
  targets:
  - repositorySelector:
      topics: [fleet]
`;

export interface FanoutBenchRow {
  step: string;
  downstreams: number;
  wallMs: number;
  restCalls: number;
  restPerDownstream: number;
  gitRequests: number;
  rateLimited: number;
  /** Mutating requests (REST writes and git pushes); 0 when there is nothing to do. */
  writes: number;
  failedNotRetried: number;
  duplicatePRs: number;
}

/**
 * Fan-out to N downstream repositories (default 200, env FANOUT_BENCH_N) on the embedded forge with its
 * secondary rate limit on (every 7th mutation refused with retry-after): clone into every downstream,
 * then update every one to v2 (the same pull requests), then a run with nothing to do. Reports wall time,
 * REST calls per downstream, refusals retried, and duplicate pull requests (must be 0).
 */
export async function benchFanout(): Promise<FanoutBenchRow[]> {
  const n = Number(process.env.FANOUT_BENCH_N ?? 200);
  const world = await fanoutBenchWorld(n, { ".porchlight/variants/fleet.yaml": SET });
  try {
    await world.run("clone v1 into every downstream");
    await world.edit("basens/cm.yaml", CM("2"));
    await world.tag("v2");
    await world.edit(".porchlight/variants/fleet.yaml", SET.replace("revision: v1", "revision: v2"));
    await world.run("update every open PR to v2");
    await world.run("nothing to do");
    return world.rows;
  } finally {
    await world.stop();
  }
}

/** The fleet set the benches fan out with: every `cluster-NNN` repository, at `revision`. */
export const FLEET_SET = SET;

/**
 * N downstream repositories `cluster-000…` (topic fleet) and `acme/blueprints` holding package basens
 * (tagged v1) and `files`; `run(step)` reconciles fan-out once with the forge's secondary rate limit on
 * (every 7th mutation refused with retry-after) and adds a row of figures.
 */
export async function fanoutBenchWorld(
  n: number,
  files: Record<string, string>,
  extra: { rollout?: Rollout } = {},
) {
  const forge = await startForge();
  const cacheDir = mkdtempSync(join(tmpdir(), "porchlight-bench-fanout-"));
  const creds = forge.createApp({ name: "porchlight", owner: "acme" });
  forge.createUser("acme", { type: "Organization" });
  await forge.createRepo("acme/blueprints", {
    files: { "basens/Kptfile": KPTFILE, "basens/cm.yaml": CM("1"), ...files },
  });
  for (let i = 0; i < n; i++)
    await forge.createRepo(`acme/${clusterName(i)}`, { autoInit: true, topics: ["fleet"] });
  const inst = forge.createInstallation(creds.appId, "acme");
  const admin = new Octokit({ baseUrl: forge.apiUrl, auth: forge.installationToken(inst.id) });
  const tag = async (revision: string) => {
    const main = await admin.repos.getBranch({ owner: "acme", repo: "blueprints", branch: "main" });
    await admin.git.createRef({
      owner: "acme",
      repo: "blueprints",
      ref: `refs/tags/basens/${revision}`,
      sha: main.data.commit.sha,
    });
  };
  const edit = async (path: string, text: string) => {
    const { data } = await admin.repos.getContent({ owner: "acme", repo: "blueprints", path });
    await admin.repos.createOrUpdateFileContents({
      owner: "acme",
      repo: "blueprints",
      path,
      message: `edit ${path}`,
      content: Buffer.from(text).toString("base64"),
      sha: (data as { sha: string }).sha,
    });
  };
  await tag("v1");

  const probot = new Probot({
    appId: creds.appId,
    privateKey: creds.privateKeyPem,
    baseUrl: forge.apiUrl,
    log: pino({ level: "silent" }),
    Octokit: porchlightOctokit({ writeIntervalMs: 0, rateLimitRetries: 5, retryAfterUnitMs: 1 }),
  });
  const octokit = await probot.auth(inst.id);
  const ctx = () => ({
    installation: timed(installationPort(octokit as never, cacheDir)),
    renderer: new KptRenderer(),
    bot: { login: "porchlight[bot]", author: { name: "porchlight[bot]", email: "bot@porchlight.test" } },
    log: pino({ level: "silent" }),
    runtimes: ["builtin" as const],
    // the bench measures one fan-out run: what it implies (an auto-published revision's fan-out) is not queued
    outbox: rootOutbox(async () => {}),
    ...(extra.rollout ? { rollout: extra.rollout } : {}),
  });

  const rows: FanoutBenchRow[] = [];
  const openPulls = async (repo: string) =>
    (await admin.pulls.list({ owner: "acme", repo, state: "open" })).data;
  const run = async (step: string) => {
    const before = forge.requestLog.filter({}).length;
    const start = performance.now();
    forge.rateLimit.secondary({ everyNthMutation: 7, retryAfter: 1 });
    const report = await reconcileFanout(ctx(), "blueprints").finally(() => forge.rateLimit.secondary(null));
    const wallMs = Math.round(performance.now() - start);
    const log = forge.requestLog.filter({}).slice(before);
    const rest = log.filter((r) => !r.route.includes(".git/") && !r.route.includes("access_tokens"));
    const rateLimited = rest.filter((r) => r.status === 403 || r.status === 429).length;
    let duplicatePRs = 0;
    for (let i = 0; i < n; i++) duplicatePRs += Math.max(0, (await openPulls(clusterName(i))).length - 1);
    rows.push({
      step,
      downstreams: n,
      wallMs,
      restCalls: rest.length,
      restPerDownstream: Math.round((rest.length / n) * 100) / 100,
      gitRequests: log.length - rest.length,
      rateLimited,
      writes: log.filter(
        (r) =>
          r.method !== "GET" && !r.route.includes("access_tokens") && !r.route.endsWith("git-upload-pack"),
      ).length,
      failedNotRetried: report.failures.length,
      duplicatePRs,
    });
    return report;
  };
  /** Merges every open pull request of the downstreams, as people would; returns how many. */
  const mergeAll = async () => {
    let merged = 0;
    for (let i = 0; i < n; i++)
      for (const p of await openPulls(clusterName(i))) {
        await admin.pulls.merge({
          owner: "acme",
          repo: clusterName(i),
          pull_number: p.number,
          sha: p.head.sha,
        });
        merged++;
      }
    return merged;
  };
  return {
    rows,
    run,
    tag,
    edit,
    mergeAll,
    stop: async () => {
      await forge.stop();
      rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

export function clusterName(i: number): string {
  return `cluster-${String(i).padStart(3, "0")}`;
}

const stats = new Map<string, { n: number; ms: number }>();
function timed(inst: ReturnType<typeof installationPort>): ReturnType<typeof installationPort> {
  if (!process.env.FANOUT_PROFILE) return inst;
  const wrap = <T extends object>(o: T): T =>
    new Proxy(o, {
      get(target, key) {
        const v = (target as Record<string | symbol, unknown>)[key];
        if (typeof v !== "function") return v;
        if (key === "repo")
          return (...args: unknown[]) => wrap((v as (...a: unknown[]) => object).apply(target, args));
        return async (...args: unknown[]) => {
          const t = performance.now();
          try {
            const out = await (v as (...a: unknown[]) => unknown).apply(target, args);
            return out;
          } finally {
            const s = stats.get(String(key)) ?? { n: 0, ms: 0 };
            s.n++;
            s.ms += performance.now() - t;
            stats.set(String(key), s);
          }
        };
      },
    });
  process.on("exit", () =>
    console.table([...stats].map(([k, v]) => ({ call: k, n: v.n, ms: Math.round(v.ms) }))),
  );
  return wrap(inst);
}
