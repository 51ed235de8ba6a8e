import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { pino } from "pino";
import { Probot } from "probot";
import { startForge } from "../src/forge/index.js";
import { installationPort } from "../src/github/installation.js";
import { porchlightOctokit } from "../src/github/octokit.js";
import { reconcileFanout } from "../src/jobs/fanout/index.js";
import { KptRenderer } from "../src/jobs/kpt-renderer/index.js";

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
  const forge = await startForge();
  const cacheDir = mkdtempSync(join(tmpdir(), "porchlight-bench-fanout-"));
  try {
    const creds = forge.createApp({ name: "porchlight", owner: "acme" });
    forge.createUser("acme", { type: "Organization" });
    await forge.createRepo("acme/blueprints", {
      files: {
        ".porchlight/variants/fleet.yaml": SET,
        "basens/Kptfile": KPTFILE,
        "basens/cm.yaml": CM("1"),
      },
    });
    for (let i = 0; i < n; i++)
      await forge.createRepo(`acme/cluster-${String(i).padStart(3, "0")}`, {
        autoInit: true,
        topics: ["fleet"],
      });
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
    });

    const rows: FanoutBenchRow[] = [];
    const run = async (step: string) => {
      const before = forge.requestLog.filter({}).length;
      const start = performance.now();
      forge.rateLimit.secondary({ everyNthMutation: 7, retryAfter: 1 });
      const report = await reconcileFanout(ctx(), "blueprints").finally(() =>
        forge.rateLimit.secondary(null),
      );
      const wallMs = Math.round(performance.now() - start);
      const log = forge.requestLog.filter({}).slice(before);
      const rest = log.filter((r) => !r.route.includes(".git/") && !r.route.includes("access_tokens"));
      const rateLimited = rest.filter((r) => r.status === 403 || r.status === 429).length;
      let duplicatePRs = 0;
      for (let i = 0; i < n; i++) {
        const repo = `cluster-${String(i).padStart(3, "0")}`;
        const open = await admin.pulls.list({ owner: "acme", repo, state: "open" });
        duplicatePRs += Math.max(0, open.data.length - 1);
      }
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
    };
    await run("clone v1 into every downstream");
    await edit("basens/cm.yaml", CM("2"));
    await tag("v2");
    await edit(".porchlight/variants/fleet.yaml", SET.replace("revision: v1", "revision: v2"));
    await run("update every open PR to v2");
    await run("nothing to do");
    return rows;
  } finally {
    await forge.stop();
    rmSync(cacheDir, { recursive: true, force: true });
  }
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
