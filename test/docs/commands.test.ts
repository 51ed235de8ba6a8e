import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { captureIO } from "../action/helpers.js";
import { type RpkgWorld, rpkgWorld } from "../cli/rpkg/world.js";
import { docBlock, PROJECT, shellSteps } from "../util/doc-blocks.js";
import { GIT_IDENTITY } from "../util/git-identity.js";
import { KPT_MISSING } from "../util/kpt.js";

const squash = (s: string) => s.trim().split(/\s+/).join(" ");

/** A transcript block (`$ command` then what it prints) as command/output pairs. */
function transcript(text: string): { command: string; output: string[] }[] {
  const out: { command: string; output: string[] }[] = [];
  for (const line of text.trimEnd().split("\n")) {
    if (line.startsWith("$ ")) out.push({ command: line.slice(2), output: [] });
    else out.at(-1)?.output.push(line);
  }
  return out;
}

/** Whether `printed` holds `want`, where `…` in `want` stands for text left out. */
const shows = (printed: string, want: string) => {
  const parts = want.split("…").map(squash).filter(Boolean);
  let at = 0;
  const text = squash(printed);
  for (const part of parts) {
    const found = text.indexOf(part, at);
    if (found < 0) return false;
    at = found + part.length;
  }
  return true;
};

/**
 * The command transcripts of docs/catalog.md and docs/rpkg.md, typed as written against the forge
 * (a catalog branch holding docs/catalog.md's example catalog), printing what the pages show.
 */
