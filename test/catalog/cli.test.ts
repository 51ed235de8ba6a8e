import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addRevision, parseCatalog, promote } from "../../src/catalog/index.js";
import { catalogCommand } from "../../src/cli/catalog.js";
import type { CliIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";

const SHA = "89abcdef0123456789abcdef0123456789abcdef";

function buildCatalog(): string {
  let text = "";
  for (const [revision, channels] of [
    ["v1", ["stable", "beta"]],
    ["v2", ["beta"]],
    ["v3", ["beta"]],
  ] as const) {
    text = addRevision(text, {
      package: "basens",
      revision,
      commit: SHA,
      time: `2024-05-0${revision.slice(1)}T00:00:00Z`,
      channels: [...channels],
    }).text;
  }
  return promote(text, "basens", "v3", "stable").text;
}

function run(args: string[], cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    readStdin: async () => "",
    cwd,
    env: {},
    isTTY: false,
  };
  return { io, out, err, code: catalogCommand(args, io) };
}

describe("porchlight catalog", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "porchlight-catalog-"));
    writeFileSync(join(dir, "catalog.yaml"), buildCatalog());
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("lists packages as a table", async () => {
    const r = run([], dir);
    expect(await r.code).toBe(0);
    expect(r.out.join("")).toBe(
      "PACKAGE  REVISIONS  LATEST  DEFAULT CHANNEL  CHANNELS\nbasens   3          v3      stable           stable,beta\n",
    );
  });

  it("shows channels with their heads, as yaml", async () => {
    const r = run(["channels", "basens", "-o", "yaml"], dir);
    expect(await r.code).toBe(0);
    expect(r.out.join("")).toContain("- name: stable\n  head: v3\n");
  });

  it("shows revisions as json", async () => {
    const r = run(["revisions", "basens", "--output", "json"], dir);
    expect(await r.code).toBe(0);
    expect(JSON.parse(r.out.join(""))[2]).toMatchObject({ revision: "v3", channels: ["stable", "beta"] });
  });

  it("prints an upgrade path, along the package's default channel when none is named", async () => {
    const ok = run(["path", "basens", "v1", "--channel", "beta"], dir);
    expect(await ok.code).toBe(0);
    expect(ok.out.join("")).toBe("v1 -> v2 -> v3\n");
    const byDefault = run(["path", "basens", "v1", "-o", "json"], dir);
    expect(await byDefault.code).toBe(0);
    expect(JSON.parse(byDefault.out.join(""))).toMatchObject({ channel: "stable", from: "v1", to: "v3" });
  });

  it("names an unknown package and what exists", async () => {
    const r = run(["revisions", "nope"], dir);
    expect(await r.code).toBe(1);
    expect(r.err.join("")).toMatch(/no package nope in catalog.yaml \(packages: basens\)/);
  });

  it("reads catalog.yaml from the porchlight/catalog branch of a local repository", async () => {
    const repo = join(dir, "repo");
    const git = (...a: string[]) => execFileSync("git", ["-C", repo, ...a], { stdio: "pipe" });
    execFileSync("git", ["init", "-q", repo]);
    git("checkout", "-q", "-b", "porchlight/catalog");
    writeFileSync(join(repo, "catalog.yaml"), buildCatalog());
    git("add", "catalog.yaml");
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "catalog");
    git("checkout", "-q", "-b", "main");
    const r = run(["path", "basens", "v1", "--channel", "stable", "--repo", "repo"], dir);
    expect(await r.code).toBe(0);
    expect(r.out.join("")).toBe("v1 -> v3\n");
  });

  it("says git is missing when it cannot run git, not that the folder is no repository", async () => {
    const saved = process.env.PATH;
    process.env.PATH = join(dir, "no-bin-here");
    try {
      const r = run(["list", "--repo", "repo"], dir);
      expect(await r.code).toBe(1);
      expect(r.err.join("")).toMatch(/cannot run git .*is git installed and on PATH\?/);
    } finally {
      process.env.PATH = saved;
    }
  });

  it("quotes git when the folder is not a git repository", async () => {
    const plain = mkdtempSync(join(tmpdir(), "porchlight-not-a-repo-"));
    try {
      const r = run(["list", "--repo", plain], dir);
      expect(await r.code).toBe(1);
      expect(r.err.join("")).toMatch(/not a git repository/);
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });

  it("says the catalog branch is absent when the repository has none", async () => {
    const empty = join(dir, "empty-repo");
    execFileSync("git", ["init", "-q", empty]);
    const r = run(["list", "--repo", "empty-repo"], dir);
    expect(await r.code).toBe(1);
    expect(r.err.join("")).toMatch(
      /has porchlight published there\? \(porchlight\/catalog: fatal: invalid object name/,
    );
  });

  it("is registered with the porchlight command line", async () => {
    const out: string[] = [];
    const io: CliIO = {
      stdout: (t) => out.push(t),
      stderr: () => {},
      readStdin: async () => "",
      cwd: dir,
      env: {},
      isTTY: false,
    };
    expect(await main(["catalog", "list", "-o", "json"], io)).toBe(0);
    expect(JSON.parse(out.join(""))[0].name).toBe("basens");
  });

  it("refuses unknown subcommands with the usage", async () => {
    await expect(run(["frobnicate"], dir).code).rejects.toThrow(/unknown subcommand "frobnicate"/);
  });
});

