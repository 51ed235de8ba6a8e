import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { RECONCILE_EVENTS } from "../../src/action/events.js";
import { ACTION_EVENTS, EVENTS } from "../../src/app/events.js";
import { main } from "../../src/cli/main.js";
import { captureIO } from "../action/helpers.js";
import { type DocBlock, docBlock, PROJECT, shellSteps } from "../util/doc-blocks.js";
import { GIT_IDENTITY } from "../util/git-identity.js";

/**
 * docs/actions.md's snippets are the workflow templates' own lines (workflows/*.yml), and its render
 * check is the one that runs: typed as written in a repository, it fails an unrendered package and
 * passes once the package is rendered. `porchlight action` and `action reconcile` run as written in
 * test/action/e2e.test.ts.
 */
const WORKFLOWS = ["porchlight.yml", "porchlight-reconcile.yml", "porchlight-render-check.yml"];
const workflow = (file: string) => readFileSync(join(PROJECT, "workflows", file), "utf8");
const lines = (text: string) =>
  text
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => l !== "" && l !== "..." && !l.startsWith("#"));

/** Whether `block`'s lines (comments and `...` aside) are lines of `file`, in that order. */
function inOrder(block: DocBlock, file: string): boolean {
  const have = lines(workflow(file));
  let at = 0;
  for (const line of lines(block.text)) {
    const found = have.indexOf(line, at);
    if (found < 0) return false;
    at = found + 1;
  }
  return true;
}

describe("docs/actions.md's workflow snippets", () => {
  it("the install step is every template's", () => {
    const block = docBlock("docs/actions.md", "env:");
    for (const file of WORKFLOWS) expect(inOrder(block, file), file).toBe(true);
  });

  it("the permissions and the concurrency group are porchlight.yml's", () => {
    const file = parse(workflow("porchlight.yml")) as Record<string, unknown>;
    expect(parse(docBlock("docs/actions.md", "permissions:").text)).toEqual({
      permissions: file.permissions,
    });
    expect(parse(docBlock("docs/actions.md", "concurrency:").text)).toEqual({
      concurrency: file.concurrency,
    });
  });

  it("allowing exec and container functions is porchlight.yml's step with its two lines uncommented", () => {
    const block = docBlock("docs/actions.md", "- name: Run porchlight");
    const uncommented = workflow("porchlight.yml").replace(/# (PORCHLIGHT_ALLOW_\w+: "1")/g, "$1");
    const [step] = parse(block.text) as { run: string; env: Record<string, string> }[];
    const steps = (
      parse(uncommented) as {
        jobs: { porchlight: { steps: { name?: string; run?: string; env?: unknown }[] } };
      }
    ).jobs.porchlight.steps;
    expect(steps.find((s) => s.name === "Run porchlight")).toEqual({ name: "Run porchlight", ...step });
  });

  it("running porchlight from a checkout calls the entry point a checkout has, with a real verb", async () => {
    const block = docBlock("docs/actions.md", "- uses: actions/checkout@v4");
    const steps = parse(block.text) as { run?: string }[];
    const entry = steps.map((s) => /^node \.porchlight\/(\S+) (.*)$/.exec(s.run ?? "")).find(Boolean);
    expect(entry).toBeTruthy();
    expect(existsSync(join(PROJECT, entry?.[1] ?? ""))).toBe(true);
    const io = captureIO();
    expect(await main([...(entry?.[2] ?? "").split(" "), "--help"], io)).toBe(0);
    expect(steps.some((s) => s.run?.startsWith("npm ci --prefix .porchlight"))).toBe(true);
  });
});

describe("the events of the table (src/app/events.ts) in the docs", () => {
  it("docs/actions.md's table of what runs names the events the Action takes, and the reconcile's", () => {
    const page = readFileSync(join(PROJECT, "docs/actions.md"), "utf8");
    const table = page.slice(page.indexOf("| Event | What runs |"));
    const rows = table.slice(0, table.indexOf("\n\n")).split("\n").slice(2);
    const named = new Set(
      rows.flatMap((row) => [...(row.split("|")[1]?.matchAll(/`([a-z_]+)`/g) ?? [])].map((m) => m[1])),
    );
    expect([...named].sort()).toEqual([...ACTION_EVENTS, ...RECONCILE_EVENTS].sort());
  });

  it("app.yml subscribes the app to exactly the events it handles", () => {
    const manifest = parse(readFileSync(join(PROJECT, "app.yml"), "utf8")) as { default_events: string[] };
    expect(
      [...manifest.default_events].sort(),
      "app.yml's default_events are src/app/events.ts's events: add a handler to the table, or drop the subscription",
    ).toEqual(Object.keys(EVENTS).sort());
  });
});

describe("docs/actions.md's render check, typed as written", () => {
  const dir = mkdtempSync(join(tmpdir(), "porchlight-render-check-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = {
    PATH: `${join(dir, "bin")}:${process.env.PATH ?? ""}`,
    ...GIT_IDENTITY,
  };
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: join(dir, "repo"), env })
      .toString()
      .trim();

  it("fails a pull request whose package is not rendered, and passes it rendered", () => {
    // `porchlight` on the PATH, as the workflow's global install puts it there.
    cpSync(join(PROJECT, "examples/hello-world"), join(dir, "repo/hello-world"), { recursive: true });
    execFileSync("mkdir", ["-p", join(dir, "bin")]);
    writeFileSync(
      join(dir, "bin/porchlight"),
      `#!/bin/sh\nexec node ${join(PROJECT, "bin/porchlight.js")} "$@"\n`,
      {
        mode: 0o755,
      },
    );
    git("init", "-q", "-b", "main");
    writeFileSync(join(dir, "repo/README.md"), "x\n");
    git("add", "README.md");
    git("commit", "-qm", "base");
    const base = git("rev-parse", "HEAD");
    git("checkout", "-qb", "change");
    git("add", "-A");
    git("commit", "-qm", "add hello-world, not rendered");

    // The block's three lines, with the loop the workflow runs the second one in.
    const [packages, render, diff] = shellSteps(
      docBlock(
        "docs/actions.md",
        'porchlight action packages --base "$BASE_SHA"     # the packages the pull request changes',
      ),
    ).map((s) => s.line);
    const script = `set -e\nfor pkg in $(${packages}); do ${render}; done\n${diff}\n`;
    const check = () =>
      spawnSync("bash", ["-c", script], { cwd: join(dir, "repo"), env: { ...env, BASE_SHA: base } });
    const first = check();
    expect(first.status, first.stderr.toString()).toBe(1);
    expect(first.stdout.toString()).toContain("hello-world/");

    git("add", "-A");
    git("commit", "-qm", "rendered");
    const second = check();
    expect(second.status, second.stderr.toString()).toBe(0);
  });
});
