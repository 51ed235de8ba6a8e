// The forge's test helpers. porchlight's own tests, which run the app against a forge, take the key, a
// world and the app JWT from here too (test/e2e/harness.ts, test/github/repo-contract.test.ts).
import { execFile } from "node:child_process";
import { createPrivateKey, generateKeyPairSync, sign } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { type Forge, startForge } from "../src/index.js";

/** One RSA key per test file: generating a 2048-bit key costs more than a whole forge start. */
export const TEST_KEY = generateKeyPairSync("rsa", { modulusLength: 2048 })
  .privateKey.export({ type: "pkcs1", format: "pem" })
  .toString();

/** Octokit logs every failed request; tests assert on the failures instead. */
export const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** An installation- or user-authenticated REST client for a forge. */
export function client(forge: Forge, auth: string): Octokit {
  return new Octokit({ baseUrl: forge.apiUrl, auth, log: quiet });
}

/** An RS256 app JWT, as @octokit/auth-app makes one. */
export function appJwt(appId: number, privateKeyPem: string, nowS = Math.floor(Date.now() / 1000)): string {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const head = `${enc({ alg: "RS256", typ: "JWT" })}.${enc({ iat: nowS - 30, exp: nowS + 540, iss: appId })}`;
  const sig = sign("RSA-SHA256", Buffer.from(head), createPrivateKey(privateKeyPem)).toString("base64url");
  return `${head}.${sig}`;
}

export interface World {
  forge: Forge;
  appId: number;
  privateKeyPem: string;
  installationId: number;
  /** An installation token minted over REST with the app JWT. */
  token: string;
  octokit: Octokit;
  appOctokit: Octokit;
  tmp: string;
  cleanup: () => Promise<void>;
}

/** A forge with one app installed on org `acme`, repository `acme/blueprints` (one commit on main). */
export async function world(): Promise<World> {
  const forge = await startForge();
  const app = forge.createApp({ privateKeyPem: TEST_KEY });
  forge.createUser("acme", { type: "Organization" });
  await forge.createRepo("acme/blueprints", { autoInit: true, description: "kpt blueprints" });
  const inst = forge.createInstallation(app.appId, "acme");
  const appOctokit = new Octokit({
    baseUrl: forge.apiUrl,
    auth: appJwt(app.appId, app.privateKeyPem),
    log: quiet,
  });
  const { data } = await appOctokit.rest.apps.createInstallationAccessToken({ installation_id: inst.id });
  const tmp = mkdtempSync(join(tmpdir(), "forge-test-"));
  return {
    forge,
    appId: app.appId,
    privateKeyPem: app.privateKeyPem,
    installationId: inst.id,
    token: data.token,
    octokit: client(forge, data.token),
    appOctokit,
    tmp,
    cleanup: async () => {
      await forge.stop();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** Runs git (no prompts, a fixed identity); rejects with stderr. */
export function git(cwd: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      [
        "-c",
        "user.name=Test User",
        "-c",
        "user.email=test@example.com",
        "-c",
        "init.defaultBranch=main",
        ...args,
      ],
      { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1" } },
      (err, stdout, stderr) =>
        err ? reject(new Error(`git ${args.join(" ")}: ${stderr}`)) : resolve(stdout.trim()),
    );
  });
}

/** A clone of a forge repository for committing and pushing in tests. */
export class Workdir {
  private constructor(readonly dir: string) {}

  static async clone(w: World, fullName: string, name = fullName.replace("/", "-")): Promise<Workdir> {
    const dir = join(w.tmp, name);
    await git(w.tmp, "clone", "-q", w.forge.cloneUrl(fullName, w.token), dir);
    return new Workdir(dir);
  }

  /** Commits `files` on `branch` (started from `from`, default origin/main) and pushes; returns the sha. */
  async commit(
    branch: string,
    files: Record<string, string>,
    opts: { from?: string; message?: string } = {},
  ): Promise<string> {
    const { writeFileSync, mkdirSync } = await import("node:fs");
    const { dirname } = await import("node:path");
    await git(this.dir, "fetch", "-q", "origin");
    const exists = await git(this.dir, "rev-parse", "--verify", "-q", `origin/${branch}`).catch(() => "");
    await git(
      this.dir,
      "checkout",
      "-q",
      "-B",
      branch,
      opts.from ?? (exists ? `origin/${branch}` : "origin/main"),
    );
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(this.dir, path)), { recursive: true });
      writeFileSync(join(this.dir, path), content);
    }
    await git(this.dir, "add", "-A");
    await git(this.dir, "commit", "-q", "-m", opts.message ?? `change ${Object.keys(files).join(", ")}`);
    await git(this.dir, "push", "-q", "origin", `HEAD:refs/heads/${branch}`);
    return git(this.dir, "rev-parse", "HEAD");
  }
}
