import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { serveCommand } from "../../src/cli/serve.js";
import { COMMANDS } from "../../src/commands/index.js";
import { captureIO } from "../action/helpers.js";
import { docBlock, PROJECT, shellSteps } from "../util/doc-blocks.js";

const run = promisify(execFile);

/** What a command prints, run in-process as `npx porchlight ARGS` runs it. */
async function porchlight(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIO({ cwd: PROJECT, env: { PATH: process.env.PATH ?? "" } });
  const code = await main(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe("README.md: the first two commands", () => {
  it("render the example package to stdout, and `npm test` is what CI runs", async () => {
    const [render, test] = shellSteps(
      docBlock(
        "README.md",
        "npm ci && npx porchlight fn render examples/hello-world --output stdout   # install, render the example package",
      ),
    );
    const args = /^npm ci && npx porchlight (.*)$/.exec(render?.line ?? "")?.[1]?.split(/\s+/) ?? [];
    const before = readFileSync(join(PROJECT, "examples/hello-world/deployment.yaml"), "utf8");
    const rendered = await porchlight(args);
    expect(rendered.code).toBe(0);
    // kpt's progress, on stderr as kpt writes it: every function passed.
    expect(rendered.err).toContain('[PASS] "gcr.io/kpt-fn/kubeconform:v0.1.1"');
    expect(rendered.err).not.toContain("[FAIL]");
    expect(rendered.out).toContain("kind: ResourceList");
    expect(rendered.out).toContain("kind: Deployment");
    // --output stdout leaves the package as it was.
    expect(readFileSync(join(PROJECT, "examples/hello-world/deployment.yaml"), "utf8")).toBe(before);
    expect(test?.line.trim()).toBe("npm test");
    expect(readFileSync(join(PROJECT, ".ci/run"), "utf8")).toMatch(/^npm test$/m);
  });
});

/**
 * The newcomer walk (issue 40): `npm start` as the README says, then the README's first story typed as
 * written — clone, draft, push, propose, approve — and what the README promises follows from the events
 * alone (the periodic sweep is off; the one sweep at start-up is `npm start`'s): the draft rendered,
 * `hello/v2` tagged, recorded in the catalog, and the downstream that follows the channel given its
 * update pull request.
 */
describe("README.md: five minutes on your laptop, typed as written", () => {
  const dir = mkdtempSync(join(tmpdir(), "porchlight-newcomer-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("npm start, then draft → propose → approve → catalog and fan-out, with no sweep", async () => {
    const start = shellSteps(docBlock("README.md", "npm ci && npm start"));
    expect(start.map((s) => s.line)).toEqual(["npm ci && npm start"]);
    // `npm start` is `node bin/porchlight.js serve`: the same command, in-process.
    expect(JSON.parse(readFileSync(join(PROJECT, "package.json"), "utf8")).scripts.start).toBe(
      "node bin/porchlight.js serve",
    );
    let printed = "";
    const serving = serveCommand([], {
      stdout: (t) => {
        printed += t;
      },
      stderr: () => {},
      readStdin: async () => "",
      cwd: PROJECT,
      env: { PORT: "0", LOG_LEVEL: "silent", PORCHLIGHT_RECONCILE_INTERVAL_MS: "0" },
      isTTY: false,
    });
    try {
      while (!printed.includes("Users (")) await new Promise((resolve) => setTimeout(resolve, 20));
      const forgeUrl = /forge: (\S+)/.exec(printed)?.[1] ?? "";
      const pat = (login: string) =>
        new RegExp(`^ {2}${login}\\t[\\w ]+\\t(\\S+)$`, "m").exec(printed)?.[1] ?? "";
      const port = new URL(forgeUrl).port;

      // The walk: the README's block, its placeholders filled as `npm start` printed them.
      const editor = join(dir, "editor");
      writeFileSync(editor, "#!/bin/sh\nsed -i 's/replicas: 1/replicas: 2/' \"$1\"\n");
      chmodSync(editor, 0o755);
      const walk = shellSteps(
        docBlock(
          "README.md",
          "git clone http://reviewer:<token>@127.0.0.1:<port>/acme/blueprints.git && cd blueprints",
        ),
      )
        .map((s) =>
          s.line
            .replaceAll("<maintainer token>", pat("maintainer"))
            .replaceAll("<token>", pat("reviewer"))
            .replaceAll("<port>", port)
            .replaceAll("<porchlight folder>", PROJECT),
        )
        .join("\n");
      expect(walk).not.toMatch(/<[a-z ]+>/);
      const env = {
        PATH: process.env.PATH ?? "",
        EDITOR: editor,
        GIT_AUTHOR_NAME: "Reviewer",
        GIT_AUTHOR_EMAIL: "reviewer@example.com",
        GIT_COMMITTER_NAME: "Reviewer",
        GIT_COMMITTER_EMAIL: "reviewer@example.com",
        npm_config_update_notifier: "false",
      };
      const done = await run("bash", ["-euo", "pipefail", "-c", walk], { cwd: dir, env }).catch(
        (e: { stdout?: string; stderr?: string; message: string }) => {
          throw new Error(`the README's walk failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
        },
      );
      expect(done.stdout).toContain("blueprints.hello.my-change approved");

      // What the README says follows, from the events: wait for it (bounded), never for a sweep.
      const api = async (path: string) => {
        const res = await fetch(`${forgeUrl}/api/v3${path}`, {
          headers: { authorization: `token ${pat("maintainer")}` },
        });
        return res.ok ? ((await res.json()) as unknown) : undefined;
      };
      const state = async () => {
        const tag = await api("/repos/acme/blueprints/git/ref/tags/hello/v2");
        const catalog = (await api("/repos/acme/blueprints/contents/catalog.yaml?ref=porchlight/catalog")) as
          | { content: string }
          | undefined;
        const pulls = ((await api("/repos/acme/deploy-dev/pulls?state=open")) ?? []) as { title: string }[];
        const deployment = (await api(
          "/repos/acme/blueprints/contents/hello/deployment.yaml?ref=hello/v2",
        )) as { content: string } | undefined;
        return {
          tagged: tag !== undefined,
          cataloged: Buffer.from(catalog?.content ?? "", "base64")
            .toString()
            .includes("revision: v2"),
          fannedOut: pulls.some((p) => /\bv2\b/.test(p.title)),
          edited: Buffer.from(deployment?.content ?? "", "base64")
            .toString()
            .includes("replicas: 2"),
        };
      };
      const want = { tagged: true, cataloged: true, fannedOut: true, edited: true };
      let last = await state();
      for (let i = 0; i < 600 && JSON.stringify(last) !== JSON.stringify(want); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        last = await state();
      }
      expect(last).toEqual(want);
    } finally {
      process.emit("SIGTERM");
      expect(await serving).toBe(0);
    }
  }, 180_000);
});

describe("README.md: the slash-commands", () => {
  it("names every verb of the table (src/commands/registry.ts)", () => {
    const readme = readFileSync(join(PROJECT, "README.md"), "utf8");
    const named = new Set([...readme.matchAll(/`\/([a-z-]+)[ `]/g)].map((m) => m[1]));
    expect(COMMANDS.map((c) => c.verb).filter((verb) => !named.has(verb))).toEqual([]);
  });
});

describe("README.md: the command table", () => {
  /** Each row's `porchlight COMMAND [SUB|SUB…]`: the command and the subcommands the row names. */
  const rows = () =>
    readFileSync(join(PROJECT, "README.md"), "utf8")
      .split("\n")
      .flatMap((line) => {
        const cell = /^\| `porchlight ([^`]*)`/.exec(line)?.[1];
        if (cell === undefined) return [];
        const [command = "", next = ""] = cell.replace(/\\\|/g, "|").split(/\s+/);
        const subs = next.replace(/^\[|\]$/g, "").split("|");
        return [{ command, subs: subs.every((s) => /^[a-z][a-z-]*$/.test(s)) ? subs : [] }];
      });

  it("names commands and subcommands that `porchlight --help` and each command's --help list", async () => {
    const table = rows();
    expect(table.length).toBeGreaterThan(10);
    const top = await porchlight(["--help"]);
    const missing: string[] = [];
    for (const { command, subs } of table) {
      if (!new RegExp(`^ {2}${command} `, "m").test(top.out)) missing.push(command);
      const help = await porchlight([command, "--help"]);
      expect(help.code, command).toBe(0);
      const text = help.out + help.err;
      for (const sub of subs)
        if (!new RegExp(`(^ {2}|porchlight ${command} )${sub}\\b`, "m").test(text))
          missing.push(`${command} ${sub}`);
    }
    expect(missing).toEqual([]);
  });
});

describe("README.md: a front door", () => {
  const readme = () => readFileSync(join(PROJECT, "README.md"), "utf8");

  it("stays under 300 lines: the benchmarks' record lives in docs/benchmarks.md", () => {
    expect(readme().split("\n").length).toBeLessThan(300);
    expect(readme()).toContain("](docs/benchmarks.md)");
    expect(readFileSync(join(PROJECT, "docs/benchmarks.md"), "utf8")).toMatch(/^## Current figures$/m);
  });

  it("runs only npm scripts package.json has", () => {
    const scripts = Object.keys(
      (JSON.parse(readFileSync(join(PROJECT, "package.json"), "utf8")) as { scripts: object }).scripts,
    );
    for (const page of ["README.md", "docs/development.md", "docs/benchmarks.md"]) {
      const text = readFileSync(join(PROJECT, page), "utf8");
      const named = [...text.matchAll(/`npm (?:run )?([\w:-]+)/g)]
        .map((m) => m[1] as string)
        .filter((s) => !["ci", "link", "run"].includes(s));
      expect(named.length, page).toBeGreaterThan(0);
      expect(
        named.filter((s) => !scripts.includes(s)),
        page,
      ).toEqual([]);
    }
  });
});
