import { execFile, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { Octokit } from "@octokit/rest";
import { type ServeProcess, spawnServe } from "../test/e2e/serve-child.js";
import { dropPrefix, REDIS_MISSING, TEST_REDIS_URL, testPrefix } from "../test/util/redis.js";
import { type CpuProfile, profileBreakdown } from "./cpu-profile.js";
import { type ForgeView, forgeApart, forgeHere } from "./forge-view.js";
import { builtinPipeline } from "./render.js";
import { generatePackage } from "./render-package.js";

const run = promisify(execFile);
const PKG = "apps/big";
const BRANCH = `drafts/${PKG}/bench`;
const CHECK_RENDER = "porchlight/render";
/** Written by the proposal's check (check-proposal) alone: with it, both checks of a push have run. */
const PROPOSAL_CHECKS = [CHECK_RENDER, "porchlight/guardrails"] as const;

/** Alice opens the draft's proposal: its pull request into main. */
async function openProposal(w: World): Promise<void> {
  const [owner, repo] = ["acme", "blueprints"];
  const alice = new Octokit({ baseUrl: w.forge.apiUrl, auth: w.forge.alicePat });
  await alice.pulls.create({ owner, repo, head: BRANCH, base: "main", title: PKG });
}

/** One push, end to end: the forge in this process, the app (`porchlight serve`) in its own. */
export interface BotE2ERow {
  mode: "memory" | "redis";
  resources: number;
  push: string;
  /** From `git push` starting to `porchlight/render` completed on the pushed commit. */
  wallS: number;
  /**
   * With the proposal open: from `git push` starting to both checks completed on the proposal's head as
   * it is then (the bot's render commit, when it wrote one: the head a reviewer sees).
   */
  proposalWallS?: number;
  /**
   * The app process's own CPU (utime + stime of /proc/PID/stat, all its threads) from 3 s before the
   * push to 3 s after its last check completed (issue #77); its git processes apart (gitCpuS).
   */
  appCpuS: number;
  /** Its git processes' CPU in the same window (and the small process that starts them), not in appCpuS. */
  gitCpuS: number;
  /** The forge's CPU with its git children, when it runs in a process of its own (BOT_E2E_FORGE=apart). */
  forgeCpuS?: number;
  /** The render check's conclusion on the pushed commit, and "+ commit" when the bot committed the render. */
  outcome: string;
  /** REST calls the app made (its installation token), and git smart-HTTP requests. */
  rest: number;
  git: number;
  /** The app's CPU seconds by thread name (/proc/PID/task), its git processes apart. */
  threads: Record<string, number>;
  /** The app process's peak resident memory during this push (VmHWM, reset before it). */
  peakMiB: number;
  load: string;
  /**
   * The first push only: `porchlight fn render` of the same package (a fresh copy, from the build), its
   * process's CPU right before the run's world started and right after it stopped (issue #52 asks the
   * first push for at most 1.5 times it).
   */
  fnRenderCpuS?: [number, number];
}

interface AppCpu {
  self: number;
  children: number;
}

/**
 * utime, stime, cutime and cstime, in seconds, of a /proc stat file (a process's, `/proc/PID/stat`, or
 * one thread's, `/proc/PID/task/TID/stat`); throws when it is gone.
 */
function readStat(path: string): { self: number; waited: number } {
  const fields = readFileSync(path, "utf8").split(") ")[1]!.split(" ");
  const hz = 100;
  return {
    self: (Number(fields[11]) + Number(fields[12])) / hz,
    waited: (Number(fields[13]) + Number(fields[14])) / hz,
  };
}

/** utime, stime, cutime and cstime of a process, in seconds, from /proc (0 when it is gone). */
function statCpu(pid: number): { self: number; waited: number } {
  try {
    return readStat(`/proc/${pid}/stat`);
  } catch {
    return { self: 0, waited: 0 };
  }
}

/** The processes `pid` started that still run (the app's git spawner), from /proc. */
function liveChildren(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ").filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/**
 * The app's CPU in seconds: its own, and that of the processes it started — the git processes it
 * waited for, and its git spawner (src/github/git-spawner.ts) with the git processes that one waited for.
 */
function appCpu(pid: number): AppCpu {
  const app = statCpu(pid);
  let children = app.waited;
  for (const child of liveChildren(pid)) {
    const c = statCpu(child);
    children += c.self + c.waited;
  }
  return { self: app.self, children };
}

/**
 * The CPU seconds of each thread of a process by thread id, with the thread's name (/proc's comm, or
 * "main", or its order of start where the name is only "node"), from /proc/PID/task.
 */
function threadCpu(pid: number): Map<string, { name: string; cpu: number }> {
  const out = new Map<string, { name: string; cpu: number }>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      // Node 20 names every thread "node": the others by their order of start (the tid past the
      // process's; V8's platform threads start first, worker threads when the app starts them)
      const name = tid === String(pid) ? "main" : comm === "node" ? `+${Number(tid) - pid}` : comm;
      out.set(tid, { name, cpu: readStat(`/proc/${pid}/task/${tid}/stat`).self });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** What each named kind of thread used between two `threadCpu` readings (a thread's ended CPU is lost). */
function threadDelta(
  before: Map<string, { name: string; cpu: number }>,
  after: Map<string, { name: string; cpu: number }>,
): Record<string, number> {
  const by: Record<string, number> = {};
  for (const [tid, t] of after) {
    const d = t.cpu - (before.get(tid)?.cpu ?? 0);
    if (d <= 0) continue;
    by[t.name] = round((by[t.name] ?? 0) + d, 2);
  }
  return by;
}

/** A process's CPU seconds and its children's it waited for. */
function forgeCpu(pid: number): number {
  const c = statCpu(pid);
  return c.self + c.waited;
}

function resetPeak(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch {
    // not allowed here: the peak is then the process's since it started
  }
}

function peakMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : Number.NaN;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface World {
  forge: ForgeView;
  app: ServeProcess;
  dir: string;
  temp: string;
  git(...args: string[]): Promise<string>;
  /** A second checkout of the person's, for the warm-up drafts. */
  warmGit(...args: string[]): Promise<string>;
  warmDir: string;
  /** Stops the app (SIGTERM) and starts it again with the same settings and cache directory. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The forge (in this process, or in one of its own with BOT_E2E_FORGE=apart), the app as a child
 * process serving it, and the person's two checkouts of the repository.
 */
async function startWorld(
  mode: "memory" | "redis",
  nodeArgs: string[],
  appEnv: Record<string, string>,
  resources: number,
) {
  const forge = process.env.BOT_E2E_FORGE === "apart" ? await forgeApart() : await forgeHere();
  const prefix = testPrefix("bot-e2e");
  const temp = mkdtempSync(join(tmpdir(), "porchlight-bot-e2e-"));
  const env: Record<string, string> = {
    LOG_LEVEL: "warn",
    PORCHLIGHT_CACHE_DIR: join(temp, "cache"),
    // the package's resources and the file the run adds (the default limit is 10,000)
    PORCHLIGHT_MAX_PACKAGE_RESOURCES: String(Math.max(10_000, resources + 100)),
    ...appEnv,
  };
  if (mode === "redis") Object.assign(env, { REDIS_URL: TEST_REDIS_URL, PORCHLIGHT_REDIS_PREFIX: prefix });
  const spawnApp = async () => {
    const fromBuild = process.env.BOT_E2E_APP === "built";
    const app = await spawnServe(forge, forge.creds, env, "the app", nodeArgs, fromBuild).catch(
      async (e: unknown) => {
        await forge.stop();
        throw e;
      },
    );
    await forge.setWebhookUrl(app.webhookUrl);
    return app;
  };
  let app = await spawnApp();
  const stopApp = async () => {
    await forge.setWebhookUrl(null);
    const exited = new Promise((r) => app.child.once("exit", r));
    app.child.kill("SIGTERM");
    await exited;
  };
  const dir = join(temp, "alice");
  const warmDir = join(temp, "alice-warm");
  const genv = {
    ...process.env,
    GIT_AUTHOR_NAME: "alice",
    GIT_AUTHOR_EMAIL: "alice@x",
    GIT_COMMITTER_NAME: "alice",
    GIT_COMMITTER_EMAIL: "alice@x",
  };
  await run("git", ["clone", "--quiet", forge.cloneUrl, dir], { env: genv });
  await run("git", ["clone", "--quiet", forge.cloneUrl, warmDir], { env: genv });
  const gitIn =
    (cwd: string) =>
    async (...args: string[]) =>
      (await run("git", args, { cwd, env: genv, maxBuffer: 64 << 20 })).stdout.trim();
  return {
    forge,
    get app() {
      return app;
    },
    dir,
    temp,
    git: gitIn(dir),
    warmGit: gitIn(warmDir),
    warmDir,
    restart: async () => {
      await stopApp();
      app = await spawnApp();
    },
    stop: async () => {
      await stopApp();
      await forge.stop();
      rmSync(temp, { recursive: true, force: true });
      if (mode === "redis") await dropPrefix(prefix);
    },
  } satisfies World;
}

function write(dir: string, files: ReadonlyMap<string, Buffer | string>): void {
  for (const [path, bytes] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), bytes);
  }
}

/**
 * Waits until the app made no request and used next to no CPU (a profiler's sampling thread uses a
 * little) for half a second, with no webhook pending.
 */
async function quiet(w: World): Promise<void> {
  const pid = w.app.child.pid!;
  let requests = -1;
  let cpu = 0;
  let same = 0;
  while (same < 5) {
    await w.forge.idle();
    await sleep(100);
    const c = appCpu(pid);
    const now = await w.forge.requestCount();
    same = now === requests && c.self + c.children - cpu <= 0.02 ? same + 1 : 0;
    requests = now;
    cpu = c.self + c.children;
  }
}

interface Measured {
  row: Omit<BotE2ERow, "mode" | "resources" | "push">;
  /** The window of the push on the monotonic clock (µs), as V8's profiles time their samples. */
  window: [number, number];
  byRoute: Record<string, number>;
}

/** Waits for each check run of `names` on `sha` to complete; the first's conclusion. */
async function checksDone(w: World, sha: string, names: readonly string[]): Promise<string | null> {
  const start = Date.now();
  let first: string | null | undefined;
  for (const name of names) {
    let conclusion = await w.forge.check(sha, name);
    while (conclusion === undefined) {
      if (w.app.child.exitCode !== null || Date.now() - start > 300_000)
        throw new Error(`no ${name} on ${sha} (the app's output follows)\n${w.app.output().slice(-4000)}`);
      await sleep(2);
      conclusion = await w.forge.check(sha, name);
    }
    first ??= conclusion;
  }
  return first ?? null;
}

/** Seconds of the window before each push and after its last check, issue #77's measure. */
const MARGIN_MS = Number(process.env.BOT_E2E_MARGIN_MS ?? 3000);

/**
 * Commits what `edit` changed, pushes it to the draft branch (or, for a step that opens the proposal,
 * opens the draft's pull request on its head), and measures the app as a deployment pays for the push
 * (issue #77): its process's CPU (utime + stime of /proc/PID/stat, every thread; its git processes
 * apart) from `MARGIN_MS` before the push to `MARGIN_MS` after the step's last check completed — what
 * the app does besides the push in that time (timers, collections, work the push left for later) is
 * the push's too.
 */
async function measure(w: World, step: Step, pkgDir: string): Promise<Measured> {
  const opening = step.act === "open proposal";
  if (!opening) {
    step.edit(pkgDir);
    await w.git("add", "-A");
    await w.git("commit", "--quiet", "-m", "edit");
  }
  const sha = await w.git("rev-parse", "HEAD");
  const pid = w.app.child.pid!;
  resetPeak(pid);
  const from = await w.forge.requestCount();
  const cpu0 = appCpu(pid);
  const threads0 = threadCpu(pid);
  const forge0 = w.forge.pid ? forgeCpu(w.forge.pid) : 0;
  const start = process.hrtime.bigint();
  await sleep(MARGIN_MS);
  const t0 = process.hrtime.bigint();
  const e0 = performance.timeOrigin + performance.now();
  if (opening) await openProposal(w);
  else await w.git("push", "--quiet", "origin", `HEAD:refs/heads/${BRANCH}`);
  const conclusion = await checksDone(w, sha, step.checks ?? [CHECK_RENDER]);
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  let proposalWallS: number | undefined;
  if (step.checks === PROPOSAL_CHECKS) {
    // The bot's render commit is pushed before the pushed commit's checks complete: the head is final.
    const head = await w.forge.proposalHead();
    if (head && head !== sha) await checksDone(w, head, PROPOSAL_CHECKS);
    proposalWallS = round(Number(process.hrtime.bigint() - t0) / 1e9, 2);
  }
  await sleep(MARGIN_MS);
  const t1 = process.hrtime.bigint();
  const cpu1 = appCpu(pid);
  const threads = threadDelta(threads0, threadCpu(pid));
  const mine = await w.forge.appRequestsSince(from);
  // BOT_E2E_SEQ=1: the push's requests in order, each with when it was answered (ms after the push began)
  if (process.env.BOT_E2E_SEQ)
    console.log(
      [`${step.push}: wall ${wallS.toFixed(2)} s`]
        .concat(mine.map((e) => `  ${(e.atMs - e0).toFixed(0)} ms ${e.method} ${e.path}`))
        .join("\n"),
    );
  const byRoute: Record<string, number> = {};
  let git = 0;
  for (const e of mine) {
    if (e.path.includes(".git/")) git++;
    const k = e.path.includes(".git/")
      ? `git ${e.method} ${e.path.replace(/^.*\.git/, "")}`
      : `${e.method} ${e.route}`;
    byRoute[k] = (byRoute[k] ?? 0) + 1;
  }
  const committed = mine.some((e) => e.path.endsWith("/git-receive-pack"));
  return {
    row: {
      outcome: `${conclusion ?? "none"}${committed ? " + commit" : ""}`,
      wallS: round(wallS, 2),
      ...(proposalWallS !== undefined ? { proposalWallS } : {}),
      appCpuS: round(cpu1.self - cpu0.self, 2),
      gitCpuS: round(cpu1.children - cpu0.children, 2),
      ...(w.forge.pid ? { forgeCpuS: round(forgeCpu(w.forge.pid) - forge0, 2) } : {}),
      rest: mine.length - git,
      git,
      threads,
      peakMiB: peakMiB(pid),
      load: loadavg()
        .slice(0, 2)
        .map((l) => l.toFixed(1))
        .join(" "),
    },
    window: [Number(start / 1000n), Number(t1 / 1000n)],
    byRoute,
  };
}

const round = (n: number, d: number) => Math.round(n * 10 ** d) / 10 ** d;

/** A push of the sequence: its name, and what it changes in the person's checkout (`dir`: the package). */
interface Step {
  push: string;
  edit: (dir: string) => void;
  /** Not a push: alice opens the draft's proposal (its pull request) on the head she has. */
  act?: "open proposal";
  /** The check runs on the head that end the step (default: porchlight/render). */
  checks?: readonly string[];
  /** Restart the app first (a deployment's restart: the same cache directory). */
  restart?: boolean;
  /**
   * Issue #77's bound on the step: the app's own CPU in its window (s), its wall from the push to the
   * check (s), or its CPU against `porchlight fn render` of the same package (times).
   */
  target?: { cpuS?: number; wallS?: number; renderer?: number };
}

/** Changes the first `value:` of file `file` (a value no function touches) to `to`. */
function editValue(dir: string, file: string, to: string): void {
  const path = join(dir, file);
  writeFileSync(path, readFileSync(path, "utf8").replace(/value: "?[a-z0-9-]+"?/, `value: "${to}"`));
}

/**
 * The pushes a person makes to a draft of a large package, each after the one before (issue #52): the
 * first push (the bot commits the render), edits the render writes nothing back for, a change outside
 * the package, edits the render writes back (the bot commits again), several files at once, a file
 * added and one removed, an edit after the app restarted, then the draft proposed (its pull request
 * opened: the proposal's checks) and edits with the proposal open (the draft's render and the
 * proposal's checks both run).
 */
/** The pushes BOT_E2E_REPEAT makes, by name, each with issue #52's bound on its app CPU (s). */
const REPEATED = [
  { push: "change outside the package (repeated)", bound: 0.1 },
  { push: "one file edited (repeated)", bound: 0.35 },
] as const;

/** The least, median, 90th percentile and most app CPU of each repeated push (BOT_E2E_REPEAT). */
function repeatSummary(rows: readonly BotE2ERow[]): string[] {
  return REPEATED.flatMap(({ push, bound }) => {
    const cpu = rows
      .filter((r) => r.push === push)
      .map((r) => r.appCpuS)
      .sort((a, b) => a - b);
    if (cpu.length === 0) return [];
    const at = (q: number) => cpu[Math.min(cpu.length - 1, Math.floor(q * cpu.length))]!;
    const over = cpu.filter((c) => c > bound).length;
    return [
      `${push}, ${cpu.length} times: app CPU least ${cpu[0]} s, median ${at(0.5)}, 90th percentile ${at(0.9)}, most ${cpu.at(-1)}; ${over} over ${bound} s`,
    ];
  });
}

/** Which pushes a run makes: issue #77's four (the default), or the working day of issue #52. */
type Sequence = "issue" | "day";

function steps(resources: number, sequence: Sequence): Step[] {
  const pkg = generatePackage(resources, builtinPipeline());
  // The resource files (of the root package and its subpackages), in the order the generator made them.
  const files = [...pkg.keys()].filter((p) => /(^|\/)app-\d+\.yaml$/.test(p));
  const at = (i: number) => files[i % files.length]!;
  let n = 0;
  const value = (dir: string, file = 0) => editValue(dir, at(file), `edit-${++n}`);
  // a change outside the package: the repository's README, two levels up
  const outside = (dir: string) => writeFileSync(join(dir, "..", "..", "README.md"), `# ${++n}\n`);
  // a comment appended at a file's end, which kpt's formatting moves: the render writes it back
  const comment = (dir: string, file: number) =>
    writeFileSync(join(dir, at(file)), `${readFileSync(join(dir, at(file)), "utf8")}# note ${++n}\n`);
  if (sequence === "issue")
    // Issue #77's order and bounds, each push after the one before on the one draft.
    return [
      { push: "first push", edit: (dir) => write(dir, pkg), target: { renderer: 1.5 } },
      {
        push: "one file edited, the render writes back (a comment at its end)",
        edit: (dir) => comment(dir, 6),
        target: { cpuS: 0.5 },
      },
      { push: "change outside the package", edit: outside, target: { cpuS: 0.1 } },
      {
        push: "one file edited (a value no function touches)",
        edit: (dir) => value(dir),
        target: { cpuS: 0.35, wallS: 0.8 },
      },
    ];
  // BOT_E2E_REPEAT=N: after the first push, N more as a working day has them, a change outside the
  // package and a one-file edit in turn (each after the other kind), measured apart (repeatSummary).
  const day = Array.from(
    { length: Number(process.env.BOT_E2E_REPEAT ?? 0) },
    (_, i): Step =>
      i % 2 === 0
        ? { push: REPEATED[0].push, edit: outside }
        : { push: REPEATED[1].push, edit: (dir) => value(dir, i) },
  );
  return [
    { push: "first push", edit: (dir) => write(dir, pkg) },
    ...day,
    { push: "one file edited (after the bot's commit)", edit: (dir) => value(dir) },
    { push: "one file edited again", edit: (dir) => value(dir) },
    { push: "and again", edit: (dir) => value(dir, 3) },
    { push: "change outside the package", edit: outside },
    { push: "one file edited (after a push outside)", edit: (dir) => value(dir) },
    {
      push: "one file edited, the render writes back (a comment at its end)",
      edit: (dir) => comment(dir, 6),
    },
    { push: "one file edited (after that bot commit)", edit: (dir) => value(dir) },
    {
      push: "one file edited, the render writes back (a field a function sets)",
      edit: (dir) => {
        const path = join(dir, at(9));
        writeFileSync(path, readFileSync(path, "utf8").replace(/\n {2}namespace: \S+\n/, "\n"));
      },
    },
    { push: "one file edited (after that bot commit, again)", edit: (dir) => value(dir) },
    {
      push: "five files edited at once",
      edit: (dir) => {
        for (const f of [12, 25, 38, 51, 64]) value(dir, f);
      },
    },
    {
      push: "a file added",
      edit: (dir) =>
        writeFileSync(
          join(dir, "added.yaml"),
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added\ndata:\n  value: "1"\n`,
        ),
    },
    { push: "a file removed", edit: (dir) => rmSync(join(dir, at(15))) },
    { push: "one file edited (after a restart)", edit: (dir) => value(dir), restart: true },
    { push: "one file edited (after a restart, again)", edit: (dir) => value(dir) },
    {
      push: "the proposal opened (its head checked)",
      edit: () => {},
      act: "open proposal",
      checks: PROPOSAL_CHECKS.slice(1),
    },
    { push: "one file edited (the proposal open)", edit: (dir) => value(dir), checks: PROPOSAL_CHECKS },
    {
      push: "one file edited, the render writes back (the proposal open)",
      edit: (dir) => comment(dir, 20),
      checks: PROPOSAL_CHECKS,
    },
    {
      push: "one file edited (the proposal open, after that bot commit)",
      edit: (dir) => value(dir),
      checks: PROPOSAL_CHECKS,
    },
  ];
}

/**
 * Warms the app up (modules loaded, code compiled, both render threads started: src/jobs/bounded) on two
 * small packages of other drafts, pushed from the person's other checkout, then an edit of each after
 * the bot's commit: the code a one-file push runs has run (a bot that has served for a while), so the
 * first measured push is not also the first compile of that code.
 */
async function warmUp(w: World): Promise<void> {
  await w.warmGit("checkout", "--quiet", "-B", "warm", "origin/main");
  // Two shapes (one subpackage, three): two packages, which the app's two render threads take one each.
  for (const [name, size] of [
    ["a", 30],
    ["b", 300],
  ] as const) {
    const branch = `drafts/warm-${name}/w`;
    const warm = generatePackage(size, builtinPipeline());
    write(w.warmDir, new Map([...warm].map(([p, b]) => [`warm-${name}/${p}`, b])));
    await w.warmGit("add", "-A");
    await w.warmGit("commit", "--quiet", "-m", "warm");
    await w.warmGit("push", "--quiet", "origin", `HEAD:refs/heads/${branch}`);
    await quiet(w);
    await w.warmGit("fetch", "--quiet", "origin", branch);
    await w.warmGit("reset", "--quiet", "--hard", "FETCH_HEAD");
    editValue(join(w.warmDir, `warm-${name}`), "app-0.yaml", "warm-1");
    await w.warmGit("commit", "--quiet", "-am", "warm edit");
    await w.warmGit("push", "--quiet", "origin", `HEAD:refs/heads/${branch}`);
    await quiet(w);
  }
}

/** The app's CPU seconds since its process started (its git processes included). */
function startCpu(w: World): number {
  const c = appCpu(w.app.child.pid!);
  return round(c.self + c.children, 2);
}

/** The pushes of one run (steps), each measured; `onPush` sees each. */
async function pushes(
  w: World,
  all: readonly Step[],
  onPush?: (push: string, m: Measured) => void,
): Promise<{ push: string; m: Measured }[]> {
  const out: { push: string; m: Measured }[] = [];
  await quiet(w);
  console.log(
    `the app's start: ${startCpu(w)} s of CPU until it was quiet (its render threads' start included)`,
  );
  await warmUp(w);
  const pkgDir = join(w.dir, PKG);
  // BOT_E2E_PUSHES=N: the first N pushes only (1: the first push alone).
  const limit = Number(process.env.BOT_E2E_PUSHES ?? all.length);
  for (const step of all.slice(0, limit > 0 ? limit : all.length)) {
    if (step.restart) {
      // Restarted and measured cold: the first push after a restart starts a render thread, compiles
      // the code it runs and reads back the renderer's journal (PORCHLIGHT_CACHE_DIR).
      await quiet(w);
      await w.restart();
      await quiet(w);
      console.log(`the app's start after a restart: ${startCpu(w)} s of CPU until it was quiet`);
    }
    const m = await measure(w, step, pkgDir);
    out.push({ push: step.push, m });
    onPush?.(step.push, m);
    // The bot may have committed the render: the person pulls it before the next edit.
    await w.git("fetch", "--quiet", "origin", BRANCH);
    await w.git("reset", "--quiet", "--hard", "FETCH_HEAD");
  }
  return out;
}

/** Whether the build the app runs from (BOT_E2E_APP=built, the default where it is there) is there. */
function built(): boolean {
  return existsSync(join(import.meta.dirname, "..", "dist", "bundle", "fn.cjs"));
}

/** Each step's figures against issue #77's bound, one line a step. */
function verdicts(all: readonly Step[], made: readonly BotE2ERow[], renderer?: number): string[] {
  return made.flatMap((row) => {
    const t = all.find((s) => s.push === row.push)?.target;
    if (!t) return [];
    const checks: string[] = [];
    if (t.cpuS !== undefined) checks.push(`CPU ≤ ${t.cpuS} s ${row.appCpuS <= t.cpuS ? "met" : "NOT met"}`);
    if (t.wallS !== undefined) checks.push(`wall ≤ ${t.wallS} s ${row.wallS <= t.wallS ? "met" : "NOT met"}`);
    if (t.renderer !== undefined && renderer !== undefined) {
      const ratio = row.appCpuS / renderer;
      checks.push(
        `${ratio.toFixed(2)}× the renderer, ≤ ${t.renderer}× ${ratio <= t.renderer ? "met" : "NOT met"}`,
      );
    }
    return [
      `  ${row.push}: app CPU ${row.appCpuS} s (its git ${row.gitCpuS} s apart), wall ${row.wallS} s, load ${row.load}; ${checks.join(", ")}`,
    ];
  });
}

/**
 * The bot end to end (issues #38, #52, #77): the embedded forge in a process of its own (as a deployment
 * has GitHub apart from the app; BOT_E2E_FORGE=here runs it in the bench's), `porchlight serve` in a
 * child process from the build (as a deployment runs it; BOT_E2E_APP=source through tsx, the default
 * where there is no build), a draft of a generated package (five builtins) pushed as a person would.
 * The default sequence is issue #77's, at 10,000 resources: the first push, a one-file edit the render
 * writes back (a comment at a file's end), a change outside the package, a value no function touches;
 * BOT_E2E_SEQUENCE=day runs issue #52's working day instead (`steps`: edits the render writes nothing
 * back for, several files at once, a file added and one removed, an edit after a restart, the proposal
 * opened and edited), at 1,000 and 10,000 resources. Per push: the app's own CPU (utime + stime of
 * /proc/PID/stat, all its threads, by thread beside) from 3 s before the `git push` to 3 s after its
 * completed `porchlight/render` check (BOT_E2E_MARGIN_MS), its git processes' apart; wall time from the
 * push to the check; the check's outcome, the forge's CPU, REST and git requests, peak memory. The
 * first push is set against `porchlight fn render` of the same package (from the build, run right
 * before the world starts and right after it stops), and each step of issue #77's against its bound.
 *
 * BOT_E2E_SIZES sets the sizes, BOT_E2E_REDIS=1 adds Redis mode (when one answers), BOT_E2E_PROFILE=1
 * then runs the same pushes under `--cpu-prof` and prints each window's breakdown by thread
 * (BOT_E2E_PROFILE_ONLY=1 runs the profile alone, BOT_E2E_KEEP_PROFILE=1 keeps its files),
 * BOT_E2E_APP_ENV="K=V,K=V" adds to the app's environment, BOT_E2E_NODE_ARGS="--flag …" to its node's
 * options, BOT_E2E_PUSHES=N measures the first N pushes only, BOT_E2E_SEQ=1 prints each push's requests
 * in order with when each was answered. BOT_E2E_REPEAT=N (day sequence) adds N pushes after the first, a
 * change outside the package and a one-file edit in turn, and prints each kind's spread: where a major
 * collection of the app's heap lands in a push's window, that push pays for it, so one push of a kind
 * is one sample.
 */
export async function benchBotEndToEnd(): Promise<BotE2ERow[]> {
  const sequence: Sequence = process.env.BOT_E2E_SEQUENCE === "day" ? "day" : "issue";
  process.env.BOT_E2E_FORGE ??= "apart";
  if (!process.env.BOT_E2E_APP) process.env.BOT_E2E_APP = built() ? "built" : "source";
  const sizes = (process.env.BOT_E2E_SIZES ?? (sequence === "day" ? "1000,10000" : "10000"))
    .split(",")
    .map(Number);
  const appEnv = Object.fromEntries(
    (process.env.BOT_E2E_APP_ENV ?? "")
      .split(",")
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  );
  const nodeArgs = (process.env.BOT_E2E_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const modes: ("memory" | "redis")[] = process.env.BOT_E2E_PROFILE_ONLY ? [] : ["memory"];
  if (process.env.BOT_E2E_REDIS === "1" && !REDIS_MISSING) modes.push("redis");
  console.log(
    `bot end to end: ${sequence} sequence, forge ${process.env.BOT_E2E_FORGE === "apart" ? "apart" : "in the bench's process"}, the app from its ${process.env.BOT_E2E_APP === "built" ? "build" : "sources (tsx)"}; ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  const rows: BotE2ERow[] = [];
  const routes: string[] = [];
  for (const mode of modes) {
    for (const resources of sizes) {
      const all = steps(resources, sequence);
      const before = fnRenderCpu(resources);
      const w = await startWorld(mode, nodeArgs, appEnv, resources);
      const made: BotE2ERow[] = [];
      try {
        for (const { push, m } of await pushes(w, all)) {
          made.push({ mode, resources, push, ...m.row });
          console.log(JSON.stringify(made.at(-1)));
          const repeated = REPEATED.some((r) => r.push === push);
          if (mode === "memory" && resources === Math.max(...sizes) && push !== "first push" && !repeated)
            routes.push(`${push}: ${JSON.stringify(m.byRoute)}`);
        }
      } finally {
        await w.stop();
      }
      for (const line of repeatSummary(made)) console.log(line);
      const after = fnRenderCpu(resources);
      const first = made.find((r) => r.push === "first push");
      let renderer: number | undefined;
      if (first && before !== undefined && after !== undefined) {
        first.fnRenderCpuS = [before, after];
        renderer = (before + after) / 2;
        const ratios = [before, after].map((c) => (first.appCpuS / c).toFixed(2)).join(", ");
        console.log(
          `first push at ${resources} resources (${mode}): ${first.appCpuS} s of app CPU; porchlight fn render of the same package ${before} s before the run, ${after} s after it: ${ratios} times the renderer (${(first.appCpuS / renderer).toFixed(2)}× their mean)`,
        );
      }
      const lines = verdicts(all, made, renderer);
      if (lines.length > 0)
        console.log(`issue #77's bounds at ${resources} resources (${mode}):\n${lines.join("\n")}`);
      rows.push(...made);
    }
  }
  console.log(
    `\nbot end to end (${cpus().length} cores); requests by route at ${Math.max(...sizes)} resources:`,
  );
  for (const r of routes) console.log(`  ${r}`);
  if (process.env.BOT_E2E_PROFILE === "1" || process.env.BOT_E2E_PROFILE_ONLY)
    await profileEdit(steps(Math.max(...sizes), sequence), Math.max(...sizes), appEnv);
  return rows;
}

/**
 * The CPU seconds (user + system) of `porchlight fn render` over a fresh copy of the package the first
 * push writes, from the build (bin/porchlight.js); undefined when the build is not there. Read from this
 * process's waited-for children's CPU (/proc), which the synchronous run alone adds to.
 */
function fnRenderCpu(resources: number): number | undefined {
  const cli = join(import.meta.dirname, "..", "bin", "porchlight.js");
  if (!built()) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "porchlight-bot-e2e-fn-"));
  try {
    write(dir, generatePackage(resources, builtinPipeline()));
    const start = statCpu(process.pid).waited;
    const r = spawnSync(process.execPath, [cli, "fn", "render", dir], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    if (r.status !== 0) throw new Error(`porchlight fn render failed:\n${r.stderr}`);
    return Math.round((statCpu(process.pid).waited - start) * 100) / 100;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The app under `--cpu-prof` through the same pushes; the one-file edit's samples, broken down. */
async function profileEdit(
  all: readonly Step[],
  resources: number,
  appEnv: Record<string, string>,
): Promise<void> {
  const profDir = mkdtempSync(join(tmpdir(), "porchlight-bot-prof-"));
  const w = await startWorld("memory", ["--cpu-prof", `--cpu-prof-dir=${profDir}`], appEnv, resources);
  const windows = new Map<string, [number, number]>();
  try {
    await pushes(w, all, (push, m) => {
      windows.set(push, m.window);
    });
  } finally {
    await w.stop();
  }
  // One profile a thread: the app's main thread and its render threads (src/jobs/bounded), both apps'
  // when the run restarts it.
  const files = readdirSync(profDir).filter((f) => f.endsWith(".cpuprofile"));
  if (files.length === 0) {
    console.log("no CPU profile was written");
    return;
  }
  const profiles = files.map((f) => JSON.parse(readFileSync(join(profDir, f), "utf8")) as CpuProfile);
  for (const [push, window] of windows) {
    for (const [i, profile] of profiles.entries()) {
      if (profile.endTime < window[0] || profile.startTime > window[1]) continue;
      const text = profileBreakdown(profile, window);
      if (/^ {2}0 ms/.test(text)) continue;
      console.log(
        `\nwhere the app's CPU goes: ${push}, ${resources.toLocaleString("en-US")} resources (node --cpu-prof, thread ${files[i]}; git processes apart)`,
      );
      console.log(text);
    }
  }
  if (process.env.BOT_E2E_KEEP_PROFILE)
    console.log(`profiles kept: ${profDir}; the pushes' windows (µs): ${JSON.stringify([...windows])}`);
  else rmSync(profDir, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchBotEndToEnd().then(
    (rows) => console.table(rows),
    (e) => {
      process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
