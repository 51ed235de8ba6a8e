import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { startForge } from "@porchlight/forge";
import { describe, expect, it } from "vitest";
import { appJwt, git, quiet } from "../../packages/forge/test/helpers.js";
import { forgeCommand } from "../../src/cli/forge.js";
import { FROM_SOURCE } from "../e2e/serve-child.js";
import { captureIO } from "../util/cli-io.js";
import { useTempDirs } from "../util/temp-dirs.js";

const io = () => captureIO();

/** The app's installation, as a client with an installation token, from the app id and key the seed printed. */
async function installationClient(apiUrl: string, printed: string): Promise<Octokit> {
  const appId = Number(/APP_ID=(\d+)/.exec(printed)?.[1]);
  const keyPath = /PRIVATE_KEY_PATH=(.*)/.exec(printed)?.[1] ?? "";
  const app = new Octokit({
    baseUrl: apiUrl,
    auth: appJwt(appId, readFileSync(keyPath, "utf8")),
    log: quiet,
  });
  const [inst] = (await app.rest.apps.listInstallations()).data;
  const token = (await app.rest.apps.createInstallationAccessToken({ installation_id: inst!.id })).data.token;
  return new Octokit({ baseUrl: apiUrl, auth: token, log: quiet });
}

describe("forge seed and CLI", () => {
  const tmp = useTempDirs("forge-seed-");

  it("seeds a world that survives a restart: app, installation, blueprint, deployments, users", async () => {
    const data = tmp();
    const cli = io();
    expect(await forgeCommand(["seed", "--data", data], cli)).toBe(0);
    const printed = cli.out();
    const readerPat = /user reader \(read\) PAT: (\S+)/.exec(printed)?.[1] ?? "";
    expect(printed).toMatch(/WEBHOOK_SECRET=\w+/);

    const forge = await startForge({ dataDir: data });
    try {
      const bot = await installationClient(forge.apiUrl, printed);
      const repos = (await bot.rest.apps.listReposAccessibleToInstallation()).data.repositories.map(
        (r) => r.name,
      );
      expect(repos.sort()).toEqual(["blueprints", "deploy-dev", "deploy-prod"]);
      const kptfile = await bot.rest.repos.getContent({
        owner: "acme",
        repo: "blueprints",
        path: "hello/Kptfile",
      });
      expect(
        !Array.isArray(kptfile.data) &&
          kptfile.data.type === "file" &&
          Buffer.from(kptfile.data.content, "base64").toString(),
      ).toContain("gcr.io/kpt-fn/set-namespace:v0.4.1");
      await bot.rest.git.getRef({ owner: "acme", repo: "blueprints", ref: "tags/hello/v1" });
      const reader = new Octokit({ baseUrl: forge.apiUrl, auth: readerPat, log: quiet });
      await expect(
        reader.rest.git.createRef({
          owner: "acme",
          repo: "blueprints",
          ref: "refs/heads/x",
          sha: "0".repeat(40),
        }),
      ).rejects.toMatchObject({ status: 403 });
      const url = new URL(`${forge.url}/acme/deploy-dev.git`);
      url.username = "reader";
      url.password = readerPat;
      await git(data, "clone", "-q", url.toString(), join(data, "checkout"));
      await bot.rest.issues.create({ owner: "acme", repo: "deploy-dev", title: "kept across restarts" });
      // The installation token printed is the app's, for porchlight action: it may create check runs,
      // which a user's token may not (as on GitHub).
      const printedToken = /# installation token [^:]*: (\S+)/.exec(printed)?.[1] ?? "";
      expect(printed).toContain("PORCHLIGHT_BOT_LOGIN: porchlight[bot]");
      const head = (await bot.rest.git.getRef({ owner: "acme", repo: "blueprints", ref: "heads/main" })).data
        .object.sha;
      const check = { owner: "acme", repo: "blueprints", name: "porchlight/render", head_sha: head };
      const asApp = new Octokit({ baseUrl: forge.apiUrl, auth: printedToken, log: quiet });
      expect((await asApp.rest.checks.create(check)).status).toBe(201);
      await expect(reader.rest.checks.create(check)).rejects.toMatchObject({ status: 403 });
    } finally {
      await forge.stop();
    }
    const again = await startForge({ dataDir: data });
    try {
      const reader = new Octokit({ baseUrl: again.url, auth: readerPat, log: quiet });
      const issues = await reader.rest.issues.listForRepo({ owner: "acme", repo: "deploy-dev" });
      expect(issues.data.map((i) => i.title)).toEqual(["kept across restarts"]);
    } finally {
      await again.stop();
    }
  });

  it("has a site administrator who creates an organization, and a repository the app serves", async () => {
    const data = tmp();
    const cli = io();
    expect(await forgeCommand(["seed", "--data", data], cli)).toBe(0);
    const printed = cli.out();
    const adminPat = /site administrator admin \(creates organizations and repositories\) PAT: (\S+)/.exec(
      printed,
    )?.[1];
    const readerPat = /user reader \(read\) PAT: (\S+)/.exec(printed)?.[1] ?? "";
    expect(adminPat).toBeTruthy();
    const forge = await startForge({ dataDir: data });
    try {
      const admin = new Octokit({ baseUrl: forge.apiUrl, auth: adminPat, log: quiet });
      const reader = new Octokit({ baseUrl: forge.apiUrl, auth: readerPat, log: quiet });
      const org = await admin.request("POST /admin/organizations", { login: "platform", admin: "admin" });
      expect(org).toMatchObject({ status: 201, data: { login: "platform", type: "Organization" } });
      await expect(
        reader.request("POST /admin/organizations", { login: "mine", admin: "reader" }),
      ).rejects.toMatchObject({
        status: 403,
      });
      await admin.rest.repos.createInOrg({ org: "platform", name: "packages", auto_init: true });
      await expect(reader.rest.repos.createInOrg({ org: "acme", name: "nope" })).rejects.toMatchObject({
        status: 403,
      });
      // in acme, where the app is installed on every repository, the admin's new repository is the app's too
      await admin.rest.repos.createInOrg({ org: "acme", name: "my-packages", auto_init: true });
      const url = new URL(`${forge.url}/acme/my-packages.git`);
      url.username = "admin";
      url.password = adminPat ?? "";
      const checkout = join(data, "mine");
      await git(data, "clone", "-q", url.toString(), checkout);
      await git(
        checkout,
        "-c",
        "user.name=a",
        "-c",
        "user.email=a@x",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
      );
      await git(checkout, "push", "-q", "origin", "HEAD:refs/heads/drafts/x/y");
      const bot = await installationClient(forge.apiUrl, printed);
      const names = (await bot.rest.apps.listReposAccessibleToInstallation()).data.repositories.map(
        (r) => r.name,
      );
      expect(names).toContain("my-packages");
      expect(names).not.toContain("packages");
    } finally {
      await forge.stop();
    }
  });

  it("keeps the port of a data folder's forge across restarts, seeded or not", async () => {
    const data = tmp();
    const start = (args: string[]) =>
      new Promise<{ url: string; stop: () => Promise<void> }>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [...FROM_SOURCE, "test/e2e/app-process.ts", "forge", "--data", data, ...args],
          {
            stdio: ["ignore", "pipe", "pipe"],
          },
        );
        let out = "";
        child.stdout.on("data", (b: Buffer) => {
          out += b.toString();
          const url = /listening on (\S+)/.exec(out)?.[1];
          if (url)
            resolve({
              url,
              stop: () =>
                new Promise((done) => {
                  child.once("exit", () => done());
                  child.kill("SIGTERM");
                }),
            });
        });
        child.once("exit", (code) => reject(new Error(`forge exited ${code}: ${out}`)));
      });
    const first = await start(["--port", "0"]);
    await first.stop();
    expect(first.url).not.toBe("http://127.0.0.1:3000");
    const second = await start([]);
    await second.stop();
    expect(second.url).toBe(first.url);
    // seed prints, and remembers, where the forge of this folder serves
    const cli = io();
    expect(await forgeCommand(["seed", "--data", data], cli)).toBe(0);
    expect(cli.out()).toContain(`GHE_HOST=${new URL(first.url).host}`);
  });

  it("explains a missing --data and an unknown subcommand", async () => {
    await expect(forgeCommand([], io())).rejects.toThrow(/--data DIR is required/);
    await expect(forgeCommand(["bogus", "--data", tmp()], io())).rejects.toThrow(/unknown argument "bogus"/);
  });
});