describe("docs/catalog.md and docs/rpkg.md, typed against the forge", () => {
  let w: RpkgWorld;
  const dir = mkdtempSync(join(tmpdir(), "porchlight-docs-catalog-"));
  const example = () =>
    docBlock("docs/catalog.md", "schema: porchlight.catalog/v1").text.replace(
      /\b([0-9a-f]{4})…/g,
      (_, head: string) => head + "0".repeat(36),
    );

  beforeAll(async () => {
    w = await rpkgWorld();
    const gh = w.octokit(w.alice);
    const main = (await gh.rest.git.getRef({ owner: "acme", repo: "blueprints", ref: "heads/main" })).data
      .object.sha;
    await gh.rest.git.createRef({
      owner: "acme",
      repo: "blueprints",
      ref: "refs/heads/porchlight/catalog",
      sha: main,
    });
    await gh.rest.repos.createOrUpdateFileContents({
      owner: "acme",
      repo: "blueprints",
      branch: "porchlight/catalog",
      path: "catalog.yaml",
      message: "the catalog of docs/catalog.md",
      content: Buffer.from(example()).toString("base64"),
    });
    writeFileSync(join(dir, "catalog.yaml"), example());
    // A revision for rpkg.md's setup to list: docs/rpkg.md's PackageRevision, blueprints.basens.first.
    expect(
      (await w.rpkg(w.alice, ["init", "basens", "--workspace=first", "--repository=acme/blueprints"])).code,
    ).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await w?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("catalog skip and remove on the repository print what the page shows (stdout, or stderr with exit 1)", async () => {
    const steps = transcript(
      docBlock("docs/catalog.md", "$ porchlight catalog skip basens v2 --repository acme/blueprints").text,
    );
    expect(steps).toHaveLength(3);
    for (const step of steps) {
      const [bin, ...args] = step.command.split(/\s+/);
      expect(bin).toBe("porchlight");
      const r = await w.cli(w.alice, args);
      const printed = r.code === 0 ? r.stdout : r.stderr;
      if (step.output.some((want) => !shows(printed, want))) console.log(step.command, r);
      for (const want of step.output)
        expect({ command: step.command, want, printed, shown: shows(printed, want) }).toMatchObject({
          shown: true,
        });
    }
  });

  it("catalog path reads ./catalog.yaml and prints the upgrade path shown", async () => {
    const [step] = transcript(
      docBlock("docs/catalog.md", "$ porchlight catalog path basens v1 --channel beta").text,
    );
    const io = captureIO({ cwd: dir });
    expect(await main(step?.command.split(/\s+/).slice(1) ?? [], io)).toBe(0);
    expect(io.out().trimEnd().split("\n")).toEqual(step?.output);
  });

  it("the catalog's usage is what `porchlight catalog --help` says", async () => {
    const usage = docBlock(
      "docs/catalog.md",
      "porchlight catalog [list | revisions PKG | channels PKG | path PKG FROM [--channel C]]",
    );
    const io = captureIO();
    expect(await main(["catalog", "--help"], io)).toBe(0);
    const help = squash(io.out());
    for (const line of usage.text.trimEnd().split("\n")) expect(help).toContain(squash(line));
  });

  it("rpkg.md's setup: with the token in GH_TOKEN, rpkg get lists the repository's revisions", async () => {
    const steps = shellSteps(
      docBlock(
        "docs/rpkg.md",
        "export GH_TOKEN=ghp_…                  # or GITHUB_TOKEN; needs contents, pull requests, issues: write",
      ),
    );
    expect(steps.map((s) => s.line)).toEqual([
      "export GH_TOKEN=ghp_…",
      "porchlight rpkg get --repository acme/blueprints",
    ]);
    // The token in GH_TOKEN is alice's here; world.cli passes it so.
    const r = await w.cli(w.alice, steps[1]?.line.split(/\s+/).slice(1) ?? []);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toMatch(
      /^blueprints\.basens\.first\s+basens\s+first\s+0\s+false\s+Draft\s+blueprints$/m,
    );
    expect(r.stdout.split("\n")[0]).toMatch(
      /^NAME\s+PACKAGE\s+WORKSPACENAME\s+REVISION\s+LATEST\s+LIFECYCLE\s+REPOSITORY/,
    );
  });
});

/** docs/kpt-compat.md's differential runs, on a package of this project (kpt needed: CI has it). */
describe.skipIf(KPT_MISSING !== undefined)("docs/kpt-compat.md's differential commands", () => {
  const dir = mkdtempSync(join(tmpdir(), "porchlight-docs-differential-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const npmRun = (args: string[]) =>
    execFileSync("npm", ["run", "--silent", ...args], {
      cwd: PROJECT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });

  it("`differential -- files` compares porchlight's render with kpt's, file by file", () => {
    const [build, files] = shellSteps(docBlock("docs/kpt-compat.md", "npm run build")).map((s) => s.line);
    expect(build).toBe("npm run build");
    expect(JSON.parse(readFileSync(join(PROJECT, "package.json"), "utf8")).scripts.build).toBeTruthy();
    const args = (files ?? "")
      .replace(/ \[.*$/, "")
      .split(/\s+/)
      .slice(2);
    const out = npmRun([
      ...args.map((a) => (a === "DIR_OR_GIT_URL" ? "examples/hello-world" : a)),
      "--mode",
      "none",
    ]);
    expect(out).toMatch(/mode none: 3 files\n\s+identical: 3/);
  });

  it("`differential -- get` fetches a repository's packages with both, and `update` says what it takes", () => {
    const [get, update] = shellSteps(
      docBlock(
        "docs/kpt-compat.md",
        "npm run differential -- get GIT_DIR_OR_URL [--ref REF] [--limit N] [--list] [--keep]",
      ),
    ).map((s) => s.line);
    const repo = join(dir, "repo");
    cpSync(join(PROJECT, "examples/hello-world"), join(repo, "hello-world"), { recursive: true });
    const env = { ...process.env, ...GIT_IDENTITY };
    execFileSync("git", ["init", "-q", "-b", "main"], { cwd: repo });
    execFileSync("git", ["add", "-A"], { cwd: repo });
    execFileSync("git", ["commit", "-qm", "x"], { cwd: repo, env });
    const args = (get ?? "")
      .replace(/ \[.*$/, "")
      .split(/\s+/)
      .slice(2);
    const out = npmRun(args.map((a) => (a === "GIT_DIR_OR_URL" ? repo : a)));
    // Every package of the repository (its root and hello-world) comes out of both the same.
    const counted = /: (\d+) packages\n\s+identical: (\d+)\n*$/.exec(out);
    expect(counted?.[1]).toBeDefined();
    expect(counted?.[2]).toBe(counted?.[1]);
    const usage = (() => {
      try {
        return npmRun(["differential", "--", "update"]);
      } catch (e) {
        return (
          String((e as { stderr?: string; stdout?: string }).stderr ?? "") +
          String((e as { stdout?: string }).stdout ?? "")
        );
      }
    })();
    expect(usage).toContain(`usage: ${update}`);
  });
});
