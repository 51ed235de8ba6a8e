import { once } from "node:events";
import { Octokit } from "@octokit/rest";
import { type Forge, startForge } from "@porchlight/forge";
import { expect } from "vitest";
import { type ServeProcess, spawnServe } from "./serve-child.js";

/** The app as `porchlight serve` in a child process, against the forge, until killed. */
export type AppProcess = ServeProcess;

export async function startApp(
  forge: Forge,
  creds: ReturnType<Forge["createApp"]>,
  env: Record<string, string> = {},
): Promise<AppProcess> {
  const app = await spawnServe(forge, creds, env);
  forge.setWebhookUrl(app.webhookUrl);
  return app;
}

export async function kill9(forge: Forge, app: AppProcess): Promise<void> {
  forge.setWebhookUrl(null);
  const exited = once(app.child, "exit");
  app.child.kill("SIGKILL");
  await exited;
}

/** SIGTERM: the app finishes its queued jobs, then exits 0. */
export async function stopApp(forge: Forge, app: AppProcess): Promise<void> {
  forge.setWebhookUrl(null);
  const exited = once(app.child, "exit");
  app.child.kill("SIGTERM");
  const [code, signal] = await exited;
  expect(code, `${signal} ${app.output()}`).toBe(0);
}

/** A forge over HTTP for apps run as child processes (`startApp`), and what the tests do on it. */
export interface ChildWorld {
  forge: Forge;
  creds: ReturnType<Forge["createApp"]>;
  /** The apps started so far, oldest first: `stop` kills those still running. */
  apps: AppProcess[];
  /** A client of the forge's REST API as `user` (alice or bob). */
  rest(user: string): Octokit;
  /** SIGKILL to every app still running, then the forge stopped. */
  stop(): Promise<void>;
}

/**
 * A forge with `acme/blueprints` holding `files`, each of `downstreams` as `acme/NAME` holding a README,
 * the app installed on `acme` (no app started: no webhooks sent until one is), and alice and bob, who
 * may write the blueprints and read the downstreams.
 */
export async function startChildWorld(
  files: Record<string, string>,
  downstreams: readonly string[] = [],
): Promise<ChildWorld> {
  const owner = "acme";
  const forge = await startForge();
  const creds = forge.createApp({ name: "porchlight", owner });
  forge.setWebhookUrl(null);
  forge.createUser(owner, { type: "Organization" });
  await forge.createRepo(`${owner}/blueprints`, { files });
  for (const repo of downstreams)
    await forge.createRepo(`${owner}/${repo}`, { files: { "README.md": `# ${repo}\n` } });
  forge.createInstallation(creds.appId, owner);
  const pats: Record<string, string> = {};
  for (const login of ["alice", "bob"]) {
    pats[login] = forge.createUser(login, { pat: true }).pat as string;
    forge.setPermission(`${owner}/blueprints`, login, "write");
    for (const repo of downstreams) forge.setPermission(`${owner}/${repo}`, login, "read");
  }
  const apps: AppProcess[] = [];
  return {
    forge,
    creds,
    apps,
    rest: (user) => new Octokit({ baseUrl: forge.apiUrl, auth: pats[user] }),
    stop: async () => {
      for (const a of apps)
        if (a.child.exitCode === null && a.child.signalCode === null) a.child.kill("SIGKILL");
      await forge.stop();
    },
  };
}

/**
 * alice's proposal through the REST API, as a person editing on GitHub would: draft `branch` from the
 * blueprints' main, one commit (`message`) that sets `path` to `text`, and its pull request, titled
 * with the branch's last segment.
 */
export async function proposeEdit(
  w: ChildWorld,
  branch: string,
  edit: { path: string; text: string; message: string },
) {
  const [owner, repo] = ["acme", "blueprints"];
  const alice = w.rest("alice");
  const main = (await alice.git.getRef({ owner, repo, ref: "heads/main" })).data.object.sha;
  await alice.git.createRef({ owner, repo, ref: `refs/heads/${branch}`, sha: main });
  const old = (await alice.repos.getContent({ owner, repo, path: edit.path })).data as { sha: string };
  await alice.repos.createOrUpdateFileContents({
    owner,
    repo,
    path: edit.path,
    branch,
    message: edit.message,
    content: Buffer.from(edit.text).toString("base64"),
    sha: old.sha,
  });
  const title = branch.slice(branch.lastIndexOf("/") + 1);
  return (await alice.pulls.create({ owner, repo, head: branch, base: "main", title })).data;
}
