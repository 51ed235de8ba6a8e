import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpBackendPath } from "../src/githttp.js";
import { git, type World, world } from "./helpers.js";

/**
 * A git whose exec-path is not Debian's (as on macOS with Homebrew): a `git` on PATH that answers
 * `--exec-path` with a folder of its own, holding a `git-http-backend` that notes each call and runs
 * the real one. The forge must serve git through that backend.
 */
describe("the forge's git over HTTP", () => {
  const realGit = execFileSync("sh", ["-c", "command -v git"]).toString().trim();
  const realExecPath = execFileSync("git", ["--exec-path"]).toString().trim();
  const tmp = mkdtempSync(join(tmpdir(), "githttp-"));
  const bin = join(tmp, "bin");
  const core = join(tmp, "libexec", "git-core");
  const calls = join(tmp, "backend-calls");
  let w: World;
  let savedPath: string | undefined;

  beforeAll(async () => {
    mkdirSync(bin, { recursive: true });
    mkdirSync(core, { recursive: true });
    writeFileSync(
      join(bin, "git"),
      `#!/bin/sh\nif [ "$1" = "--exec-path" ]; then echo "${core}"; exit 0; fi\nexec "${realGit}" "$@"\n`,
    );
    writeFileSync(
      join(core, "git-http-backend"),
      `#!/bin/sh\necho "$PATH_INFO" >> "${calls}"\nexec "${join(realExecPath, "git-http-backend")}" "$@"\n`,
    );
    chmodSync(join(bin, "git"), 0o755);
    chmodSync(join(core, "git-http-backend"), 0o755);
    savedPath = process.env.PATH;
    process.env.PATH = `${bin}:${savedPath}`;
    w = await world();
  });

  afterAll(async () => {
    process.env.PATH = savedPath;
    await w?.cleanup();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("finds git-http-backend where `git --exec-path` says, not at a distribution's path", async () => {
    expect(await httpBackendPath()).toBe(join(core, "git-http-backend"));
    const dir = join(w.tmp, "clone");
    await git(w.tmp, "clone", "-q", w.forge.cloneUrl("acme/blueprints", w.token), dir);
    expect(existsSync(join(dir, ".git"))).toBe(true);
    expect(readFileSync(calls, "utf8")).toContain("/acme/blueprints.git/");
  });

  it("fails a git request with git's own words when git cannot name its exec-path", async () => {
    await expect(httpBackendPath(join(tmp, "nowhere"))).rejects.toThrow(/git --exec-path failed/);
  });
});
