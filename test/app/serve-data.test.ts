import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { afterAll, describe, expect, it } from "vitest";
import { serveCommand } from "../../src/cli/serve.js";

/** Runs `porchlight serve args` in-process until its next steps are printed; `stop()` sends SIGTERM. */
async function serve(args: string[], env: NodeJS.ProcessEnv = {}) {
  let out = "";
  const running = serveCommand(args, {
    stdout: (t) => {
      out += t;
    },
    stderr: () => {},
    readStdin: async () => "",
    cwd: process.cwd(),
    env: { PORT: "0", LOG_LEVEL: "silent", ...env },
    isTTY: false,
  });
  while (!out.includes("Try it:")) await new Promise((resolve) => setImmediate(resolve));
  const forgeUrl = /forge: (\S+)/.exec(out)?.[1] as string;
  const [, login, pat] = /\n {2}(reviewer)\twrite\t(\S+)/.exec(out) ?? [];
  return {
    out,
    forgeUrl,
    rest: new Octokit({ baseUrl: `${forgeUrl}/api/v3`, auth: pat }),
    login,
    pat,
    stop: async () => {
      process.emit("SIGTERM");
      expect(await running).toBe(0);
    },
  };
}

describe("npm start with a data folder", () => {
  const data = mkdtempSync(join(tmpdir(), "porchlight-serve-data-"));
  afterAll(() => rmSync(data, { recursive: true, force: true }));

  it("stops and starts again where it was: same forge address, users, tokens, repositories and pull requests", async () => {
    const first = await serve(["--data", data]);
    expect(first.out).toContain(`data:  ${data} (kept`);
    const owner = "acme";
    const repo = "blueprints";
    const main = (await first.rest.git.getRef({ owner, repo, ref: "heads/main" })).data.object.sha;
    await first.rest.git.createRef({ owner, repo, ref: "refs/heads/drafts/hello/kept", sha: main });
    await first.rest.repos.createOrUpdateFileContents({
      owner,
      repo,
      path: "hello/notes.txt",
      message: "notes",
      content: Buffer.from("kept\n").toString("base64"),
      branch: "drafts/hello/kept",
    });
    const { data: pr } = await first.rest.pulls.create({
      owner,
      repo,
      head: "drafts/hello/kept",
      base: "main",
      title: "kept across restarts",
    });
    await first.stop();

    // The environment variable works as the flag does.
    const second = await serve([], { PORCHLIGHT_DATA: data });
    try {
      expect(second.forgeUrl).toBe(first.forgeUrl);
      expect(second.pat).toBe(first.pat);
      const again = (await second.rest.pulls.get({ owner, repo, pull_number: pr.number })).data;
      expect(again).toMatchObject({ title: "kept across restarts", state: "open" });
      const file = await second.rest.repos.getContent({
        owner,
        repo,
        path: "hello/notes.txt",
        ref: again.head.sha,
      });
      expect(Buffer.from((file.data as { content: string }).content, "base64").toString()).toBe("kept\n");
      expect((await second.rest.pulls.list({ owner, repo, state: "all" })).data).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });
});
