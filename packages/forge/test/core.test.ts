import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appJwt, git, type World, world } from "./helpers.js";

describe("forge core: auth, repos, refs, contents, git", () => {
  let w: World;
  beforeEach(async () => {
    w = await world();
  });
  afterEach(async () => {
    await w.cleanup();
  });

  it("authenticates an app by JWT and lists its installations", async () => {
    const { data } = await w.appOctokit.rest.apps.listInstallations();
    expect(data.map((i) => i.id)).toEqual([w.installationId]);
    const { data: inst } = await w.appOctokit.rest.apps.getRepoInstallation({
      owner: "acme",
      repo: "blueprints",
    });
    expect(inst.account && "login" in inst.account && inst.account.login).toBe("acme");
  });

  it("rejects a JWT signed by another key and a bad token with 401 Bad credentials", async () => {
    const other = w.forge.createApp({ name: "other" });
    const forged = appJwt(w.appId, other.privateKeyPem);
    const res = await fetch(`${w.forge.url}/app/installations`, {
      headers: { authorization: `Bearer ${forged}` },
    });
    expect(res.status).toBe(401);
    const bad = await fetch(`${w.forge.url}/repos/acme/blueprints`, {
      headers: { authorization: "token ghs_nope" },
    });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ message: "Bad credentials", status: "401" });
  });

  it("serves repositories, 404 for unknown ones", async () => {
    const { data } = await w.octokit.rest.repos.get({ owner: "acme", repo: "blueprints" });
    expect(data).toMatchObject({ full_name: "acme/blueprints", default_branch: "main", private: true });
    await expect(w.octokit.rest.repos.get({ owner: "acme", repo: "nope" })).rejects.toMatchObject({
      status: 404,
    });
    const { data: list } = await w.octokit.rest.apps.listReposAccessibleToInstallation();
    expect(list.repositories.map((r) => r.name)).toEqual(["blueprints"]);
  });

  it("clones, pushes and fetches over smart HTTP with an installation token", async () => {
    const url = w.forge.cloneUrl("acme/blueprints", w.token);
    const dir = join(w.tmp, "clone");
    await git(w.tmp, "clone", "-q", url, dir);
    writeFileSync(join(dir, "Kptfile"), "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n");
    await git(dir, "add", "Kptfile");
    await git(dir, "commit", "-q", "-m", "add package");
    await git(dir, "push", "-q", "origin", "HEAD:refs/heads/drafts/app/v1");
    const { data } = await w.octokit.rest.git.getRef({
      owner: "acme",
      repo: "blueprints",
      ref: "heads/drafts/app/v1",
    });
    expect(data.object.sha).toBe(await git(dir, "rev-parse", "HEAD"));
    await w.forge.webhooks.idle();
    const push = w.forge.webhooks.find("push").at(-1)!;
    expect(push.payload).toMatchObject({ ref: "refs/heads/drafts/app/v1", created: true });
    expect((push.payload.commits as { added: string[] }[])[0]?.added).toEqual(["Kptfile"]);
    expect(w.forge.webhooks.find("create")).toHaveLength(1);
    await git(dir, "tag", "-a", "app/v1", "-m", "app v1");
    await git(dir, "push", "-q", "origin", "app/v1");
    await w.forge.webhooks.idle();
    expect(w.forge.webhooks.find("create").at(-1)?.payload).toMatchObject({ ref: "app/v1", ref_type: "tag" });
    const tagPush = w.forge.webhooks.find("push").at(-1)!.payload;
    expect(tagPush).toMatchObject({
      ref: "refs/tags/app/v1",
      head_commit: { id: await git(dir, "rev-parse", "HEAD") },
    });
  });

  it("refuses git without credentials", async () => {
    const url = `${w.forge.url}/acme/blueprints.git`;
    await expect(git(w.tmp, "clone", "-q", url, join(w.tmp, "x"))).rejects.toThrow(
      /Authentication failed|could not read Username/,
    );
  });

  it("creates, fast-forwards, force-updates and deletes refs like GitHub", async () => {
    const repo = { owner: "acme", repo: "blueprints" };
    const main = (await w.octokit.rest.git.getRef({ ...repo, ref: "heads/main" })).data.object.sha;
    const { data: c } = await w.octokit.rest.git.getCommit({ ...repo, commit_sha: main });
    const { data: next } = await w.octokit.rest.git.createCommit({
      ...repo,
      message: "two",
      tree: c.tree.sha,
      parents: [main],
    });
    const { data: side } = await w.octokit.rest.git.createCommit({
      ...repo,
      message: "side",
      tree: c.tree.sha,
      parents: [main],
    });
    await w.octokit.rest.git.createRef({ ...repo, ref: "refs/heads/feature", sha: main });
    await expect(
      w.octokit.rest.git.createRef({ ...repo, ref: "refs/heads/feature", sha: main }),
    ).rejects.toMatchObject({
      status: 422,
      response: { data: { message: "Reference already exists" } },
    });
    await w.octokit.rest.git.updateRef({ ...repo, ref: "heads/feature", sha: next.sha });
    await expect(
      w.octokit.rest.git.updateRef({ ...repo, ref: "heads/feature", sha: side.sha }),
    ).rejects.toMatchObject({
      status: 422,
      response: { data: { message: "Update is not a fast forward" } },
    });
    await w.octokit.rest.git.updateRef({ ...repo, ref: "heads/feature", sha: side.sha, force: true });
    const { data: matching } = await w.octokit.rest.git.listMatchingRefs({ ...repo, ref: "heads/feat" });
    expect(matching.map((r) => r.ref)).toEqual(["refs/heads/feature"]);
    await w.octokit.rest.git.deleteRef({ ...repo, ref: "heads/feature" });
    await expect(w.octokit.rest.git.deleteRef({ ...repo, ref: "heads/feature" })).rejects.toMatchObject({
      status: 422,
    });
    await w.forge.webhooks.idle();
    const pushes = w.forge.webhooks.find("push").map((d) => d.payload);
    expect(pushes.map((p) => [p.created, p.forced, p.deleted])).toEqual([
      [true, false, false],
      [false, false, false],
      [false, true, false],
      [false, false, true],
    ]);
  });

  it("answers GitHub's older single-ref form, /git/refs/{ref}, at the `url` it gives every ref", async () => {
    const repo = { owner: "acme", repo: "blueprints" };
    const main = (await w.octokit.rest.git.getRef({ ...repo, ref: "heads/main" })).data;
    await w.octokit.rest.git.createRef({ ...repo, ref: "refs/tags/hello/v2", sha: main.object.sha });
    const tag = (await w.octokit.rest.git.getRef({ ...repo, ref: "tags/hello/v2" })).data;
    const byUrl = await w.octokit.request(`GET ${tag.url}`);
    expect(byUrl.data).toEqual(tag);
    const { data: exact } = await w.octokit.request("GET /repos/{owner}/{repo}/git/refs/{ref}", {
      ...repo,
      ref: "tags/hello/v2",
    });
    expect(exact).toEqual(tag);
    const { data: under } = await w.octokit.request("GET /repos/{owner}/{repo}/git/refs/{ref}", {
      ...repo,
      ref: "tags/hello",
    });
    expect(under).toEqual([tag]);
    await expect(
      w.octokit.request("GET /repos/{owner}/{repo}/git/refs/{ref}", { ...repo, ref: "tags/nope" }),
    ).rejects.toMatchObject({ status: 404 });
    await w.octokit.rest.git.deleteRef({ ...repo, ref: "tags/hello/v2" });
  });

  it("serves file and directory contents", async () => {
    const repo = { owner: "acme", repo: "blueprints" };
    const { data: dir } = await w.octokit.rest.repos.getContent({ ...repo, path: "" });
    expect(Array.isArray(dir) && dir.map((e) => e.name)).toEqual(["README.md"]);
    const { data: file } = await w.octokit.rest.repos.getContent({ ...repo, path: "README.md" });
    expect(
      !Array.isArray(file) && file.type === "file" && Buffer.from(file.content, "base64").toString(),
    ).toContain("# blueprints");
    await expect(w.octokit.rest.repos.getContent({ ...repo, path: "nope.txt" })).rejects.toMatchObject({
      status: 404,
    });
  });

  it("serves a file's bytes for the raw media type, in each of its spellings; a directory stays JSON", async () => {
    const url = `${w.forge.apiUrl}/repos/acme/blueprints/contents`;
    const auth = { authorization: `token ${w.token}` };
    for (const accept of [
      "application/vnd.github.raw",
      "application/vnd.github.raw+json",
      "application/vnd.github.v3.raw",
      "application/json, application/vnd.github.v3.raw",
    ]) {
      const res = await fetch(`${url}/README.md`, { headers: { ...auth, accept } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/vnd.github.raw; charset=utf-8");
      expect(await res.text()).toContain("# blueprints");
    }
    const json = await fetch(`${url}/README.md`, {
      headers: { ...auth, accept: "application/vnd.github+json" },
    });
    expect(await json.json()).toMatchObject({ encoding: "base64", type: "file" });
    const dir = await fetch(`${url}/`, { headers: { ...auth, accept: "application/vnd.github.raw" } });
    expect(dir.headers.get("content-type")).toMatch(/^application\/json/);
    const { data } = await w.octokit.rest.repos.getContent({
      owner: "acme",
      repo: "blueprints",
      path: "README.md",
      mediaType: { format: "raw" },
    });
    expect(data as unknown).toContain("# blueprints");
  });

  it("writes files through the contents API with GitHub's sha precondition", async () => {
    const repo = { owner: "acme", repo: "blueprints" };
    const put = { ...repo, path: "pkg/Kptfile", message: "add Kptfile" };
    const first = await w.octokit.rest.repos.createOrUpdateFileContents({
      ...put,
      content: Buffer.from("a").toString("base64"),
    });
    expect(first.status).toBe(201);
    await expect(
      w.octokit.rest.repos.createOrUpdateFileContents({
        ...put,
        content: Buffer.from("b").toString("base64"),
      }),
    ).rejects.toMatchObject({ status: 422 });
    await expect(
      w.octokit.rest.repos.createOrUpdateFileContents({ ...put, content: "Yg==", sha: "1".repeat(40) }),
    ).rejects.toMatchObject({ status: 409 });
    const second = await w.octokit.rest.repos.createOrUpdateFileContents({
      ...put,
      content: "Yg==",
      sha: first.data.content!.sha!,
    });
    expect(second.status).toBe(200);
    const { data: tree } = await w.octokit.rest.git.getTree({ ...repo, tree_sha: "main", recursive: "true" });
    expect(tree.tree.map((e) => e.path)).toEqual(["README.md", "pkg", "pkg/Kptfile"]);
    await w.forge.webhooks.idle();
    expect(w.forge.webhooks.find("push").map((d) => d.payload.ref)).toEqual([
      "refs/heads/main",
      "refs/heads/main",
    ]);
  });

  it("keeps ref events exact when pushes to one repository race", async () => {
    const a = join(w.tmp, "a");
    const b = join(w.tmp, "b");
    const url = w.forge.cloneUrl("acme/blueprints", w.token);
    await Promise.all([git(w.tmp, "clone", "-q", url, a), git(w.tmp, "clone", "-q", url, b)]);
    for (const [dir, name] of [
      [a, "one"],
      [b, "two"],
    ] as const) {
      writeFileSync(join(dir, name), `${name}\n`);
      await git(dir, "add", name);
      await git(dir, "commit", "-q", "-m", name);
    }
    await Promise.all([
      git(a, "push", "-q", "origin", "HEAD:refs/heads/drafts/one"),
      git(b, "push", "-q", "origin", "HEAD:refs/heads/drafts/two"),
    ]);
    await w.forge.webhooks.idle();
    const pushes = w.forge.webhooks.find("push").map((d) => d.payload.ref);
    expect(pushes.sort()).toEqual(["refs/heads/drafts/one", "refs/heads/drafts/two"]);
    expect(w.forge.errors).toEqual([]);
  });
});
