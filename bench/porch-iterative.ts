import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { CustomObjectsApi, KubeConfig, type KubernetesObject } from "@kubernetes/client-node";
import { FROM_SOURCE } from "../test/e2e/serve-child.js";
import type { ServeAsk, ServedRequest, ServeQuestion } from "./porch-iterative-serve.js";

/**
 * Porch's iterative performance test (nephio-project/porch, test/e2e/performance/iterative_test.go),
 * translated: against `porchlight serve` in a child process (the embedded forge, the app, Porch's API),
 * with Porch's layout (one git repository holding every registration, each in its own directory:
 * `iterative-control-1…R` with the control package, `iterative-test` in `iterativedir` with the test
 * package), through `@kubernetes/client-node` as Porch's Go client does. At each N it brings every
 * control registration to N published revisions of `control-package` (created with an init task,
 * proposed, approved, as Porch's test does; the registrations in parallel), then times SAMPLES lives of
 * `test-package` in Porch's order — list, create, update resources, get, propose, get, approve, get,
 * propose-delete, get, delete — and counts the forge's requests (REST; git over HTTP apart; 304s apart)
 * each operation costs the caller (the user's token) and the app (its installation token).
 *
 * Porch creates each N from scratch and deletes the control revisions after it; this bench grows them
 * from one N to the next (the state measured, N published revisions a registration, is the same).
 *
 * Env: PORCH_ITERATIVE_N (default 10,50,100), PORCH_ITERATIVE_REPOS (default 1,3),
 * PORCH_ITERATIVE_SAMPLES (default 5, as Porch's `-sampling`), PORCH_ITERATIVE_TRACE=1 (each request of
 * each operation, by principal), PORCH_ITERATIVE_PROFILE_DIR (serve's CPU profile of each N's lives,
 * `lives-repos<R>-n<N>.cpuprofile` there).
 */
const NS = process.env.PORCH_ITERATIVE_N?.split(",").map(Number) ?? [10, 50, 100];
const REPO_COUNTS = process.env.PORCH_ITERATIVE_REPOS?.split(",").map(Number) ?? [1, 3];
const SAMPLES = Number(process.env.PORCH_ITERATIVE_SAMPLES ?? 5);
const TRACE = process.env.PORCH_ITERATIVE_TRACE === "1";
const PROFILE_DIR = process.env.PORCH_ITERATIVE_PROFILE_DIR;

const GROUP = "porch.kpt.dev";
const VERSION = "v1alpha1";
const NAMESPACE = "acme";
const GIT_REPO = "acme/porch-test";
const TEST_REPO = "iterative-test";
const TEST_PACKAGE = "test-package";
const CONTROL_PACKAGE = "control-package";

const OPS = [
  "list",
  "create",
  "update resources",
  "get after update",
  "propose",
  "get after propose",
  "approve",
  "get after approve",
  "propose-delete",
  "get after propose-delete",
  "delete",
] as const;
type Op = (typeof OPS)[number];

export interface IterativeRow {
  repos: number;
  operation: string;
  [column: string]: string | number;
}

type Revision = KubernetesObject & {
  spec: {
    packageName: string;
    workspaceName: string;
    repository: string;
    lifecycle?: string;
    tasks?: unknown[];
  };
};

type Resources = KubernetesObject & { spec: { resources: Record<string, string> } };

/** Requests by principal and kind over some span: REST counted, REST answered 304, git over HTTP. */
interface Cost {
  caller: number;
  caller304: number;
  app: number;
  app304: number;
  git: number;
}

const noCost = (): Cost => ({ caller: 0, caller304: 0, app: 0, app304: 0, git: 0 });

/** `porchlight serve` in a child process, its output read for the URLs, tokens and kubeconfigs. */
interface Serve {
  forgeUrl: string;
  forgePort: number;
  admin: string;
  caller: { login: string; token: string; kubeconfig: string };
  /** The requests its servers answered from the `from`-th on. */
  since(from: number): Promise<ServedRequest[]>;
  /** How many requests serve's log holds. */
  count(): Promise<number>;
  /** Start serve's CPU profiler; with `file`, stop it and write the profile there. */
  profile(file?: string): Promise<void>;
  /** The CPU time the process has used (user + system, ms), from /proc. */
  cpuMs(): number;
  stop(): Promise<void>;
}