describe("porchlight catalog skip|deprecate|remove on a file", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "porchlight-catalog-edit-"));
    writeFileSync(join(dir, "catalog.yaml"), `# kept by hand too\n${buildCatalog()}`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const text = () => readFileSync(join(dir, "catalog.yaml"), "utf8");

  it("skips a revision in place, keeping comments, and says so when it is skipped already", async () => {
    const r = run(["skip", "basens", "v2"], dir);
    expect(await r.code).toBe(0);
    expect(r.out.join("")).toBe("basens v2: skipped in catalog.yaml\n");
    expect(text()).toMatch(/^# kept by hand too\n/);
    const before = text();
    const again = run(["skip", "basens", "v2"], dir);
    expect(await again.code).toBe(0);
    expect(again.out.join("")).toBe("basens v2: skipped already in catalog.yaml; nothing changed\n");
    expect(text()).toBe(before);
  });

  it("deprecates with a message, shown by 'revisions' and 'channels'", async () => {
    expect(await run(["deprecate", "basens", "v1", "-m", "leaks its token; use v3"], dir).code).toBe(0);
    expect(await run(["deprecate", "basens", "--channel", "beta", "--message", "use stable"], dir).code).toBe(
      0,
    );
    const revisions = run(["revisions", "basens"], dir);
    expect(await revisions.code).toBe(0);
    expect(revisions.out.join("").split("\n")[1]).toMatch(/^v1 .* leaks its token; use v3$/);
    const channels = run(["channels", "basens"], dir);
    expect(await channels.code).toBe(0);
    expect(channels.out.join("")).toMatch(/\nbeta +v3 +yes +/);
  });

  it("refuses to remove a channel head, naming the path, and leaves the file as it was", async () => {
    const before = text();
    const r = run(["remove", "basens", "v3"], dir);
    expect(await r.code).toBe(1);
    expect(r.err.join("")).toContain(
      "porchlight catalog remove: basens v3 is the head of channel stable: removing it would break the upgrade path v1 -> v3",
    );
    expect(text()).toBe(before);
    const ok = run(["remove", "basens", "v1"], dir);
    expect(await ok.code).toBe(0);
    expect(parseCatalog(text()).catalog.packages[0]?.removed).toEqual(["v1"]);
    // Its deprecation goes with it: a deprecation names something in the catalog.
    expect(text()).not.toContain("leaks its token");
  });

  it("refuses what it cannot do, saying what to write", async () => {
    await expect(run(["remove", "basens"], dir).code).rejects.toThrow(
      "name the revision: porchlight catalog remove basens v2",
    );
    await expect(run(["deprecate", "basens", "v2"], dir).code).rejects.toThrow(/--message is needed/);
    await expect(run(["deprecate", "basens", "v2", "--package", "-m", "x"], dir).code).rejects.toThrow(
      "deprecate one thing: a revision (v2), --channel NAME, or --package",
    );
    await expect(run(["skip", "basens", "v2", "--repo", "."], dir).code).rejects.toThrow(
      /--repo reads a local clone; to change the catalog, give --repository OWNER\/REPO/,
    );
    const missing = run(["skip", "basens", "v2", "--file", "nope.yaml"], dir);
    expect(await missing.code).toBe(1);
    expect(missing.err.join("")).toMatch(/cannot read .*nope\.yaml: ENOENT/);
  });
});
