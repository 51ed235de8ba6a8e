import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { startWorld, type World } from "../test/e2e/harness.js";

const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n";
const CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: '1'\n";
const run = promisify(execFile);

interface FlowCost {
  rest: number;
  git: number;
  byRoute: Record<string, number>;
}

/** The app's requests since `from` (its installation token), REST and git apart. */
function costSince(w: World, from: number): FlowCost {
  const mine = w.forge.requestLog.entries.slice(from).filter((e) => e.installationId !== null);
  const byRoute: Record<string, number> = {};
  let git = 0;
  for (const e of mine) {
    if (e.path.includes(".git/")) {
      git++;
      continue;
    }
    const k = `${e.method} ${e.route}`;
    byRoute[k] = (byRoute[k] ?? 0) + 1;
  }
  return { rest: mine.length - git, git, byRoute };
}

async function measure(w: World, act: () => Promise<void>): Promise<FlowCost> {
  await w.settle();
  const from = w.forge.requestLog.entries.length;
  await act();
  await w.settle();
  return costSince(w, from);
}

/** Adds `count` published packages' tags to the repository in one git process. */
async function addRevisions(w: World, count: number): Promise<void> {
  if (count === 0) return;
  const [owner, name] = w.repo.split("/") as [string, string];
  const dir = w.forge.core.git.dir(owner, name);
  const { stdout } = await run("git", ["rev-parse", "refs/heads/main"], { cwd: dir });
  const sha = stdout.trim();
  const lines = Array.from({ length: count }, (_, i) => `create refs/tags/others/pkg-${i}/v1 ${sha}\n`).join(
    "",
  );
  const child = execFile("git", ["update-ref", "--stdin"], { cwd: dir });
  child.stdin?.end(lines);
  await new Promise<void>((resolve, reject) =>
    child.on("close", (c) => (c === 0 ? resolve() : reject(new Error(`update-ref ${c}`)))),
  );
}

async function flows(revisions: number): Promise<Record<string, FlowCost>> {
  const w = await startWorld({ "README.md": "x\n", "apps/web/Kptfile": KPTFILE, "apps/web/cm.yaml": CM });
  try {
    await addRevisions(w, revisions - 1);
    const alice = await w.clone("alice");
    const render = await measure(w, async () => {
      await alice.push("drafts/apps/web/bench", { "apps/web/cm.yaml": CM.replace("'1'", "'2'") });
    });
    const [owner, repo] = w.repo.split("/") as [string, string];
    let pull = 0;
    const checks = await measure(w, async () => {
      pull = (
        await w.users.alice!.rest.pulls.create({
          owner,
          repo,
          head: "drafts/apps/web/bench",
          base: "main",
          title: "bench",
        })
      ).data.number;
    });
    const publish = await measure(w, async () => {
      await w.users.bob!.rest.issues.createComment({ owner, repo, issue_number: pull, body: "/approve" });
    });
    return { "render on push": render, "proposal checks": checks, publish };
  } finally {
    await w.stop();
  }
}

/** GitHub API calls per bot flow, counted by the embedded forge; publish at 1 and 1,000 revisions. */
export async function benchBot(): Promise<void> {
  const small = await flows(1);
  const large = await flows(1000);
  const line = (name: string, c: FlowCost) =>
    `  ${name.padEnd(18)} REST ${String(c.rest).padStart(3)}  git ${String(c.git).padStart(3)}`;
  const out = [
    "bot flows: GitHub API calls per flow (REST by route; git = smart-HTTP requests)",
    "",
    "repository with 1 package revision:",
  ];
  for (const [k, v] of Object.entries(small)) out.push(line(k, v));
  out.push("", "repository with 1,000 package revisions:");
  for (const [k, v] of Object.entries(large)) out.push(line(k, v));
  out.push("", "publish, by route (1 revision):");
  for (const [k, v] of Object.entries(small.publish?.byRoute ?? {}))
    out.push(`  ${String(v).padStart(3)} ${k}`);
  const same = small.publish?.rest === large.publish?.rest;
  out.push("", `publish costs the same at 1 and 1,000 revisions: ${same ? "yes" : "NO"}`);
  process.stdout.write(`${out.join("\n")}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchBot().catch((e) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exitCode = 1;
  });
}