async function startServe(data: string): Promise<Serve> {
  const child: ChildProcess = fork(
    join(import.meta.dirname, "porch-iterative-serve.ts"),
    ["serve", "--data", data],
    {
      execArgv: [
        ...FROM_SOURCE,
        ...(process.env.PORCH_ITERATIVE_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
      ],
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? "/tmp",
        PORT: "0",
        HOST: "127.0.0.1",
        LOG_LEVEL: (process.env.E2E_LOG ?? "warn") as NodeJS.ProcessEnv["LOG_LEVEL"],
        PORCHLIGHT_RECONCILE_INTERVAL_MS: "0",
      },
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    },
  );
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  child.stderr?.on("data", (d) => {
    out += d;
    if (process.env.E2E_LOG) process.stderr.write(d);
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", () => {
      if (/export KUBECONFIG=\S+/.test(out)) resolve();
    });
    child.once("exit", (code) =>
      reject(new Error(`porchlight serve exited (${code}) before serving:\n${out}`)),
    );
  });
  let next = 0;
  const waiting = new Map<number, (v: never) => void>();
  child.on("message", (m: { id: number; value: never }) => {
    waiting.get(m.id)?.(m.value);
    waiting.delete(m.id);
  });
  /** Serve's answer to `question` over IPC (porch-iterative-serve.ts). */
  const ask = <T>(question: ServeQuestion) =>
    new Promise<T>((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      child.send({ id, ...question } satisfies ServeAsk);
    });
  const forgeUrl = /forge: (\S+) /.exec(out)?.[1] ?? "";
  const user = (login: string) => new RegExp(`^ {2}${login}\\t[^\\t]+\\t(\\S+)$`, "m").exec(out)?.[1] ?? "";
  const kubeconfig = /for maintainer \(\S+\): (\S+)/.exec(out)?.[1] ?? "";
  if (!forgeUrl || !kubeconfig) throw new Error(`porchlight serve printed no forge or kubeconfig:\n${out}`);
  return {
    forgeUrl,
    forgePort: Number(new URL(forgeUrl).port),
    admin: user("admin"),
    caller: { login: "maintainer", token: user("maintainer"), kubeconfig },
    cpuMs: () => {
      const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      // utime and stime, fields 14 and 15 of stat (11 and 12 after the command's name), in ticks of 10 ms
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    since: (from) => ask({ op: "since", from }),
    count: () => ask({ op: "count" }),
    profile: (file) => ask({ op: "profile", file }),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once("exit", done));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The forge's requests of a span, by principal: the caller's token, the app's (any other token). */
function costOf(serve: Serve, log: ServedRequest[]): Cost {
  const cost = noCost();
  for (const r of log) {
    if (r.port !== serve.forgePort) continue;
    if (/\.git(\/|$)/.test(r.url.split("?")[0] ?? "")) {
      cost.git += 1;
      continue;
    }
    if (!r.url.startsWith("/api/v3/")) continue;
    const token = r.authorization.replace(/^(token|bearer)\s+/i, "");
    if (token === serve.admin) continue;
    const who = token === serve.caller.token ? "caller" : "app";
    if (r.status === 304) cost[`${who}304`] += 1;
    else cost[who] += 1;
  }
  return cost;
}

/** The counted requests of `log` (REST, not 304) by principal and route, most first: ids and commits as `:id`. */
function routes(serve: Serve, log: ServedRequest[]): string {
  const counts = new Map<string, number>();
  for (const r of log) {
    const path = r.url.split("?")[0] ?? "";
    if (r.port !== serve.forgePort || !path.startsWith("/api/v3/") || r.status === 304) continue;
    const token = r.authorization.replace(/^(token|bearer)\s+/i, "");
    if (token === serve.admin) continue;
    const who = token === serve.caller.token ? "C" : "A";
    const route = path.replace(/\/[0-9a-f]{40}\b/g, "/:sha").replace(/\/\d+\b/g, "/:id");
    const key = `${who} ${r.method} ${route}${r.status >= 300 ? ` ${r.status}` : ""}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `    ${v} ${k}`)
    .join("\n");
}

const add = (a: Cost, b: Cost): Cost => ({
  caller: a.caller + b.caller,
  caller304: a.caller304 + b.caller304,
  app: a.app + b.app,
  app304: a.app304 + b.app304,
  git: a.git + b.git,
});

/** Porch's API through client-node, as the caller's kubeconfig says. */
function client(kubeconfig: string) {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const api = kc.makeApiClient(CustomObjectsApi);
  const server = kc.getCurrentCluster()?.server ?? "";
  const base = { group: GROUP, version: VERSION, namespace: NAMESPACE };
  const revisions = { ...base, plural: "packagerevisions" };
  /** A subresource client-node has no call for (Porch's `SubResource("approval").Update`), with its auth. */
  const putSubresource = async (name: string, sub: string, body: unknown): Promise<unknown> => {
    const url = new URL(
      `${server}/apis/${GROUP}/${VERSION}/namespaces/${NAMESPACE}/packagerevisions/${name}/${sub}`,
    );
    const opts: Parameters<typeof request>[1] = {
      method: "PUT",
      headers: { "content-type": "application/json" },
    };
    await kc.applyToHTTPSOptions(opts);
    return new Promise((resolve, reject) => {
      const req = request(url, opts, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          text += d;
        });
        res.on("end", () => {
          if ((res.statusCode ?? 0) >= 300)
            reject(new Error(`PUT ${name}/${sub}: ${res.statusCode} ${text}`));
          else resolve(JSON.parse(text));
        });
      });
      req.on("error", reject);
      req.end(JSON.stringify(body));
    });
  };
  return {
    list: async (fieldSelector?: string) =>
      (
        (await api.listNamespacedCustomObject({
          ...revisions,
          ...(fieldSelector ? { fieldSelector } : {}),
        })) as {
          items: Revision[];
        }
      ).items,
    create: async (body: Revision) =>
      (await api.createNamespacedCustomObject({ ...revisions, body })) as Revision,
    get: async (name: string) => (await api.getNamespacedCustomObject({ ...revisions, name })) as Revision,
    update: async (rev: Revision) =>
      (await api.replaceNamespacedCustomObject({
        ...revisions,
        name: rev.metadata?.name ?? "",
        body: rev,
      })) as Revision,
    approval: async (rev: Revision) =>
      (await putSubresource(rev.metadata?.name ?? "", "approval", rev)) as Revision,
    delete: async (name: string) => {
      await api.deleteNamespacedCustomObject({ ...revisions, name });
    },
    getResources: async (name: string) =>
      (await api.getNamespacedCustomObject({
        ...base,
        plural: "packagerevisionresources",
        name,
      })) as Resources,
    updateResources: async (res: Resources) =>
      (await api.replaceNamespacedCustomObject({
        ...base,
        plural: "packagerevisionresources",
        name: res.metadata?.name ?? "",
        body: res,
      })) as Resources,
  };
}
type Client = ReturnType<typeof client>;

/** A draft made with an init task, as Porch's CreatePackageDraftF makes one. */
function draft(repository: string, packageName: string, workspaceName: string, tasks?: unknown[]): Revision {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: "PackageRevision",
    metadata: { namespace: NAMESPACE },
    spec: {
      packageName,
      workspaceName,
      repository,
      lifecycle: "Draft",
      tasks: tasks ?? [{ type: "init", init: { description: `${packageName} description` } }],
    },
  };
}

/** Proposes, then approves, as Porch's publishPackageRevision. */
async function publish(c: Client, rev: Revision): Promise<Revision> {
  rev.spec.lifecycle = "Proposed";
  const proposed = await c.update(rev);
  proposed.spec.lifecycle = "Published";
  return c.approval(proposed);
}

/** Brings registration `repo` from `from` to `to` published revisions of the control package. */
async function growControl(c: Client, repo: string, from: number, to: number): Promise<void> {
  let tasks: unknown[] | undefined;
  for (let i = from + 1; i <= to; i++) {
    // Porch's createNewPackageRevisionFrom: the first revision's tasks, a new workspace
    const made = await c.create(draft(repo, CONTROL_PACKAGE, `v${i}`, tasks));
    tasks ??= made.spec.tasks;
    await publish(c, made);
  }
}

/** Porch's ensureTestPackagesDeleted: every revision of the test package proposed for deletion, deleted. */
async function deleteTestPackages(c: Client): Promise<void> {
  for (const rev of await c.list(`spec.packageName=${TEST_PACKAGE}`)) {
    try {
      rev.spec.lifecycle = "DeletionProposed";
      await c.approval(rev);
    } catch {
      // a draft or a proposal: Porch logs the refusal and deletes it anyway
    }
    await c.delete(rev.metadata?.name ?? "").catch(() => {});
  }
}

/** An operation's wall time, serve's CPU, the other processes' CPU (git, its helpers), and forge cost. */
interface Measured {
  ms: number;
  cpu: number;
  others: number;
  cost: Cost;
}

/** The CPU time every process of the machine has used (user, nice, system of /proc/stat's `cpu` line). */
function machineCpuMs(): number {
  const fields = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]?.trim().split(/\s+/) ?? [];
  // in ticks of 10 ms
  return (Number(fields[1]) + Number(fields[2]) + Number(fields[3])) * 10;
}

/** One life of the test package, Porch's collectMetrics: each operation's wall time and forge cost. */
async function life(c: Client, serve: Serve): Promise<Record<Op, Measured>> {
  const out = {} as Record<Op, Measured>;
  let mark = await serve.count();
  const measure = async <T>(op: Op, f: () => Promise<T>): Promise<T> => {
    const cpu0 = serve.cpuMs();
    const machine0 = machineCpuMs();
    const own0 = process.cpuUsage();
    const t0 = performance.now();
    const started = performance.timeOrigin + t0;
    const v = await f();
    const ms = performance.now() - t0;
    const cpu = serve.cpuMs() - cpu0;
    const own = process.cpuUsage(own0);
    const others = machineCpuMs() - machine0 - cpu - (own.user + own.system) / 1000;
    const log = await serve.since(mark);
    mark += log.length;
    out[op] = { ms, cpu, others, cost: costOf(serve, log) };
    if (TRACE)
      console.log(
        `${op}: ${ms.toFixed(0)} ms\n`,
        log
          .filter((r) => r.port === serve.forgePort)
          .sort((a, b) => a.at - b.at)
          .map(
            (r) =>
              `  +${(r.at - started).toFixed(0)} ${r.ms.toFixed(0)}ms ${r.authorization.includes(serve.caller.token) ? "C" : "A"} ${r.method} ${r.url} ${r.status}`,
          )
          .join("\n"),
      );
    return v;
  };
  await measure("list", () => c.list());
  let pr = await measure("create", () => c.create(draft(TEST_REPO, TEST_PACKAGE, "v1")));
  const name = pr.metadata?.name ?? "";
  const resources = await c.getResources(name);
  resources.spec.resources["README.md"] = "# updated readme";
  await measure("update resources", () => c.updateResources(resources));
  pr = await measure("get after update", () => c.get(name));
  pr.spec.lifecycle = "Proposed";
  await measure("propose", () => c.update(pr));
  pr = await measure("get after propose", () => c.get(name));
  pr.spec.lifecycle = "Published";
  await measure("approve", () => c.approval(pr));
  pr = await measure("get after approve", () => c.get(name));
  pr.spec.lifecycle = "DeletionProposed";
  await measure("propose-delete", () => c.approval(pr));
  pr = await measure("get after propose-delete", () => c.get(name));
  await measure("delete", () => c.delete(name));
  return out;
}

/**
 * Resolves once serve has answered no request for `quietMs` (the bot done with what it heard: its
 * requests to the forge, the forge's webhooks to it; the bench asks nothing meanwhile).
 */
async function settled(serve: Serve, quietMs = 2_000, maxMs = 180_000): Promise<void> {
  const end = Date.now() + maxMs;
  let seen = await serve.count();
  let still = Date.now();
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, 250));
    const now = await serve.count();
    if (now !== seen) {
      seen = now;
      still = Date.now();
    } else if (Date.now() - still >= quietMs) return;
  }
}

async function forgeCall(serve: Serve, method: string, path: string, body?: unknown): Promise<void> {
  const r = await fetch(`${serve.forgeUrl}/api/v3${path}`, {
    method,
    headers: { authorization: `token ${serve.admin}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
}

/** Porch's createRepos: one git repository, each registration a directory of it. */
async function register(serve: Serve, c: KubeConfig, controls: string[]): Promise<void> {
  await forgeCall(serve, "POST", "/orgs/acme/repos", { name: GIT_REPO.split("/")[1], auto_init: true });
  await forgeCall(serve, "PUT", `/repos/${GIT_REPO}/collaborators/${serve.caller.login}`, {
    permission: "maintain",
  });
  const api = c.makeApiClient(CustomObjectsApi);
  const registration = (name: string, directory: string) => ({
    apiVersion: "config.porch.kpt.dev/v1alpha1",
    kind: "Repository",
    metadata: { name, namespace: NAMESPACE },
    spec: {
      description: "Porch Test Repository Description",
      type: "git",
      git: { repo: `${serve.forgeUrl}/${GIT_REPO}.git`, branch: "main", directory },
    },
  });
  for (const [name, dir] of [...controls.map((n) => [n, n]), [TEST_REPO, "iterativedir"]] as const)
    await api.createNamespacedCustomObject({
      group: "config.porch.kpt.dev",
      version: "v1alpha1",
      namespace: NAMESPACE,
      plural: "repositories",
      body: registration(name, dir),
    });
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
/** The middle of the lives' figures: a life a collection or a sweep of the bot landed in moves it less. */
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length === 0 ? 0 : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const times = (a: number, b: number) => `${(a / Math.max(1, b)).toFixed(2)}×`;

/**
 * `npm run bench -- --only=porch-iterative`: for each repository count, a fresh `porchlight serve`; at
 * each N, the control revisions grown to N in every registration, then SAMPLES lives of the test
 * package. Rows: each operation's mean latency at each N and its growth (largest N / smallest), and the
 * forge requests it cost (counted REST by the caller and the app; 304s and git apart), as means per life.
 */
export async function benchPorchIterative(): Promise<IterativeRow[]> {
  const rows: IterativeRow[] = [];
  for (const repos of REPO_COUNTS) {
    const data = mkdtempSync(join(tmpdir(), "porchlight-bench-iterative-"));
    const serve = await startServe(data);
    const from = rows.length;
    const started = performance.now();
    try {
      const kc = new KubeConfig();
      kc.loadFromFile(serve.caller.kubeconfig);
      const controls = Array.from({ length: repos }, (_, i) => `iterative-control-${i + 1}`);
      await register(serve, kc, controls);
      const c = client(serve.caller.kubeconfig);
      const byN = new Map<
        number,
        {
          ms: Record<Op, number[]>;
          cpu: Record<Op, number[]>;
          others: Record<Op, number[]>;
          cost: Record<Op, Cost[]>;
        }
      >();
      const publishCost = new Map<number, { caller: number; app: number; perRevision: number; s: number }>();
      let have = 0;
      for (const n of NS) {
        await settled(serve);
        const from = await serve.count();
        const t0 = performance.now();
        await Promise.all(controls.map((repo) => growControl(c, repo, have, n)));
        const s = (performance.now() - t0) / 1000;
        await settled(serve);
        const grownLog = await serve.since(from);
        const grown = costOf(serve, grownLog);
        if (TRACE)
          console.log(
            `  repos ${repos}, N ${have} → ${n}, counted requests by route:\n${routes(serve, grownLog)}`,
          );
        const made = (n - have) * repos;
        publishCost.set(n, {
          caller: grown.caller / made,
          app: grown.app / made,
          perRevision: s / (n - have),
          s,
        });
        have = n;
        const ms = Object.fromEntries(OPS.map((o) => [o, [] as number[]])) as Record<Op, number[]>;
        const cpu = Object.fromEntries(OPS.map((o) => [o, [] as number[]])) as Record<Op, number[]>;
        const others = Object.fromEntries(OPS.map((o) => [o, [] as number[]])) as Record<Op, number[]>;
        const cost = Object.fromEntries(OPS.map((o) => [o, [] as Cost[]])) as Record<Op, Cost[]>;
        if (PROFILE_DIR) await serve.profile();
        for (let i = 0; i < SAMPLES; i++) {
          const one = await life(c, serve);
          await deleteTestPackages(c);
          for (const op of OPS) {
            ms[op].push(one[op].ms);
            cpu[op].push(one[op].cpu);
            others[op].push(one[op].others);
            cost[op].push(one[op].cost);
          }
        }
        if (PROFILE_DIR) await serve.profile(join(PROFILE_DIR, `lives-repos${repos}-n${n}.cpuprofile`));
        byN.set(n, { ms, cpu, others, cost });
        console.log(
          `  repos ${repos}, N ${n}: control revisions published in ${s.toFixed(1)} s; load ${loadavg()
            .map((l) => l.toFixed(1))
            .join(" ")}`,
        );
      }
      const first = NS[0] ?? 0;
      const last = NS[NS.length - 1] ?? 0;
      const fmtCost = (c: Cost) =>
        `${c.caller}+${c.app}${c.caller304 + c.app304 ? ` (304: ${c.caller304}+${c.app304})` : ""}`;
      const avgCost = (cs: Cost[]): Cost => {
        const sum = cs.reduce(add, noCost());
        const k = Math.max(1, cs.length);
        const r = (x: number) => Math.round((x / k) * 10) / 10;
        return {
          caller: r(sum.caller),
          caller304: r(sum.caller304),
          app: r(sum.app),
          app304: r(sum.app304),
          git: r(sum.git),
        };
      };
      for (const op of OPS) {
        const row: IterativeRow = { repos, operation: op };
        for (const n of NS) row[`ms N=${n}`] = Math.round(mean(byN.get(n)?.ms[op] ?? []));
        row.growth = times(mean(byN.get(last)?.ms[op] ?? []), mean(byN.get(first)?.ms[op] ?? []));
        row["growth of medians"] = times(
          median(byN.get(last)?.ms[op] ?? []),
          median(byN.get(first)?.ms[op] ?? []),
        );
        row["serve CPU ms"] = NS.map((n) => Math.round(mean(byN.get(n)?.cpu[op] ?? []))).join(" → ");
        row["others' CPU ms"] = NS.map((n) => Math.round(mean(byN.get(n)?.others[op] ?? []))).join(" → ");
        for (const n of [first, last])
          row[`caller+app N=${n}`] = fmtCost(avgCost(byN.get(n)?.cost[op] ?? []));
        rows.push(row);
      }
      const lifeCost = (n: number) =>
        avgCost(
          Array.from({ length: SAMPLES }, (_, i) =>
            OPS.reduce((sum, op) => add(sum, byN.get(n)?.cost[op][i] ?? noCost()), noCost()),
          ),
        );
      const total: IterativeRow = { repos, operation: "a whole life" };
      for (const n of NS)
        total[`ms N=${n}`] = Math.round(OPS.reduce((s, op) => s + mean(byN.get(n)?.ms[op] ?? []), 0));
      total.growth = times(Number(total[`ms N=${last}`]), Number(total[`ms N=${first}`]));
      // each life's whole wall time, the middle one at each N
      const lives = (n: number) =>
        Array.from({ length: SAMPLES }, (_, i) => OPS.reduce((s, op) => s + (byN.get(n)?.ms[op][i] ?? 0), 0));
      total["growth of medians"] = times(median(lives(last)), median(lives(first)));
      total["serve CPU ms"] = NS.map((n) =>
        Math.round(OPS.reduce((s, op) => s + mean(byN.get(n)?.cpu[op] ?? []), 0)),
      ).join(" → ");
      total["others' CPU ms"] = NS.map((n) =>
        Math.round(OPS.reduce((s, op) => s + mean(byN.get(n)?.others[op] ?? []), 0)),
      ).join(" → ");
      for (const n of [first, last]) total[`caller+app N=${n}`] = fmtCost(lifeCost(n));
      rows.push(total);
      const pub: IterativeRow = { repos, operation: "a control revision published (s; caller+app requests)" };
      for (const n of NS) {
        const p = publishCost.get(n);
        pub[`ms N=${n}`] = Math.round((p?.perRevision ?? 0) * 1000);
      }
      for (const n of [first, last]) {
        const p = publishCost.get(n);
        pub[`caller+app N=${n}`] = `${p?.caller.toFixed(1)}+${p?.app.toFixed(1)}`;
      }
      rows.push(pub);
      // each repository count's figures as soon as they are measured (a later one may fail)
      console.table(rows.slice(from));
      // the whole run against GitHub's hourly budget (5,000 counted requests a token an hour)
      const whole = costOf(serve, await serve.since(0));
      const minutes = (performance.now() - started) / 60_000;
      const hourly = (n: number) => Math.round(n / Math.max(1, minutes / 60));
      console.log(
        `  repos ${repos}, the whole run (registrations, every control revision, every life): ${minutes.toFixed(1)} min; counted requests: the app ${whole.app}, the caller ${whole.caller}${
          minutes > 60
            ? ` (an hour at this pace: ${hourly(whole.app)} and ${hourly(whole.caller)})`
            : whole.app <= 5000 && whole.caller <= 5000
              ? " — within one hour's budget of 5,000 each"
              : " — more than one hour's budget of 5,000"
        }`,
      );
    } catch (e) {
      // a run that fails (an approval refused: the app's checks not run) is reported, the others kept
      rows.push({ repos, operation: `failed: ${e instanceof Error ? e.message : String(e)}` });
      console.log(`  repos ${repos}: failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      await serve.stop();
      if (!process.env.KEEP_SERVE_DATA) rmSync(data, { recursive: true, force: true });
    }
  }
  console.log(
    `cores and load: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  return rows;
}
