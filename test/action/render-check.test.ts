import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { main } from "../../src/cli/main.js";
import { GIT_IDENTITY } from "../util/git-identity.js";
import { nginxDeployment, nginxKptfile } from "../util/krm.js";
import { captureIO } from "./helpers.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../..");

const KPTFILE = nginxKptfile();
const deployment = (tag: string) => nginxDeployment(tag);

interface Step {
  name?: string;
  run?: string;
}

/**
 * The render check's own scripts, taken from workflows/porchlight-render-check.yml and run by bash
 * as a runner runs them (`bash -eo pipefail`), with `porchlight` on PATH running this checkout's
 * CLI, in a clone holding a pull request's change.
 */
describe("the render check workflow's scripts", () => {
  const temp = mkdtempSync(join(tmpdir(), "porchlight-render-check-"));
  // The steps after setup-node and the install (porchlight comes from this checkout here).
  const workflow = parse(readFileSync(join(ROOT, "workflows/porchlight-render-check.yml"), "utf8")) as {
    jobs: Record<string, { steps: Step[] }>;
  };
  const SCRIPTS = ["Render the changed packages", "Fail if rendering changed files"];
  const steps = (workflow.jobs["render-check"]?.steps ?? []).filter((s) => SCRIPTS.includes(s.name ?? ""));
  const bin = join(temp, "bin");
  let repos = 0;

  beforeAll(() => {
    mkdirSync(bin);
    const shim = join(temp, "porchlight-cli.ts");
    writeFileSync(
      shim,
      `import { main } from ${JSON.stringify(pathToFileURL(join(ROOT, "src/cli/main.ts")).href)};\n` +
        "main(process.argv.slice(2)).then((code) => { process.exitCode = code; });\n",
    );
    // tsx by absolute URL: the scripts run in the clone, where no node_modules resolves it.
    const tsx = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
    writeFileSync(
      join(bin, "porchlight"),
      `#!/bin/sh\nexec node --import ${tsx} ${JSON.stringify(shim)} "$@"\n`,
    );
    chmodSync(join(bin, "porchlight"), 0o755);
  });
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  /** A clone where `main` holds a rendered package and the checked-out branch changes it. */
  async function pullRequest(change: Record<string, string>, renderFirst: boolean) {
    const dir = join(temp, `repo-${++repos}`);
    mkdirSync(dir);
    const env = { ...process.env, ...GIT_IDENTITY };
    const git = async (...args: string[]) => (await run("git", args, { cwd: dir, env })).stdout.trim();
    const write = (files: Record<string, string>) => {
      for (const [p, t] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, p)), { recursive: true });
        writeFileSync(join(dir, p), t);
      }
    };
    const render = async () =>
      expect(await main(["fn", "render", join(dir, "apps/web")], captureIO({ cwd: dir }))).toBe(0);
    await git("init", "-q", "-b", "main");
    write({
      "README.md": "# x\n",
      "apps/web/Kptfile": KPTFILE,
      "apps/web/deployment.yaml": deployment("1.27"),
    });
    await render();
    await git("add", "-A");
    await git("commit", "-qm", "rendered package");
    const base = await git("rev-parse", "HEAD");
    await git("checkout", "-qb", "change");
    write(change);
    if (renderFirst) await render();
    await git("add", "-A");
    await git("commit", "-qm", "the pull request");
    return { dir, base };
  }

  /** Runs the workflow's steps in order, as GitHub's default bash shell does; stops at the first failure. */
  async function runSteps(dir: string, base: string) {
    let out = "";
    for (const step of steps) {
      try {
        const r = await run("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", step.run ?? ""], {
          cwd: dir,
          env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, BASE_SHA: base, RUNNER_TEMP: temp },
        });
        out += r.stdout;
      } catch (e) {
        const err = e as { code: number; stdout: string; stderr: string };
        return { code: err.code, step: step.name, out: out + err.stdout, err: err.stderr };
      }
    }
    return { code: 0, step: undefined, out, err: "" };
  }

  it("runs both scripts of the workflow", () => {
    expect(steps.map((s) => s.name)).toEqual(SCRIPTS);
  });

  it("fails on a package committed without rendering, showing the difference", async () => {
    const { dir, base } = await pullRequest({ "apps/web/deployment.yaml": deployment("1.25") }, false);
    const r = await runSteps(dir, base);
    expect(r.step).toBe("Fail if rendering changed files");
    expect(r.code).toBe(1);
    expect(r.out).toContain("::group::porchlight fn render apps/web");
    expect(r.out).toContain("::error title=porchlight render check::These packages are not rendered");
    expect(r.out).toMatch(/^-\s+image: nginx:1\.25$/m);
    expect(r.out).toMatch(/^\+\s+image: nginx:1\.27$/m);
  }, 60_000);

  it("passes on a pull request whose packages are rendered", async () => {
    const { dir, base } = await pullRequest(
      { "apps/web/extra.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n" },
      true,
    );
    const r = await runSteps(dir, base);
    expect(r, r.err).toMatchObject({ code: 0, step: undefined });
    expect(r.out).toContain("::group::porchlight fn render apps/web");
  }, 60_000);
});
