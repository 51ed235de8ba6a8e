import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { Octokit } from "@octokit/rest";
import { type Forge, startForge } from "@porchlight/forge";
import { RedisQueue } from "../src/queue/redis-queue.js";
import { alive, type Replica, roundRobin, startReplica } from "../test/e2e/fleet-process.js";
import { dropPrefix, REDIS_MISSING, testPrefix } from "../test/util/redis.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: basens\n";
const CM = (v: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  v: "${v}"\n`;
const SET = `apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: edge
spec:
  upstream: {package: basens, channel: stable}
  targets:
  - repositorySelector:
      topics: [edge]
`;

export interface FleetBenchRow {
  scenario: string;
  replicas: number;
  installations: number;
  pullRequests: number;
  wallS: number;
  prPerMin: number;
  /** `prPerMin` over the same scenario's with one replica. */
  speedup: string;
  /** REST calls of the app's installations over pull requests opened. */
  apiPerPR: number;
  /** git requests (fetches and pushes) of the app over pull requests opened: each replica keeps its own clones. */
  gitPerPR: number;
  /** Mutating REST calls and git pushes over pull requests opened. */
  writesPerPR: number;
  /** Calls GitHub (the forge) refused with a rate limit, retried by the client. */
  rateLimited: number;
  /** Pull requests beyond one per downstream: must be 0. */
  duplicates: number;
  /** Replica processes' CPU time (with their git) over wall time (2 = two cores busy the whole run). */
  cpuCores: number;
  /** The same for this process: the forge serving GitHub's API and git, and the balancer. */
  forgeCores: number;
  load: string;
  /** The whole machine's busy CPU over the wall time (every process: the fleet, the forge, other users). */
  machineCores: number;
  /** The forge with its children (the `git http-backend` serving every fetch and push) over the wall time. */
  forgeWithGitCores: number;
  /** Jobs each replica runs at once. */
  concurrency: number;
  /**
   * Seconds from the clock's start to each installation's last request (min / median / max): the
   * installations finish together when they run side by side, one after another when they queue.
   */
  installationDoneS: [number, number, number];
  /** Mean seconds an installation's requests spanned (its first to its last). */
  installationSpanS: number;
  /** Its writes times the write interval: the least time an installation's pacing allows (max of the fleet). */
  paceBoundS: number;
  /** CPU seconds per pull request: the replicas with their git, the forge with its git. */
  cpuPerPR: number;
  /** The replicas' job slots (replicas × concurrency × wall) busy with a job. */
  slotsBusy: number;
  /** Mean milliseconds of one REST call as the jobs see it (pacing included). */
  restMeanMs: number;
  /**
   * What held the fleet back, from the figures above: `cpu` (the machine's cores busy: more replicas
   * share the same cores), `pacing` (an installation's writes at its pace for most of the run), `job
   * slots` (every replica's slots busy: more replicas, or more jobs each, go faster), else `none`.
   */
  bound: string;
  /** Per job kind, summed over the replicas: count, total seconds, mean seconds. */
  jobs: Record<string, { n: number; s: number; mean: number }>;
  /** Seconds jobs waited from queued to started (all kinds), total and mean; jobs parked for a busy repository. */
  queueWaitS: { total: number; mean: number; busyRetries: number };
  /** Seconds spent in REST calls (their pacing included), and in the pacing waits alone, summed over the replicas. */
  restS: number;
  pacingS: { write: number; notifications: number };
}

/** Jobs at once per replica: PORCHLIGHT_CONCURRENCY, `porchlight serve`'s default unless FLEET_BENCH_CONCURRENCY. */
const REPLICA_CONCURRENCY = Number(process.env.FLEET_BENCH_CONCURRENCY ?? 4);

interface Scenario {
  name: string;
  installations: number;
  downstreams: number;
  /** PORCHLIGHT_WRITE_INTERVAL_MS: least time between two writes of one installation, fleet-wide. */
  writeMs: number;
  /** Added to every request to the forge (API and git): GitHub's round trip, which the forge lacks. */
  latencyMs?: number;
}

/**
 * The fleet bench (issue #15): N installations, each publishing a package that fans out to D downstream
 * repositories on the embedded forge, worked by 1 and by 3 `porchlight serve` replicas (child processes
 * on one Redis, webhooks spread round-robin), with the forge's rate limits on (5,000 calls an hour per
 * installation, and 80 writes a minute per installation as GitHub's secondary limit). The clock runs
 * from the `/approve` comments to the last job of the fleet done: every pull request opened, checked
 * and summarised. Three scenarios:
 *
 * - `cpu`: 20 installations × 10, no write pacing: the work is CPU (rendering, merging, git, JSON),
 *   so on a machine with fewer cores than replicas the replicas share the same cores;
 * - `paced`: 20 installations × 10 with write pacing (FLEET_BENCH_WRITE_MS, default 250 ms between
 *   two writes of one installation, fleet-wide): jobs mostly wait, and waiting is not CPU, so three
 *   replicas (4 jobs each) keep more installations writing at once;
 * - `latency`: 10 installations × 5 with FLEET_BENCH_LATENCY_MS (default 300) added to every request
 *   to the forge, as GitHub's round trip is (the forge answers in about a millisecond): a job mostly
 *   waits for GitHub, so a replica's job slots, not the CPU, are what is short, as with GitHub itself;
 * - `one installation`: 1 × 20 at GitHub's pace (1 s a write, the default): every write waits for the
 *   same installation's pace, whatever the number of replicas — GitHub's per-installation limit is
 *   the bottleneck. (At 250 ms a write one installation goes past GitHub's 80 writes a minute.)
 *
 * FLEET_BENCH_INSTALLATIONS, FLEET_BENCH_DOWNSTREAMS, FLEET_BENCH_WRITE_MS, FLEET_BENCH_LATENCY_MS, FLEET_BENCH_CONCURRENCY
 * (PORCHLIGHT_CONCURRENCY of each replica, default 4) and FLEET_BENCH_REPLICAS
 * (default "1,3") change the sizes; FLEET_BENCH_ONLY=cpu|paced|latency|one runs one scenario.
 */
export async function benchFleet(): Promise<FleetBenchRow[] | undefined> {
  if (REDIS_MISSING) {
    console.log(`fleet bench skipped: ${REDIS_MISSING}`);
    return undefined;
  }
  const n = Number(process.env.FLEET_BENCH_INSTALLATIONS ?? 20);
  const d = Number(process.env.FLEET_BENCH_DOWNSTREAMS ?? 10);
  const writeMs = Number(process.env.FLEET_BENCH_WRITE_MS ?? 250);
  const latencyMs = Number(process.env.FLEET_BENCH_LATENCY_MS ?? 300);
  const counts = (process.env.FLEET_BENCH_REPLICAS ?? "1,3").split(",").map(Number);
  const scenarios: (Scenario & { key: string })[] = [
    { key: "cpu", name: "cpu (no pacing)", installations: n, downstreams: d, writeMs: 0 },
    { key: "paced", name: `paced (${writeMs} ms/write)`, installations: n, downstreams: d, writeMs },
    {
      key: "latency",
      name: `latency (${latencyMs} ms a request, ${writeMs} ms/write)`,
      installations: Math.max(1, Math.round(n / 2)),
      downstreams: Math.max(1, Math.round(d / 2)),
      writeMs,
      latencyMs,
    },
    {
      key: "one",
      name: "one installation (1000 ms/write, GitHub's pace)",
      installations: 1,
      downstreams: 2 * d,
      writeMs: 1000,
    },
  ].filter((s) => !process.env.FLEET_BENCH_ONLY || process.env.FLEET_BENCH_ONLY === s.key);
  const rows: FleetBenchRow[] = [];
  for (const scenario of scenarios) {
    let base: number | undefined;
    for (const replicas of counts) {
      const row = await runOnce(scenario, replicas);
      base ??= row.prPerMin;
      row.speedup = `${(row.prPerMin / base).toFixed(2)}×`;
      rows.push(row);
      console.log(JSON.stringify(row));
    }
  }
  console.log(
    `(${cpus().length} cores; "cpuCores" is the replicas' CPU time over the wall time: a fleet on fewer cores than replicas is CPU-bound.)`,
  );
  return rows;
}

