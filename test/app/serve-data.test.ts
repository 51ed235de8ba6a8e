import { Octokit } from "@octokit/rest";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../util/temp-dirs.js";
import { startServe } from "./serving.js";

/** Runs `porchlight serve args` in-process until its next steps are printed; `stop()` sends SIGTERM. */
async function serve(args: string[], env: NodeJS.ProcessEnv = {}) {
  const { out, stop } = await startServe(args, env, "Try it:");
  const forgeUrl = /forge: (\S+)/.exec(out)?.[1] as string;
  const [, login, pat] = /\n {2}(reviewer)\twrite\t(\S+)/.exec(out) ?? [];
  return { out, forgeUrl, rest: new Octokit({ baseUrl: `${forgeUrl}/api/v3`, auth: pat }), login, pat, stop };
}

describe("npm start with a data folder", () => {
  const data = useTempDir("porchlight-serve-data-");

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
