/**
 * The stage Porch's end-to-end suites run on here (scripts/porch-e2e.ts, scripts/porch-api-e2e.ts): the
 * embedded forge standing in for Porch's gitea, with the porchlight app serving it, the user `nephio`
 * owning `nephio/porch-test` (reset between cases) and `nephio/test-blueprints` (Porch's
 * test/pkgs/test-pkgs/test-blueprints.bundle), and `porchlight` run in-process as that user.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type Forge, startForge } from "@porchlight/forge";
import { pino } from "pino";
import { TEST_KEY } from "../packages/forge/test/helpers.js";
import { startAppServer } from "../src/app/server.js";
import type { CliIO } from "../src/cli/io.js";
import { main } from "../src/cli/main.js";

const run = promisify(execFile);

export interface Outcome {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface PorchStage {
  forge: Forge;
  token: string;
  /** `porchlight ARGS` as nephio (`--api-url` added for repo and rpkg), the app's work settled after. */
  porchlight(args: string[], opts?: { stdin?: string; cwd?: string }): Promise<Outcome>;
  /** Porch's RecreateGiteaTestRepo: porch-test back to one fresh commit on main, nothing else. */
  recreatePorchTest(): Promise<void>;
  /** An organization as a namespace, with the repository its registrations go to. */
  ensureNamespace(name: string): Promise<void>;
  git(cwd: string, ...args: string[]): Promise<{ stdout: string }>;
  /**
   * The GitHub REST requests nephio's token has spent in this rate-limit window (`counted`: those GitHub
   * counts against the hourly budget; `notModified`: the conditional requests answered 304, which it does
   * not count); `fresh` opens a new window (the counts back to 0, as GitHub's hourly reset).
   */
  restRequests(opts?: { fresh?: boolean }): { counted: number; notModified: number };
  /** Waits until the forge's webhooks and the app's work are done (after a write not made by `porchlight`). */
  settle(): Promise<void>;
  work: string;
  close(): Promise<void>;
}

export async function startPorchStage(porch: string, cwd: string): Promise<PorchStage> {
  const forge = await startForge();
  const creds = forge.createApp({ name: "porchlight", owner: "nephio", privateKeyPem: TEST_KEY });
  const app = await startAppServer({
    appId: creds.appId,
    privateKey: creds.privateKeyPem,
    webhookSecret: creds.webhookSecret,
    baseUrl: forge.apiUrl,
    port: 0,
    writeIntervalMs: 0,
    retryAfterUnitMs: 1,
    log: pino({ level: process.env.E2E_LOG ?? "silent" }),
  });
  forge.setWebhookUrl(app.webhookUrl);
  const { pat } = forge.createUser("nephio", { pat: true, name: "Nephio" });
  const token = pat as string;
  const work = mkdtempSync(join(tmpdir(), "porch-stage-"));
  const git = (dir: string, ...args: string[]) =>
    run("git", ["-c", "user.name=nephio", "-c", "user.email=nephio@example.com", ...args], { cwd: dir });

  await forge.createRepo("nephio/porch-test", { autoInit: true, private: true });
  await forge.createRepo("nephio/test-blueprints", { private: true });
  const bundle = join(porch, "test/pkgs/test-pkgs/test-blueprints.bundle");
  if (existsSync(bundle)) {
    const dir = join(work, "test-blueprints");
    await run("git", ["clone", "-q", bundle, dir]);
    await git(dir, "push", "-q", forge.cloneUrl("nephio/test-blueprints", token), "--all");
    await git(dir, "push", "-q", forge.cloneUrl("nephio/test-blueprints", token), "--tags");
  }
  forge.createInstallation(creds.appId, "nephio");

  const settle = async () => {
    for (let i = 0; i < 100; i++) {
      const before = forge.webhooks.deliveries.length;
      await forge.webhooks.idle();
      await app.idle();
      await forge.webhooks.idle();
      if (forge.webhooks.deliveries.length === before && app.queues.size === 0) return;
    }
  };

  // where the request log stood when the rate-limit window opened
  let windowStart = forge.requestLog.entries.length;
  return {
    forge,
    token,
    work,
    git,
    settle,
    restRequests(opts = {}) {
      const key = `user:${forge.core.store.user("nephio")?.id}`;
      const counted = forge.rateLimit.snapshot(key).used;
      const log = forge.requestLog.entries;
      const notModified = log
        .slice(windowStart)
        .filter((e) => e.login === "nephio" && e.status === 304).length;
      if (opts.fresh) {
        forge.rateLimit.reset();
        windowStart = log.length;
      }
      return { counted, notModified };
    },
    async porchlight(args, opts = {}) {
      let stdout = "";
      let stderr = "";
      const io: CliIO = {
        stdout: (t) => {
          stdout += t;
        },
        stderr: (t) => {
          stderr += t;
        },
        readStdin: async () => opts.stdin ?? "",
        cwd: opts.cwd ?? cwd,
        env: {
          GH_TOKEN: token,
          PATH: process.env.PATH ?? "",
          GIT_AUTHOR_NAME: "nephio",
          GIT_AUTHOR_EMAIL: "nephio@example.com",
        },
        isTTY: false,
      };
      const withApi = ["repo", "rpkg"].includes(args[0] ?? "")
        ? [...args, `--api-url=${forge.apiUrl}`]
        : args;
      let exitCode: number;
      try {
        exitCode = await main(withApi, io);
      } catch (e) {
        stderr += `${(e as Error).message}\n`;
        exitCode = 1;
      }
      await settle();
      return { exitCode, stdout, stderr };
    },
    async recreatePorchTest() {
      const url = forge.cloneUrl("nephio/porch-test", token);
      const dir = mkdtempSync(join(work, "reset-"));
      await git(dir, "init", "-q", "-b", "main");
      await git(dir, "commit", "-q", "--allow-empty", "-m", "Initial commit");
      const refs = (await git(dir, "ls-remote", url)).stdout
        .split("\n")
        .map((l) => l.split("\t")[1])
        .filter((r): r is string => !!r && r !== "HEAD" && r !== "refs/heads/main" && !r.endsWith("^{}"));
      await git(dir, "push", "-q", "--force", url, "main", ...refs.map((r) => `:${r}`));
      rmSync(dir, { recursive: true, force: true });
      // pull requests left open by a case are closed with their branches gone
      await settle();
    },
    async ensureNamespace(name) {
      if (forge.core.store.user(name)) return;
      // the namespace, and the repository its registrations go to (`porchlight repo register` would
      // create it for an owner of the organization)
      forge.createUser(name, { type: "Organization" });
      await forge.createRepo(`${name}/.porchlight`, { autoInit: true, private: true });
      forge.setPermission(`${name}/.porchlight`, "nephio", "admin");
    },
    async close() {
      await app.close();
      await forge.stop();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