async function runOnce(s: Scenario, replicaCount: number): Promise<FleetBenchRow> {
  const forge = await startForge();
  const prefix = testPrefix("bench-fleet");
  const replicas: Replica[] = [];
  const live = () => replicas.filter(alive);
  const lb = await roundRobin(live);
  const queue = new RedisQueue({
    url: process.env.PORCHLIGHT_TEST_REDIS_URL ?? "redis://127.0.0.1:6379",
    prefix,
    concurrency: 1,
    run: async () => {},
    sweep: async () => {},
    sweepIntervalMs: 0,
  });
  try {
    const creds = forge.createApp({ name: "porchlight", owner: "bench" });
    const orgs = Array.from({ length: s.installations }, (_, i) => `org-${String(i + 1).padStart(2, "0")}`);
    const edges = Array.from({ length: s.downstreams }, (_, j) => `edge-${String(j + 1).padStart(2, "0")}`);
    const users: Record<string, Octokit> = {};
    for (const login of ["alice", "bob"])
      users[login] = new Octokit({ baseUrl: forge.apiUrl, auth: forge.createUser(login, { pat: true }).pat });
    for (const org of orgs) {
      forge.createUser(org, { type: "Organization" });
      await forge.createRepo(`${org}/blueprints`, {
        files: {
          "README.md": "# blueprints\n",
          ".porchlight/variants/fleet.yaml": SET,
          "basens/Kptfile": KPTFILE,
          "basens/cm.yaml": CM("0"),
        },
      });
      for (const e of edges)
        await forge.createRepo(`${org}/${e}`, { files: { "README.md": "# edge\n" }, topics: ["edge"] });
      forge.createInstallation(creds.appId, org);
      for (const login of ["alice", "bob"]) forge.setPermission(`${org}/blueprints`, login, "write");
    }
    const env = {
      PORCHLIGHT_WRITE_INTERVAL_MS: String(s.writeMs),
      PORCHLIGHT_REDIS_LOCK_MS: "30000",
      PORCHLIGHT_CONCURRENCY: String(REPLICA_CONCURRENCY),
    };
    for (let r = 1; r <= replicaCount; r++)
      replicas.push(await startReplica(forge, creds, `r${r}`, prefix, env));
    forge.setWebhookUrl(lb.url);
    const settle = () => fleetIdle(forge, queue, replicas);
    await settle();
    // One proposal per installation, checked before the clock starts.
    const proposals = new Map<string, number>();
    for (const org of orgs) proposals.set(org, await propose(users.alice!, org));
    await settle();

    // GitHub's content-creation limit: 80 writes a minute per installation; past it, wait a minute.
    forge.rateLimit.secondary({ perMinute: 80, retryAfter: 60 });
    const latency = s.latencyMs ? forge.faults.add({ route: "*", delayMs: s.latencyMs }) : undefined;
    const before = forge.requestLog.entries.length;
    const cpuBefore = await cpuSeconds(replicas);
    const forgeBefore = process.cpuUsage();
    const forgeGitBefore = selfWithChildren();
    const machineBefore = machineBusy();
    const metricsBefore = await scrapeAll(replicas);
    const start = performance.now();
    await Promise.all(
      orgs.map((org) =>
        users.bob!.issues.createComment({
          owner: org,
          repo: "blueprints",
          issue_number: proposals.get(org)!,
          body: "/approve",
        }),
      ),
    );
    const opened = () =>
      forge.core.store.data.issues.filter((i) => i.pull?.headRef.startsWith("porchlight/variant/")).length;
    const expected = s.installations * s.downstreams;
    await forge.waitFor(() => opened() >= expected, "every downstream's pull request", 1_800_000);
    await settle();
    const wallS = (performance.now() - start) / 1000;
    const cpu = (await cpuSeconds(replicas)) - cpuBefore;
    const forgeCpu = process.cpuUsage(forgeBefore);
    const forgeGit = selfWithChildren() - forgeGitBefore;
    const machine = machineBusy();
    const machineS = (machine.busy - machineBefore.busy) / (machine.total - machineBefore.total);
    const metrics = subtract(await scrapeAll(replicas), metricsBefore);
    forge.rateLimit.secondary(null);
    if (latency) forge.faults.remove(latency);

    const log = forge.requestLog.entries.slice(before).filter((e) => e.installationId !== null);
    const rest = log.filter((e) => !e.route.includes(".git/") && !e.route.includes("access_tokens"));
    const writes = log.filter(
      (e) => e.method !== "GET" && !e.route.includes("access_tokens") && !e.route.endsWith("git-upload-pack"),
    );
    const prs = opened();
    const byInstallation = new Map<number, { first: number; last: number; writes: number }>();
    for (const e of log) {
      if (e.route.includes("access_tokens")) continue;
      const t = byInstallation.get(e.installationId!) ?? { first: e.at, last: e.at, writes: 0 };
      t.first = Math.min(t.first, e.at);
      t.last = Math.max(t.last, e.at);
      if (e.method !== "GET" && !e.route.endsWith("git-upload-pack")) t.writes++;
      byInstallation.set(e.installationId!, t);
    }
    const timelines = [...byInstallation.values()];
    const done = timelines.map((t) => (t.last - start) / 1000).sort((a, b) => a - b);
    const kinds = new Set(
      [...metrics.keys()].flatMap(
        (k) => /^porchlight_job_duration_seconds_count\{kind="([^"]+)"/.exec(k)?.[1] ?? [],
      ),
    );
    const jobs = Object.fromEntries(
      [...kinds].map((kind) => {
        const n = metrics.get(`porchlight_job_duration_seconds_count{kind="${kind}"}`) ?? 0;
        const sum = metrics.get(`porchlight_job_duration_seconds_sum{kind="${kind}"}`) ?? 0;
        return [kind, { n, s: round(sum, 1), mean: round(sum / Math.max(1, n), 2) }];
      }),
    );
    const waitN = metrics.get(`porchlight_queue_wait_seconds_count{queue="jobs"}`) ?? 0;
    const waitS = metrics.get(`porchlight_queue_wait_seconds_sum{queue="jobs"}`) ?? 0;
    const jobSeconds = Object.values(jobs).reduce((n, j) => n + j.s, 0);
    const slotsBusy = jobSeconds / (replicaCount * REPLICA_CONCURRENCY * wallS);
    const paceBoundS = (Math.max(0, ...timelines.map((t) => t.writes)) * s.writeMs) / 1000;
    const restCalls = [...metrics]
      .filter(([k]) => k.startsWith("porchlight_github_api_calls_total"))
      .reduce((n, [, v]) => n + v, 0);
    const cores = cpus().length;
    const bound =
      machineS >= 0.9 || cpu + forgeGit >= 0.8 * cores * wallS
        ? "cpu"
        : paceBoundS >= 0.7 * wallS
          ? "pacing"
          : slotsBusy >= 0.8
            ? "job slots"
            : "none";
    return {
      scenario: s.name,
      replicas: replicaCount,
      installations: s.installations,
      pullRequests: prs,
      wallS: round(wallS, 1),
      prPerMin: round((prs / wallS) * 60, 1),
      speedup: "",
      apiPerPR: round(rest.length / prs, 1),
      gitPerPR: round(log.filter((e) => e.route.includes(".git/")).length / prs, 1),
      writesPerPR: round(writes.length / prs, 1),
      rateLimited: rest.filter((e) => e.status === 403 || e.status === 429).length,
      duplicates: prs - expected,
      cpuCores: round(cpu / wallS, 2),
      forgeCores: round((forgeCpu.user + forgeCpu.system) / 1e6 / wallS, 2),
      load: loadavg()
        .map((l) => l.toFixed(1))
        .join(" "),
      machineCores: round(machineS * cpus().length, 2),
      forgeWithGitCores: round(forgeGit / wallS, 2),
      concurrency: REPLICA_CONCURRENCY,
      installationDoneS: [
        round(done[0] ?? 0, 1),
        round(done[Math.floor(done.length / 2)] ?? 0, 1),
        round(done.at(-1) ?? 0, 1),
      ],
      installationSpanS: round(
        timelines.reduce((n, t) => n + (t.last - t.first), 0) / Math.max(1, timelines.length) / 1000,
        1,
      ),
      paceBoundS: round(paceBoundS, 1),
      cpuPerPR: round((cpu + forgeGit) / prs, 2),
      slotsBusy: round(slotsBusy, 2),
      restMeanMs: Math.round(
        ((metrics.get("porchlight_github_api_seconds_sum") ?? 0) * 1000) / Math.max(1, restCalls),
      ),
      bound,
      jobs,
      queueWaitS: {
        total: round(waitS, 1),
        mean: round(waitS / Math.max(1, waitN), 2),
        busyRetries: metrics.get(`porchlight_queue_retries_total{queue="jobs",reason="busy"}`) ?? 0,
      },
      restS: round(metrics.get("porchlight_github_api_seconds_sum") ?? 0, 1),
      pacingS: {
        write: round(metrics.get(`porchlight_github_pacing_wait_seconds_sum{group="write"}`) ?? 0, 1),
        notifications: round(
          metrics.get(`porchlight_github_pacing_wait_seconds_sum{group="notifications"}`) ?? 0,
          1,
        ),
      },
    };
  } finally {
    forge.setWebhookUrl(null);
    for (const r of replicas) if (alive(r)) r.child.kill("SIGKILL");
    await queue.close({ abandon: true });
    lb.server.close();
    await forge.stop();
    await dropPrefix(prefix);
  }
}

