import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { type Forge, startForge } from "@porchlight/forge";
import { TEST_KEY } from "../../../packages/forge/test/helpers.js";
import { main } from "../../../src/cli/main.js";
import { captureIO } from "../../util/cli-io.js";
import { useStarted } from "../../util/use-started.js";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RpkgWorld {
  forge: Forge;
  /** PATs: alice and bob write, carol read. */
  alice: string;
  bob: string;
  carol: string;
  /** An installation token of a porchlight app on acme (plays the bot: check runs). */
  bot: string;
  tmp: string;
  /**
   * Runs `porchlight rpkg ARGS` in-process as the token's user, against the forge; `env` adds to the
   * command's environment (GH_TOKEN and PATH; no HOME, so no cache on disk unless XDG_CACHE_HOME is given).
   */
  rpkg(token: string, args: string[], opts?: RunOptions): Promise<Run>;
  /** Runs `porchlight COMMAND ARGS` (any command taking --api-url) the same way. */
  cli(token: string, argv: string[], opts?: RunOptions): Promise<Run>;
  octokit(token: string): Octokit;
  /** Proposes `name` as alice, turns the required checks green as the bot, approves as bob. */
  publish(repository: string, name: string): Promise<Run>;
  /** Turns the required checks green, as the bot, on the head of every open pull request of `repository`. */
  greenChecks(repository: string): Promise<void>;
  stop(): Promise<void>;
}

interface RunOptions {
  stdin?: string;
  cwd?: string;
  tty?: boolean;
  env?: Record<string, string>;
}

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/**
 * The rpkg world of the describe block that calls this: started before its tests and its own
 * `beforeAll` hooks, stopped after its own `afterAll` hooks; each member is the started world's.
 */
export function useRpkgWorld(): RpkgWorld {
  return useStarted("the rpkg world", rpkgWorld, async (world) => world?.stop());
}

/** A forge with org acme, repositories acme/blueprints and acme/deploy (one commit on main each). */
export async function rpkgWorld(): Promise<RpkgWorld> {
  const forge = await startForge();
  forge.createUser("acme", { type: "Organization" });
  await forge.createRepo("acme/blueprints", { autoInit: true });
  await forge.createRepo("acme/deploy", { autoInit: true });
  const app = forge.createApp({ privateKeyPem: TEST_KEY });
  forge.setWebhookUrl(null);
  const inst = forge.createInstallation(app.appId, "acme");
  const user = (login: string, level: "write" | "read") => {
    const { pat } = forge.createUser(login, { pat: true, name: login[0]?.toUpperCase() + login.slice(1) });
    for (const repo of ["acme/blueprints", "acme/deploy"]) forge.setPermission(repo, login, level);
    return pat as string;
  };
  const tmp = mkdtempSync(join(tmpdir(), "rpkg-test-"));
  const world: RpkgWorld = {
    forge,
    alice: user("alice", "write"),
    bob: user("bob", "write"),
    carol: user("carol", "read"),
    bot: forge.installationToken(inst.id),
    tmp,
    rpkg: (token, args, opts = {}) => world.cli(token, ["rpkg", ...args], opts),
    async cli(token, argv, opts = {}) {
      const io = captureIO({
        readStdin: async () => opts.stdin ?? "",
        cwd: opts.cwd ?? tmp,
        env: { GH_TOKEN: token, PATH: process.env.PATH ?? "", ...opts.env },
        isTTY: opts.tty ?? false,
      });
      const code = await main([...argv, `--api-url=${forge.apiUrl}`], io);
      return { code, stdout: io.out(), stderr: io.err() };
    },
    octokit: (token) => new Octokit({ baseUrl: forge.apiUrl, auth: token, log: quiet }),
    async publish(repository, name) {
      const proposed = await world.rpkg(world.alice, ["propose", name, `--repository=${repository}`]);
      if (proposed.code !== 0) return proposed;
      await world.greenChecks(repository);
      return world.rpkg(world.bob, ["approve", name, `--repository=${repository}`]);
    },
    async greenChecks(repository) {
      const [owner, repo] = repository.split("/") as [string, string];
      const gh = world.octokit(world.bot);
      const pulls = (await gh.rest.pulls.list({ owner, repo, state: "open" })).data;
      for (const pr of pulls) {
        for (const check of ["porchlight/render", "porchlight/guardrails"]) {
          await gh.rest.checks.create({
            owner,
            repo,
            name: check,
            head_sha: pr.head.sha,
            status: "completed",
            conclusion: "success",
          });
        }
      }
    },
    async stop() {
      await forge.stop();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
  return world;
}

/** The header of Porch's package revision table, as `rpkg get` and `kubectl get packagerevisions` print it. */
export const PORCH_COLUMNS = [
  "NAME",
  "PACKAGE",
  "WORKSPACENAME",
  "REVISION",
  "LATEST",
  "LIFECYCLE",
  "REPOSITORY",
];

/** The columns of `rpkg get` without the padding: one string per row. */
export function rows(table: string): string[] {
  return table
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => l.trim().split(/\s+/).join(" "));
}
