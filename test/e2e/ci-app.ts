import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Octokit } from "@octokit/rest";
import type { World } from "./harness.js";

const OWNER = "acme";
const ZERO = "0".repeat(40);

/**
 * A downstream CI, as another GitHub App on the forge: it starts on every push to a default or fan-out
 * branch of its repositories — a check run `ci/e2e` in progress, or a commit status `ci/jenkins`
 * pending — and waits for the test to finish it. It answers the push webhook only once the check is
 * there, and the forge sends a repository's events in order, so nothing after the push (the pull
 * request's `opened`, porchlight's checks) can overtake it.
 */
export interface Ci {
  server: Server;
  /** What it started, by repository and commit: a check run's id, or none for a status. */
  started: { repo: string; sha: string; run?: number }[];
  /** Finishes what it started on `repo@sha` with `conclusion` (default success), then settles the world. */
  finish(repo: string, sha: string, conclusion?: "success" | "failure"): Promise<void>;
  close(): void;
}

export async function startCi(w: World, opts: { repos: string[]; statuses?: string[] }): Promise<Ci> {
  // A token minted for each call: the CI outlives a token's lifetime in tests that shorten it.
  let rest: (() => Octokit) | undefined;
  const started: Ci["started"] = [];
  const start = async (repo: string, sha: string) => {
    if (!rest) return;
    if (opts.statuses?.includes(repo)) {
      await rest().repos.createCommitStatus({
        owner: OWNER,
        repo,
        sha,
        state: "pending",
        context: "ci/jenkins",
      });
      started.push({ repo, sha });
      return;
    }
    const { data } = await rest().checks.create({
      owner: OWNER,
      repo,
      name: "ci/e2e",
      head_sha: sha,
      status: "in_progress",
    });
    started.push({ repo, sha, run: data.id });
  };
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", async () => {
      const p = JSON.parse(body) as { ref?: string; after?: string; repository?: { name: string } };
      const repo = p.repository?.name ?? "";
      const branch = p.ref?.replace("refs/heads/", "") ?? "";
      const watched = branch === "main" || branch.startsWith("porchlight/variant/");
      const push = req.headers["x-github-event"] === "push";
      if (push && opts.repos.includes(repo) && watched && p.after && p.after !== ZERO)
        await start(repo, p.after);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const app = w.forge.createApp({
    name: "ci",
    owner: OWNER,
    webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
  });
  const installation = w.forge.createInstallation(app.appId, OWNER);
  const ci = () => new Octokit({ baseUrl: w.forge.apiUrl, auth: w.forge.installationToken(installation.id) });
  rest = ci;
  return {
    server,
    started,
    finish: async (repo, sha, conclusion = "success") => {
      const s = started.find((x) => x.repo === repo && x.sha === sha);
      if (!s) throw new Error(`CI never started on ${repo}@${sha}`);
      if (s.run === undefined)
        await ci().repos.createCommitStatus({
          owner: OWNER,
          repo,
          sha,
          state: conclusion,
          context: "ci/jenkins",
        });
      else
        await ci().checks.update({
          owner: OWNER,
          repo,
          check_run_id: s.run,
          status: "completed",
          conclusion,
        });
      await w.settle();
    },
    close: () => server.close(),
  };
}
