import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { parse } from "yaml";
import { rpkgCommand } from "../src/cli/rpkg.js";
import { serveCommand } from "../src/cli/serve.js";

const run = promisify(execFile);
const PACKAGES = Number(process.env.API_BENCH_PACKAGES ?? 40);
const TAGS = 4;
const LISTS = 7;
const IDLE_MS = Number(process.env.API_BENCH_IDLE_MS ?? 30_000);
/** Watches open at once: the server's default cap (PORCHLIGHT_API_MAX_WATCHES). */
const WATCHES = 100;
/** Approvals of each kind (rpkg, the API), alternating; the medians compared. */
const ROUNDS = Number(process.env.API_BENCH_APPROVALS ?? 3);

export interface ApiBenchRow {
  measure: string;
  value: string;
}

const git = (cwd: string, ...args: string[]) =>
  run("git", args, {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "bench",
      GIT_AUTHOR_EMAIL: "bench@example.com",
      GIT_COMMITTER_NAME: "bench",
      GIT_COMMITTER_EMAIL: "bench@example.com",
    },
  });

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 300_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};

/**
 * Porch's API at controller scale (issue #70), on `porchlight serve` with the embedded forge (the app and
 * the API in one process, the app's webhooks keeping the API's index): a namespace of about 200 package
 * revisions (API_BENCH_PACKAGES packages on main, each with four tags), then `kubectl get
 * packagerevisions` (the median of seven and the budget units each spent, read from the forge's
 * `x-ratelimit-used` as a client sees it), a watch's delay from `git push` to its ADDED event, and what
 * an idle watch spends a minute (measured over API_BENCH_IDLE_MS).
 */
