import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { runAction } from "../../src/action/run.js";
import { main } from "../../src/cli/main.js";
import { captureIO } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "porchlight-run-"));
const env = (over: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  GITHUB_EVENT_NAME: "issue_comment",
  GITHUB_EVENT_PATH: join(dir, "event.json"),
  GITHUB_TOKEN: "ghs_token",
  GITHUB_API_URL: "http://127.0.0.1:9",
  GITHUB_REPOSITORY: "acme/blueprints",
  RUNNER_TEMP: dir,
  ...over,
});
/** A repository as an Actions payload names it: the fields the handlers read (no `installation` anywhere). */
const repository = {
  name: "blueprints",
  owner: { login: "acme" },
  clone_url: "https://github.com/acme/blueprints.git",
  default_branch: "main",
};
const run = async (e: NodeJS.ProcessEnv) => {
  const out: string[] = [];
  const code = await runAction({ env: e, stdout: (t) => out.push(t), log: pino({ level: "silent" }) });
  return { code, out: out.join("") };
};

describe("the Actions entry point refuses what it cannot run", () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("fails with one ::error:: line when GITHUB_EVENT_PATH is missing", async () => {
    const { code, out } = await run(env({ GITHUB_EVENT_PATH: undefined }));
    expect(code).toBe(1);
    expect(out).toMatch(
      /^::error title=porchlight::the GitHub Actions environment is incomplete:%0A {2}- GITHUB_EVENT_PATH is not set/,
    );
    expect(out.trim().split("\n")).toHaveLength(1);
  });

  it("fails, naming the file, when the payload file is not there", async () => {
    const { code, out } = await run(env({ GITHUB_EVENT_PATH: join(dir, "gone.json") }));
    expect(code).toBe(1);
    expect(out).toContain(
      `::error title=porchlight issue_comment::acme/blueprints: cannot read the event payload at GITHUB_EVENT_PATH=${join(dir, "gone.json")} (ENOENT)`,
    );
    expect(out).toContain("porchlight: issue_comment on acme/blueprints: 0 job(s) run, 0 failed\n");
  });

  it("fails with one ::error:: line naming a PORCHLIGHT_MAX_* setting that is not a number", async () => {
    const { code, out } = await run(env({ PORCHLIGHT_MAX_PACKAGE_RESOURCES: "many" }));
    expect(code).toBe(1);
    expect(out).toBe(
      "::error title=porchlight::PORCHLIGHT_MAX_PACKAGE_RESOURCES=many: must be a whole number of resources of at least 1; unset it for the default 10000\n",
    );
  });

  it("warns and passes on an event it does not handle", async () => {
    const { code, out } = await run(env({ GITHUB_EVENT_NAME: "release" }));
    expect(code).toBe(0);
    expect(out).toMatch(/^::warning title=porchlight::porchlight does nothing on "release" events/);
  });

  it("does nothing for a comment without slash-commands (no request made)", async () => {
    writeFileSync(
      join(dir, "event.json"),
      JSON.stringify({
        action: "created",
        issue: { number: 1 },
        comment: { id: 7, body: "looks good", user: { login: "alice", type: "User" } },
        repository,
      }),
    );
    const { code, out } = await run(env());
    expect(code).toBe(0);
    expect(out).toBe("porchlight: issue_comment on acme/blueprints: 0 job(s) run, 0 failed — ok\n");
  });

  it("fails, naming the file and the field, on a payload without a field the handlers read", async () => {
    const { clone_url: _, ...noCloneUrl } = repository;
    writeFileSync(
      join(dir, "event.json"),
      JSON.stringify({
        action: "created",
        issue: { number: 1 },
        comment: { id: 7, body: "/approve" },
        repository: noCloneUrl,
      }),
    );
    const { code, out } = await run(env());
    expect(code).toBe(1);
    expect(out).toContain(
      `::error title=porchlight issue_comment::acme/blueprints: the issue_comment event payload at ${join(dir, "event.json")} lacks what porchlight reads: repository.clone_url: Invalid input: expected string, received undefined`,
    );
  });

  it("runs from the CLI: `porchlight action` exits 1 on a missing payload path", async () => {
    const io = captureIO({ env: env({ GITHUB_EVENT_PATH: "" }) });
    expect(await main(["action"], io)).toBe(1);
    expect(io.out()).toMatch(/^::error title=porchlight::.*GITHUB_EVENT_PATH is not set/);
  });

  it("rejects unknown arguments as usage errors", async () => {
    const io = captureIO();
    expect(await main(["action", "deploy"], io)).toBe(2);
    expect(io.err()).toMatch(/unknown argument "deploy"/);
    expect(await main(["action", "--base", "x"], io)).toBe(2);
    const help = captureIO();
    expect(await main(["action", "--help"], help)).toBe(0);
    expect(help.out()).toMatch(/porchlight action reconcile/);
  });
});