/** A draft of basens with a change and its pull request, as alice: the proposal to publish. */
async function propose(rest: Octokit, owner: string): Promise<number> {
  const repo = "blueprints";
  const base = (await rest.git.getRef({ owner, repo, ref: "heads/main" })).data.object.sha;
  await rest.git.createRef({ owner, repo, ref: "refs/heads/drafts/basens/ws1", sha: base });
  const { data: file } = await rest.repos.getContent({
    owner,
    repo,
    path: "basens/cm.yaml",
    ref: "drafts/basens/ws1",
  });
  await rest.repos.createOrUpdateFileContents({
    owner,
    repo,
    path: "basens/cm.yaml",
    branch: "drafts/basens/ws1",
    message: "v1",
    content: Buffer.from(CM("1")).toString("base64"),
    sha: (file as { sha: string }).sha,
  });
  const { data: pr } = await rest.pulls.create({
    owner,
    repo,
    head: "drafts/basens/ws1",
    base: "main",
    title: "v1",
  });
  return pr.number;
}

/** Every webhook delivered and the fleet's queue empty, twice in a row. */
async function fleetIdle(forge: Forge, queue: RedisQueue, replicas: Replica[]): Promise<void> {
  let quiet = 0;
  for (let i = 0; i < 36_000 && quiet < 2; i++) {
    await forge.webhooks.idle();
    const c = await queue.counts();
    quiet = Object.values(c).every((x) => x === 0) ? quiet + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (quiet < 2) throw new Error(`the fleet did not settle:\n${replicas.map((r) => r.output()).join("\n")}`);
}

/** CPU seconds (user + system) the replica processes used so far, from /proc. */
async function cpuSeconds(replicas: Replica[]): Promise<number> {
  const { readFileSync } = await import("node:fs");
  let ticks = 0;
  for (const r of replicas) {
    try {
      const fields = readFileSync(`/proc/${r.child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      // utime, stime, and the same of its children waited for (git)
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // not on Linux, or the process is gone: counted as 0
    }
  }
  return ticks / 100;
}

/** This process's CPU seconds with its children waited for (the forge's `git http-backend`), from /proc. */
function selfWithChildren(): number {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

/** The machine's busy and total CPU ticks (all cores), from /proc/stat. */
function machineBusy(): { busy: number; total: number } {
  try {
    const ticks = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = ticks.reduce((a, b) => a + b, 0);
    // idle and iowait
    return { busy: total - (ticks[3] ?? 0) - (ticks[4] ?? 0), total };
  } catch {
    return { busy: 0, total: 1 };
  }
}

/** Every replica's metrics (porchlight_* series, labels but `replica`), summed over the fleet. */
async function scrapeAll(replicas: Replica[]): Promise<Map<string, number>> {
  const sum = new Map<string, number>();
  for (const r of replicas) {
    const res = await fetch(new URL("/metrics", r.webhookUrl)).catch(() => undefined);
    if (!res?.ok) continue;
    for (const line of (await res.text()).split("\n")) {
      const m = /^(porchlight_[a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) continue;
      const labels = (m[2] ?? "")
        .split(",")
        .filter((l) => l && !l.startsWith("replica=") && !l.startsWith("le="));
      if ((m[2] ?? "").includes("le=")) continue;
      const key = labels.length ? `${m[1]}{${labels.join(",")}}` : m[1]!;
      sum.set(key, (sum.get(key) ?? 0) + Number(m[3]));
    }
  }
  return sum;
}

function subtract(after: Map<string, number>, before: Map<string, number>): Map<string, number> {
  return new Map([...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)]));
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