export async function benchApi(): Promise<ApiBenchRow[]> {
  const data = mkdtempSync(join(tmpdir(), "porchlight-bench-api-"));
  let out = "";
  const io = {
    stdout: (s: string) => {
      out += s;
    },
    stderr: () => {},
    readStdin: async () => "",
    cwd: data,
    env: {
      ...process.env,
      PORT: "0",
      LOG_LEVEL: "silent",
      PORCHLIGHT_RECONCILE_INTERVAL_MS: "0",
      // the server's cap of watches (100) measured from one token: its own cap (12) raised to it
      PORCHLIGHT_API_MAX_WATCHES_PER_TOKEN: String(WATCHES),
    },
    isTTY: false,
  };
  const running = serveCommand(["--data", data], io as never);
  const rows: ApiBenchRow[] = [];
  try {
    await until("serve", () => out.includes("kubectl get packagerevisions"));
    const forge = /forge: (\S+) /.exec(out)?.[1] ?? "";
    const kubeconfig = /export KUBECONFIG=(\S+)/.exec(out)?.[1] ?? "";
    const kube = parse(readFileSync(kubeconfig, "utf8"));
    const server = kube.clusters[0].cluster.server as string;
    const ca = Buffer.from(kube.clusters[0].cluster["certificate-authority-data"] as string, "base64");
    const token = kube.users[0].user.token as string;
    const repo = /--repository (\S+)/.exec(out)?.[1] ?? "acme/blueprints";
    const revisions = "/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions";
    const used = async () => {
      const r = await fetch(`${forge}/api/v3/user`, { headers: { authorization: `token ${token}` } });
      return Number(r.headers.get("x-ratelimit-used"));
    };
    const count = () =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          `${server}${revisions}`,
          { ca, headers: { authorization: `Bearer ${token}` } },
          (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (d: string) => {
              text += d;
            });
            res.on("end", () => resolve((JSON.parse(text) as { items: unknown[] }).items.length));
          },
        );
        req.on("error", reject);
        req.end();
      });

    // the namespace: PACKAGES packages on main, each tagged TAGS times
    const clone = join(data, "clone");
    const url = new URL(`${forge}/${repo}.git`);
    url.username = "x-access-token";
    url.password = token;
    await git(data, "clone", "-q", url.toString(), clone);
    const tags: string[] = [];
    for (let t = 1; t <= TAGS; t++) {
      for (let p = 0; p < PACKAGES; p++) {
        const dir = join(clone, `bench${p}`);
        mkdirSync(dir, { recursive: true });
        writeFileSync(
          join(dir, "Kptfile"),
          `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: bench${p}\n`,
        );
        writeFileSync(
          join(dir, "cm.yaml"),
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bench${p}\ndata:\n  v: "${t}"\n`,
        );
      }
      await git(clone, "add", ".");
      await git(clone, "commit", "-q", "-m", `bench: revision ${t}`);
      for (let p = 0; p < PACKAGES; p++) {
        await git(clone, "tag", `bench${p}/v${t}`);
        tags.push(`bench${p}/v${t}`);
      }
    }
    await git(clone, "push", "-q", "origin", "HEAD:main", ...tags);
    const expected = PACKAGES * (TAGS + 1);
    await until("the namespace's revisions listed", async () => (await count()) >= expected);
    const total = await count();
    rows.push({ measure: "package revisions in the namespace", value: String(total) });

    // kubectl get packagerevisions, LISTS times
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: data,
      KUBECONFIG: kubeconfig,
      KUBECACHEDIR: join(data, "kc"),
    };
    const walls: number[] = [];
    const before = await used();
    for (let i = 0; i < LISTS; i++) {
      const t0 = performance.now();
      await run("kubectl", ["get", "packagerevisions", "-n", "acme", "--no-headers"], {
        env,
        maxBuffer: 1 << 26,
      });
      walls.push(performance.now() - t0);
    }
    const after = await used();
    rows.push({
      measure: "kubectl get packagerevisions, median (s)",
      value: (median(walls) / 1000).toFixed(2),
    });
    rows.push({
      measure: "  budget units per list",
      value: ((after - before - 1) / LISTS).toFixed(2),
    });

    // a watch, and a draft pushed with git
    const watching = openWatch(server, ca, token);
    const { lines, stamps } = watching;
    await until("the watch's first events", () => lines.length >= total);
    await git(clone, "checkout", "-q", "-b", "drafts/watched/ws");
    mkdirSync(join(clone, "watched"), { recursive: true });
    writeFileSync(
      join(clone, "watched", "Kptfile"),
      "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: watched\n",
    );
    await git(clone, "add", ".");
    await git(clone, "commit", "-q", "-m", "watched: a draft");
    const pushed = performance.now();
    await git(clone, "push", "-q", "origin", "drafts/watched/ws");
    const pushDone = performance.now();
    const name = `${repo.split("/")[1]}.watched.ws`;
    const seen = () => lines.findIndex((l) => l.includes('"type":"ADDED"') && l.includes(`"name":"${name}"`));
    await until("the pushed draft in the watch", () => seen() >= 0);
    const event = stamps[seen()] ?? pushed;
    rows.push({
      measure: "watch: git push started to its ADDED event (s)",
      value: ((event - pushed) / 1000).toFixed(2),
    });
    rows.push({ measure: "  of which git push itself (s)", value: ((pushDone - pushed) / 1000).toFixed(2) });
    rows.push({ measure: "  git push done to the event (s)", value: ((event - pushDone) / 1000).toFixed(2) });

    // the watch left idle
    await new Promise((r) => setTimeout(r, 5_000));
    const idleBefore = await used();
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const idleAfter = await used();
    rows.push({
      measure: "idle watch: budget units a minute",
      value: (((idleAfter - idleBefore - 1) * 60_000) / IDLE_MS).toFixed(2),
    });
    watching.close();
    // the approvals first: the variant's fan-out would keep the app busy beside them
    rows.push(...(await approvals({ out, forge, server, ca, token, repo, data })));
    rows.push(...(await manyWatches({ out, server, ca, token, clone, repo })));
    rows.push(...(await appliedVariant({ forge, token, env, data })));
    return rows;
  } finally {
    process.emit("SIGTERM");
    await running.catch(() => 1);
    rmSync(data, { recursive: true, force: true });
  }
}

/**
 * An approval through the API (the approval subresource, as `porchctl rpkg approve` against Porch sends
 * it) against `rpkg approve` (in this process, as the API's runs: no process start in either), each of a
 * proposal whose checks the app has finished, by the seeded user who may approve.
 */
async function approvals(w: {
  out: string;
  forge: string;
  server: string;
  ca: Buffer;
  token: string;
  repo: string;
  data: string;
}): Promise<ApiBenchRow[]> {
  const users = [...w.out.matchAll(/^ {2}(\S+)\t(\S+)\t(\S+)$/gm)].map((m) => ({
    login: m[1] as string,
    permission: m[2] as string,
    pat: m[3] as string,
  }));
  const approver = users.find((u) => u.permission === "maintain" || u.permission === "admin") ?? users[0];
  const name = w.repo.split("/")[1] ?? "blueprints";
  const rpkg = async (token: string, args: string[]) => {
    let err = "";
    const code = await rpkgCommand([...args, `--repository=${w.repo}`, `--api-url=${w.forge}/api/v3`], {
      stdout: () => {},
      stderr: (t: string) => {
        err += t;
      },
      readStdin: async () => "",
      cwd: w.data,
      env: { PATH: process.env.PATH ?? "", GH_TOKEN: token },
      isTTY: false,
    } as never);
    if (code !== 0) throw new Error(`rpkg ${args.join(" ")}: ${err}`);
  };
  const api = (method: string, path: string, token: string, body?: unknown) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${w.server}/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions/${path}`,
        {
          method,
          ca: w.ca,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (d: string) => {
            text += d;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on("error", reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  const checksDone = async (pkg: string) => {
    const headers = { authorization: `token ${w.token}` };
    const pulls = (await (
      await fetch(`${w.forge}/api/v3/repos/${w.repo}/pulls?state=open&per_page=100`, { headers })
    ).json()) as { head: { ref: string; sha: string } }[];
    const pull = pulls.find((p) => p.head.ref === `drafts/${pkg}/ws`);
    if (!pull) return false;
    const runs = (await (
      await fetch(`${w.forge}/api/v3/repos/${w.repo}/commits/${pull.head.sha}/check-runs`, { headers })
    ).json()) as { check_runs: { name: string; status: string }[] };
    const done = runs.check_runs.filter((r) => r.status === "completed").map((r) => r.name);
    return done.includes("porchlight/render") && done.includes("porchlight/guardrails");
  };
  const rows: ApiBenchRow[] = [];
  // without a watch (a get then the approval, alone), then with one open, as a controller keeps it
  // (the namespace read again as each change is heard, so the get finds it read): both ways side by side
  for (const watched of [false, true]) {
    const watch = watched ? openWatch(w.server, w.ca, w.token) : undefined;
    try {
      rows.push(...(await approvalRounds(watched ? "watched" : "")));
    } finally {
      watch?.close();
    }
  }
  return rows;

  async function approvalRounds(tag: string): Promise<ApiBenchRow[]> {
    const rows: ApiBenchRow[] = [];
    const times: Record<string, number[]> = { api: [], rpkg: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const via of ["rpkg", "api"] as const) {
        const pkg = `approved${tag}${via}${round}`;
        await rpkg(w.token, ["init", pkg, "--workspace=ws"]);
        await rpkg(w.token, ["propose", `${name}.${pkg}.ws`]);
        await until(`the checks of ${pkg}`, () => checksDone(pkg));
        const t0 = performance.now();
        if (via === "rpkg") await rpkg(approver?.pat ?? w.token, ["approve", `${name}.${pkg}.ws`]);
        else {
          const got = JSON.parse((await api("GET", `${name}.${pkg}.ws`, approver?.pat ?? w.token)).body);
          got.spec.lifecycle = "Published";
          const t1 = performance.now();
          const put = await api("PUT", `${name}.${pkg}.ws/approval`, approver?.pat ?? w.token, got);
          if (process.env.API_BENCH_TRACE)
            console.log(`GET ${(t1 - t0).toFixed(0)} ms, PUT ${(performance.now() - t1).toFixed(0)} ms`);
          if (put.status !== 200) throw new Error(`approval through the API: ${put.status} ${put.body}`);
        }
        times[via]?.push(performance.now() - t0);
      }
    }
    const rpkgMs = median(times.rpkg ?? []);
    const apiMs = median(times.api ?? []);
    const how = tag ? ", a watch open" : "";
    rows.push({ measure: `approval${how}: rpkg approve (s)`, value: (rpkgMs / 1000).toFixed(2) });
    rows.push({ measure: `approval${how}: through the API (s)`, value: (apiMs / 1000).toFixed(2) });
    rows.push({ measure: "  API / rpkg", value: (apiMs / rpkgMs).toFixed(2) });
    return rows;
  }
}

/** A watch of the namespace's package revisions over HTTPS: its lines as they come, stamped. */
function openWatch(server: string, ca: Buffer, token: string) {
  const lines: string[] = [];
  const stamps: number[] = [];
  let status = 0;
  const req = request(`${server}/apis/porch.kpt.dev/v1alpha1/namespaces/acme/packagerevisions?watch=true`, {
    ca,
    headers: { authorization: `Bearer ${token}` },
  });
  req.on("response", (res) => {
    status = res.statusCode ?? 0;
    res.setEncoding("utf8");
    res.on("data", (d: string) => {
      for (const l of d.split("\n").filter(Boolean)) {
        lines.push(l);
        stamps.push(performance.now());
      }
    });
  });
  req.on("error", () => {});
  req.end();
  return { lines, stamps, status: () => status, close: () => req.destroy() };
}

/**
 * WATCHES watches open at once (the server's cap; one more is refused), a draft pushed with git while
 * they are: the delay to its ADDED event in every one, the app's `/healthz` asked every 100 ms
 * meanwhile (its slowest answer), the push's webhook handled (the draft's checks completed), and what
 * the idle watches spend.
 */
async function manyWatches(w: {
  out: string;
  server: string;
  ca: Buffer;
  token: string;
  clone: string;
  repo: string;
}): Promise<ApiBenchRow[]> {
  const app = /app: +(\S+) /.exec(w.out)?.[1] ?? "";
  const forge = /forge: (\S+) /.exec(w.out)?.[1] ?? "";
  const watches = Array.from({ length: WATCHES }, () => openWatch(w.server, w.ca, w.token));
  const rows: ApiBenchRow[] = [];
  try {
    await until("every watch's initial events", () =>
      watches.every((x) => x.lines.some((l) => l.includes('"type":"ADDED"'))),
    );
    const over = openWatch(w.server, w.ca, w.token);
    await until("the watch over the cap answered", () => over.status() !== 0);
    over.close();
    rows.push({ measure: `${WATCHES} watches open; one more answered`, value: String(over.status()) });
    const rss = process.memoryUsage().rss;
    // /healthz asked every 100 ms while a draft is pushed and its event reaches every watch
    const health: number[] = [];
    let asking = true;
    const asked = (async () => {
      while (asking) {
        const t0 = performance.now();
        const r = await fetch(`${app}/healthz`);
        await r.arrayBuffer();
        health.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await git(w.clone, "checkout", "-q", "-B", "drafts/crowd/ws", "origin/main");
    mkdirSync(join(w.clone, "crowd"), { recursive: true });
    writeFileSync(
      join(w.clone, "crowd", "Kptfile"),
      "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: crowd\n",
    );
    await git(w.clone, "add", ".");
    await git(w.clone, "commit", "-q", "-m", "crowd: a draft");
    const marks = watches.map((x) => x.lines.length);
    const pushed = performance.now();
    await git(w.clone, "push", "-q", "origin", "drafts/crowd/ws");
    const name = `${w.repo.split("/")[1]}.crowd.ws`;
    const seenAt = (x: (typeof watches)[number], from: number) => {
      const i = x.lines.findIndex(
        (l, j) => j >= from && l.includes('"type":"ADDED"') && l.includes(`"name":"${name}"`),
      );
      return i < 0 ? undefined : x.stamps[i];
    };
    await until("the pushed draft in every watch", () => watches.every((x, i) => seenAt(x, marks[i] ?? 0)));
    const delays = watches.map((x, i) => ((seenAt(x, marks[i] ?? 0) ?? pushed) - pushed) / 1000);
    // the push's webhook handled: the draft's render check completed
    const headers = { authorization: `token ${w.token}` };
    await until("the draft's checks", async () => {
      const ref = (await (
        await fetch(`${forge}/api/v3/repos/${w.repo}/commits/drafts%2Fcrowd%2Fws/check-runs`, { headers })
      ).json()) as { check_runs?: { name: string; status: string }[] };
      return (ref.check_runs ?? []).some((r) => r.name === "porchlight/render" && r.status === "completed");
    });
    const checked = (performance.now() - pushed) / 1000;
    asking = false;
    await asked;
    rows.push({
      measure: "  git push start → ADDED in all, median / slowest (s)",
      value: `${median(delays).toFixed(2)} / ${Math.max(...delays).toFixed(2)}`,
    });
    rows.push({ measure: "  git push start → the draft's render check done (s)", value: checked.toFixed(2) });
    rows.push({
      measure: "  the app's /healthz meanwhile, median / slowest (ms)",
      value: `${median(health).toFixed(0)} / ${Math.max(...health).toFixed(0)} (${health.length} asked)`,
    });
    rows.push({
      measure: "  the process's memory with them open (MiB)",
      value: `${(rss / 2 ** 20).toFixed(0)} → ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)}`,
    });
  } finally {
    for (const x of watches) x.close();
  }
  return rows;
}

/**
 * A PackageVariant applied with kubectl (upstream bench0 of the namespace's blueprints, published;
 * downstream a deployment repository of the seeded world): the time from the apply to its downstream
 * pull request, opened by the app on the variant file's push (no sweep runs in the bench).
 */
async function appliedVariant(w: {
  forge: string;
  token: string;
  env: Record<string, string>;
  data: string;
}): Promise<ApiBenchRow[]> {
  const headers = { authorization: `token ${w.token}` };
  const registered = (await (
    await fetch(`${w.forge}/api/v3/repos/acme/.porchlight/contents/repositories`, { headers })
  ).json()) as { name: string }[] | { message?: string };
  const names = Array.isArray(registered) ? registered.map((f) => f.name.replace(/\.ya?ml$/, "")) : [];
  const downstream = names.find((n) => n !== "blueprints") ?? "deploy-dev";
  const file = join(w.data, "variant.yaml");
  writeFileSync(
    file,
    `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: bench-variant\n  namespace: acme\nspec:\n  upstream:\n    repo: blueprints\n    package: bench0\n  downstream:\n    repo: ${downstream}\n    package: bench0\n`,
  );
  const t0 = performance.now();
  await run("kubectl", ["apply", "-f", file], { env: w.env });
  const applied = performance.now();
  const pulls = async () =>
    (await (
      await fetch(`${w.forge}/api/v3/repos/acme/${downstream}/pulls?state=open&per_page=100`, { headers })
    ).json()) as { head: { ref: string } }[];
  await until("the variant's downstream pull request", async () =>
    (await pulls()).some((p) => p.head.ref.includes("bench-variant")),
  );
  const opened = performance.now();
  return [
    {
      measure: `variant applied with kubectl → its pull request in acme/${downstream} (s)`,
      value: ((opened - t0) / 1000).toFixed(2),
    },
    { measure: "  of which kubectl apply (s)", value: ((applied - t0) / 1000).toFixed(2) },
  ];
}
