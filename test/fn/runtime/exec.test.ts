import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FunctionExitError } from "../../../src/fn/runtime/errors.js";
import { ExecRunner } from "../../../src/fn/runtime/exec.js";
import { scrubbedEnv } from "../../../src/fn/runtime/process.js";
import { DEFAULT_RUN_OPTIONS } from "../../../src/fn/runtime/types.js";
import { FunctionError, type ResourceList } from "../../../src/fn/types.js";
import { nameOf, parseResource } from "../../../src/kpt/resource.js";

describe("ExecRunner", () => {
  let dir: string;
  const script = (name: string, body: string): string => {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return path;
  };
  const input = (): ResourceList => ({
    items: [parseResource("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a # keep me\n")],
    functionConfig: parseResource("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  k: v\n"),
    results: [],
  });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "porchlight-exec-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("passes the ResourceList through a program on stdin and stdout", async () => {
    const out = await new ExecRunner(dir).run(
      { exec: script("cat.sh", "cat") },
      input(),
      DEFAULT_RUN_OPTIONS,
    );
    expect(out.items.map(nameOf)).toEqual(["a"]);
    expect(out.items[0]!.toString()).toContain("# keep me");
  });

  it("resolves a relative exec path against the package directory and passes arguments", async () => {
    script(
      "echo-args.sh",
      'cat >/dev/null; printf "apiVersion: config.kubernetes.io/v1\\nkind: ResourceList\\nitems:\\n- apiVersion: v1\\n  kind: ConfigMap\\n  metadata:\\n    name: %s\\n" "$1"',
    );
    const out = await new ExecRunner(dir).run(
      { exec: "./echo-args.sh from-arg" },
      input(),
      DEFAULT_RUN_OPTIONS,
    );
    expect(out.items.map(nameOf)).toEqual(["from-arg"]);
  });

  it("fails, naming the field, when a program that passed writes results kpt cannot read", async () => {
    const run = new ExecRunner(dir).run(
      { exec: script("bad-results.sh", 'cat; printf "results:\\n- message: [done]\\n"') },
      input(),
      DEFAULT_RUN_OPTIONS,
    );
    await expect(run).rejects.toBeInstanceOf(FunctionError);
    await expect(run).rejects.toThrow(
      /wrote an invalid ResourceList: output of .*bad-results\.sh:\d+:\d+ \(field results\[0\]\.message\): expected text, got a list/,
    );
  });

  it("fails with the exit code and stderr of a failing program", async () => {
    const run = new ExecRunner(dir).run(
      { exec: script("fail.sh", "echo oops >&2; exit 3") },
      input(),
      DEFAULT_RUN_OPTIONS,
    );
    await expect(run).rejects.toBeInstanceOf(FunctionExitError);
    await expect(run).rejects.toMatchObject({ exitCode: 3, stderr: "oops\n" });
  });

  it("stops a program that runs past the time limit", async () => {
    const run = new ExecRunner(dir).run({ exec: script("slow.sh", "sleep 30") }, input(), {
      ...DEFAULT_RUN_OPTIONS,
      timeoutMs: 200,
    });
    await expect(run).rejects.toThrow(/did not finish within 0.2s/);
  });

  it("stops a program that writes more than the output limit", async () => {
    const run = new ExecRunner(dir).run({ exec: script("chatty.sh", "cat >/dev/null; yes") }, input(), {
      ...DEFAULT_RUN_OPTIONS,
      maxOutputBytes: 10_000,
    });
    await expect(run).rejects.toThrow(/more than 10000 bytes/);
  });

  it("reports output that is not a ResourceList", async () => {
    const run = new ExecRunner(dir).run(
      { exec: script("junk.sh", "echo 'a: [b'") },
      input(),
      DEFAULT_RUN_OPTIONS,
    );
    await expect(run).rejects.toBeInstanceOf(FunctionError);
    await expect(run).rejects.toThrow(/invalid ResourceList/);
  });

  it("reports a missing program", async () => {
    await expect(
      new ExecRunner(dir).run({ exec: join(dir, "nope") }, input(), DEFAULT_RUN_OPTIONS),
    ).rejects.toThrow(/unexpected function error: fork\/exec .*nope: no such file or directory/);
  });

  it("runs a program found on PATH with its quoted arguments, as kpt runs exec: \"sed -e 's/a/b/'\"", async () => {
    const out = await new ExecRunner(dir).run(
      { exec: "sed -e 's/name: a/name: from-sed/'" },
      input(),
      DEFAULT_RUN_OPTIONS,
    );
    expect(out.items.map(nameOf)).toEqual(["from-sed"]);
  });

  it("names a program that is not on PATH as kpt does", async () => {
    await expect(
      new ExecRunner(dir).run({ exec: "no-such-program-here -x" }, input(), DEFAULT_RUN_OPTIONS),
    ).rejects.toThrow(
      'unexpected function error: exec: "no-such-program-here": executable file not found in $PATH',
    );
  });

  it("refuses a command line with an unterminated quote, with kpt's text", async () => {
    await expect(
      new ExecRunner(dir).run({ exec: "sed -e 's/a/b/" }, input(), DEFAULT_RUN_OPTIONS),
    ).rejects.toThrow(`exec command "sed -e 's/a/b/" must be valid: EOF found when expecting closing quote`);
  });

  it("hands back what a passing program wrote to stderr", async () => {
    const out = await new ExecRunner(dir).run(
      { exec: script("warn.sh", "cat; echo careful >&2") },
      input(),
      DEFAULT_RUN_OPTIONS,
    );
    expect(out.stderr).toBe("careful\n");
  });

  it("gives the program no secrets from the environment", async () => {
    process.env.PORCHLIGHT_TEST_TOKEN = "s3cret";
    try {
      const run = new ExecRunner(dir).run(
        { exec: script("env.sh", "env >&2; exit 1") },
        input(),
        DEFAULT_RUN_OPTIONS,
      );
      const err = (await run.catch((e: unknown) => e)) as FunctionExitError;
      expect(err.stderr).not.toContain("s3cret");
      expect(err.stderr).toContain("PATH=");
    } finally {
      delete process.env.PORCHLIGHT_TEST_TOKEN;
    }
  });
});

describe("scrubbedEnv", () => {
  it("keeps PATH and LANG, sets HOME, drops everything else", () => {
    const env = scrubbedEnv("/tmp/h", {
      PATH: "/bin",
      LANG: "en_US.UTF-8",
      GITHUB_TOKEN: "t",
      PRIVATE_KEY: "k",
      WEBHOOK_SECRET: "w",
      HOME: "/root",
    });
    expect(env).toEqual({ PATH: "/bin", LANG: "en_US.UTF-8", HOME: "/tmp/h" });
  });
});
