import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RpkgWorld, rows, rpkgWorld } from "./world.js";

const R = "--repository=acme/blueprints";

/**
 * `rpkg get` and `repo get` with the command line's cache on disk (XDG_CACHE_HOME): a second listing
 * reads what it knows of commits from there and starts no git process, and still lists what changed
 * since — the cache is keyed by commit SHA, and GitHub's answers are served only after a 304. The git
 * processes are counted by a `git` first on PATH that logs each run made in a command's cache clone.
 */
describe("rpkg get with the cache on disk", () => {
  let w: RpkgWorld;
  let log: string;
  let cache: { XDG_CACHE_HOME: string };
  const path = process.env.PATH;

  /** The git runs the commands started since the last call, by their arguments. */
  const gitRuns = () => {
    const runs = readFileSync(log, "utf8").split("\n").filter(Boolean);
    writeFileSync(log, "");
    return runs;
  };
  const get = async (env?: Record<string, string>) => {
    const r = await w.rpkg(w.alice, ["get", R], env ? { env } : {});
    expect(r).toMatchObject({ code: 0, stderr: "" });
    return r.stdout;
  };

  beforeAll(async () => {
    w = await rpkgWorld();
    const bin = join(w.tmp, "bin");
    log = join(w.tmp, "git-runs");
    writeFileSync(log, "");
    mkdirSync(bin);
    const git = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    writeFileSync(
      join(bin, "git"),
      `#!/bin/sh\ncase "$PWD" in */porchlight-rpkg-*|*/porchlight-repo-*) echo "$*" >> '${log}';; esac\nexec '${git}' "$@"\n`,
    );
    chmodSync(join(bin, "git"), 0o755);
    process.env.PATH = `${bin}:${path}`;
    cache = { XDG_CACHE_HOME: join(w.tmp, "xdg") };
    for (const r of [
      await w.rpkg(w.alice, ["init", "app", "--workspace=one", R]),
      await w.publish("acme/blueprints", "blueprints.app.one"),
      await w.rpkg(w.alice, ["init", "net", "--workspace=draft", R]),
    ])
      expect(r).toMatchObject({ code: 0 });
    gitRuns();
  });
  afterAll(async () => {
    process.env.PATH = path;
    await w.stop();
  });

  it("lists from the cache the second time, starting no git process, as without it", async () => {
    const fresh = await get();
    expect(rows(fresh)).toEqual([
      "blueprints.app.main app main -1 false Published blueprints",
      "blueprints.app.one app one 1 true Published blueprints",
      "blueprints.net.draft net draft 0 false Draft blueprints",
    ]);
    gitRuns();
    expect(await get(cache)).toBe(fresh);
    expect(gitRuns().map((r) => r.split(" ").find((a) => !a.startsWith("-") && !a.includes("=")))).toEqual(
      expect.arrayContaining(["fetch", "ls-tree", "cat-file"]),
    );
    w.forge.requestLog.clear();
    expect(await get(cache)).toBe(fresh);
    expect(gitRuns()).toEqual([]);
    // GitHub's answers kept were asked again with their ETags: unchanged, 304 (not counted by GitHub)
    const notModified = w.forge.requestLog.filter({ method: "GET", status: 304 }).map((e) => e.route);
    expect(notModified).toEqual(
      expect.arrayContaining(["/repos/{owner}/{repo}", "/repos/{owner}/{repo}/pulls"]),
    );
  });

  it("lists what changed since: a new published revision, a new draft, a draft gone", async () => {
    await get(cache);
    for (const r of [
      await w.rpkg(w.alice, ["copy", "blueprints.app.one", "--workspace=two", R]),
      await w.publish("acme/blueprints", "blueprints.app.two"),
      await w.rpkg(w.alice, ["init", "db", "--workspace=new", R]),
      await w.rpkg(w.alice, ["del", "blueprints.net.draft", R]),
    ])
      expect(r).toMatchObject({ code: 0 });
    const fresh = await get();
    expect(rows(fresh)).toEqual([
      "blueprints.app.main app main -1 false Published blueprints",
      "blueprints.app.one app one 1 false Published blueprints",
      "blueprints.app.two app two 2 true Published blueprints",
      "blueprints.db.new db new 0 false Draft blueprints",
    ]);
    gitRuns();
    expect(await get(cache)).toBe(fresh);
    // the new base branch's commit and the new tag's were read from git, once
    expect(gitRuns().length).toBeGreaterThan(0);
    expect(await get(cache)).toBe(fresh);
    expect(gitRuns()).toEqual([]);
  });

  it("lists a namespace's registrations from the cache the second time, and a new one at once", async () => {
    await w.forge.createRepo("acme/.porchlight", { autoInit: true });
    w.forge.setPermission("acme/.porchlight", "alice", "write");
    const repo = async (args: string[], env?: Record<string, string>) => {
      const r = await w.cli(w.alice, ["repo", ...args, "--namespace=acme"], env ? { env } : {});
      expect(r).toMatchObject({ code: 0 });
      return r.stdout;
    };
    await repo(["register", "acme/blueprints"]);
    const fresh = await repo(["get"]);
    gitRuns();
    expect(await repo(["get"], cache)).toBe(fresh);
    expect(gitRuns().length).toBeGreaterThan(0);
    expect(await repo(["get"], cache)).toBe(fresh);
    expect(gitRuns()).toEqual([]);
    await repo(["register", "acme/deploy"]);
    const more = await repo(["get"]);
    expect(more).toContain("deploy");
    expect(await repo(["get"], cache)).toBe(more);
  });

  it("ignores a corrupt entry, and mends it", async () => {
    const fresh = await get();
    const root = join(cache.XDG_CACHE_HOME, "porchlight");
    for (const part of ["commits", "answers"])
      for (const name of readdirSync(join(root, part))) writeFileSync(join(root, part, name), "{corrupt");
    expect(await get(cache)).toBe(fresh);
    expect(gitRuns().length).toBeGreaterThan(0);
    expect(await get(cache)).toBe(fresh);
    expect(gitRuns()).toEqual([]);
    rmSync(root, { recursive: true });
    expect(await get(cache)).toBe(fresh);
  });
});
