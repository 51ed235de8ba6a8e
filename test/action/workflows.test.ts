import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";
import { RECONCILE_EVENTS } from "../../src/action/events.js";
import { ACTION_EVENTS } from "../../src/app/events.js";
import { main } from "../../src/cli/main.js";
import { COMMANDS } from "../../src/commands/index.js";
import { captureIO } from "./helpers.js";

/** The fields of a GitHub Actions workflow these files use, as GitHub's workflow syntax defines them. */
const Scope = z.enum([
  "actions",
  "attestations",
  "checks",
  "contents",
  "deployments",
  "discussions",
  "id-token",
  "issues",
  "packages",
  "pages",
  "pull-requests",
  "repository-projects",
  "security-events",
  "statuses",
]);
const Permissions = z.partialRecord(Scope, z.enum(["read", "write", "none"]));
const Step = z
  .strictObject({
    name: z.string().optional(),
    if: z.string().optional(),
    uses: z
      .string()
      .regex(/^[\w.-]+\/[\w.-]+@v\d+$/, "a pinned major version of an action")
      .optional(),
    with: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
    run: z.string().optional(),
    env: z.record(z.string(), z.string()).optional(),
  })
  .refine(
    (s) => (s.uses === undefined) !== (s.run === undefined),
    "a step either uses an action or runs a script",
  );
const Workflow = z.strictObject({
  name: z.string(),
  on: z.record(z.string(), z.unknown()),
  permissions: Permissions,
  concurrency: z.strictObject({ group: z.string(), "cancel-in-progress": z.boolean() }).optional(),
  env: z.record(z.string(), z.string()).optional(),
  jobs: z.record(
    z.string(),
    z.strictObject({
      if: z.string().optional(),
      "runs-on": z.string(),
      "timeout-minutes": z.number().int().positive(),
      steps: z.array(Step).min(1),
    }),
  ),
});
type Workflow = z.infer<typeof Workflow>;

const DIR = join(import.meta.dirname, "../../workflows");
const FILES = ["porchlight.yml", "porchlight-reconcile.yml", "porchlight-render-check.yml"];
const VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")) as { version: string }
).version;
const text = (file: string) => readFileSync(join(DIR, file), "utf8");
const load = (file: string): Workflow => Workflow.parse(parse(text(file)));

/** `porchlight ...` command lines of the workflow's scripts, as argument lists ("$VAR" → a placeholder). */
function invocations(wf: Workflow): string[][] {
  const out: string[][] = [];
  for (const job of Object.values(wf.jobs))
    for (const step of job.steps)
      for (const line of (step.run ?? "").split("\n")) {
        const command = line.trim().split(/\s[<>]/)[0] ?? "";
        if (!command.startsWith("porchlight ")) continue;
        out.push(
          command
            .split(/\s+/)
            .slice(1)
            .map((a) => a.replace(/^"(.*)"$/, "$1").replace(/\$\{?\w+\}?/g, "x")),
        );
      }
  return out;
}

describe("the workflows users copy", () => {
  it.each(FILES)("%s is a valid workflow with a commented permissions block", (file) => {
    const wf = load(file);
    expect(Object.keys(wf.permissions).length).toBeGreaterThan(0);
    const block =
      text(file)
        .split("\npermissions:\n")[1]
        ?.split(/\n(?=\S)/)[0] ?? "";
    const lines = block.split("\n").filter((l) => l.trim() !== "");
    expect(lines).toHaveLength(Object.keys(wf.permissions).length);
    for (const line of lines) expect(line, `${file}: say why`).toMatch(/^\s+[\w-]+: \w+\s+# \S/);
  });

  it.each(FILES)("%s installs this version of porchlight", (file) => {
    const wf = load(file);
    expect(wf.env?.PORCHLIGHT_PACKAGE).toBe(`porchlight@${VERSION}`);
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
    expect(steps.some((s) => s.uses === "actions/setup-node@v5" && s.with?.["node-version"] === 24)).toBe(
      true,
    );
    expect(
      steps.some((s) => s.run?.includes('npm install --global --no-audit --no-fund "$PORCHLIGHT_PACKAGE"')),
    ).toBe(true);
  });

  it.each(FILES)("%s calls only real porchlight verbs and flags", async (file) => {
    const calls = invocations(load(file));
    expect(calls.length).toBeGreaterThan(0);
    for (const args of calls) {
      const io = captureIO();
      expect(await main([...args, "--help"], io), `porchlight ${args.join(" ")}: ${io.err()}`).toBe(0);
      const verb = args
        .filter((a) => !a.startsWith("-") && a !== "x")
        .slice(0, 2)
        .join(" ");
      const named = new RegExp(`porchlight ${verb.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\s|$)`, "m");
      expect(io.out(), `porchlight ${verb} is in its help`).toMatch(named);
    }
  });

  it("runs the app on the four events it handles, with the app's write permissions", () => {
    const wf = load("porchlight.yml");
    expect(Object.keys(wf.on).sort()).toEqual([...ACTION_EVENTS].sort());
    expect(wf.on.push).toEqual({ branches: ["drafts/**"] });
    expect(wf.permissions).toEqual({
      contents: "write",
      "pull-requests": "write",
      issues: "write",
      checks: "write",
    });
    expect(invocations(wf)).toEqual([["action"]]);
    const when = wf.jobs.porchlight?.if ?? "";
    expect(when).toContain("contains(github.event.comment.body, '/')");
    expect(when).toContain("github.event.pull_request.head.repo.full_name == github.repository");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template
    expect(wf.jobs.porchlight?.steps.at(-1)?.env?.GITHUB_TOKEN).toBe("${{ secrets.GITHUB_TOKEN }}");
  });

  it("runs on a plain issue's comment for the verbs that work there, and only those", () => {
    const when = load("porchlight.yml").jobs.porchlight?.if ?? "";
    const named = [...when.matchAll(/contains\(github\.event\.comment\.body, '\/([a-z-]+)'\)/g)].map(
      (m) => m[1],
    );
    const inIssues = COMMANDS.filter((c) => c.scope === "pull-request-or-issue").map((c) => c.verb);
    expect(named.sort()).toEqual(inIssues.sort());
  });

  it("reconciles on a schedule and on demand, serialized with the event runs", () => {
    const wf = load("porchlight-reconcile.yml");
    expect(Object.keys(wf.on).sort()).toEqual([...RECONCILE_EVENTS].sort());
    expect(wf.on.schedule).toEqual([{ cron: expect.stringMatching(/^(\S+ ){4}\S+$/) }]);
    expect(invocations(wf)).toEqual([["action", "reconcile"]]);
    expect(wf.concurrency).toEqual(load("porchlight.yml").concurrency);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template
    expect(wf.concurrency?.group).toBe("porchlight-${{ github.repository }}");
  });

  it("checks rendering with a read-only token and fails on any changed file", () => {
    const wf = load("porchlight-render-check.yml");
    expect(Object.keys(wf.on)).toEqual(["pull_request"]);
    expect(wf.permissions).toEqual({ contents: "read" });
    expect(invocations(wf)).toEqual([
      ["action", "packages", "--base", "x"],
      ["fn", "render", "x"],
    ]);
    const steps = wf.jobs["render-check"]?.steps ?? [];
    expect(steps[0]).toMatchObject({ uses: "actions/checkout@v4", with: { "fetch-depth": 0 } });
    expect(steps.at(-1)?.run).toContain("git diff --exit-code");
  });
});
