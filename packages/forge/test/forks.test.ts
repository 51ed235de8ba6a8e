import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, git, type World, world } from "./helpers.js";

const base = { owner: "acme", repo: "blueprints" };
const fork = { owner: "mallory", repo: "blueprints" };

describe("forge forks: a fork of its own, pull requests from it into the base, GitHub's permissions", () => {
  let w: World;
  let mallory: ReturnType<typeof client>;
  let malloryPat: string;
  let dir: string;
  beforeAll(async () => {
    w = await world();
    await w.octokit.rest.repos.update({ ...base, private: false }).catch(() => undefined);
    w.forge.repo("acme/blueprints").private = false;
    const made = w.forge.createUser("mallory", { pat: true });
    malloryPat = made.pat!;
    mallory = client(w.forge, malloryPat);
  });
  afterAll(async () => {
    await w.cleanup();
  });

  it("forks into the caller's account with GitHub's shape: fork, parent, source, the branches", async () => {
    const { status, data } = await mallory.rest.repos.createFork(base);
    expect(status).toBe(202);
    expect(data).toMatchObject({
      full_name: "mallory/blueprints",
      fork: true,
      owner: { login: "mallory" },
      parent: { full_name: "acme/blueprints", fork: false },
      source: { full_name: "acme/blueprints" },
      default_branch: "main",
      permissions: { admin: true, push: true },
    });
    const again = await mallory.rest.repos.createFork(base);
    expect(again.data.id).toBe(data.id);
    const forks = await w.octokit.rest.repos.listForks(base);
    expect(forks.data.map((f) => f.full_name)).toEqual(["mallory/blueprints"]);
    expect((await w.octokit.rest.repos.get(base)).data.forks_count).toBe(1);
    const branches = await mallory.rest.repos.listBranches(fork);
    const baseMain = (await w.octokit.rest.repos.getBranch({ ...base, branch: "main" })).data.commit.sha;
    expect(branches.data.map((b) => [b.name, b.commit.sha])).toEqual([["main", baseMain]]);
  });

  it("refuses a fork into an organization the caller does not administer", async () => {
    await expect(mallory.rest.repos.createFork({ ...base, organization: "acme" })).rejects.toMatchObject({
      status: 403,
    });
  });

  it("serves the fork's own git remote: its owner clones and pushes; the fork's author cannot push to the base", async () => {
    dir = join(w.tmp, "mallory-fork");
    await git(w.tmp, "clone", "-q", w.forge.cloneUrl("mallory/blueprints", malloryPat), dir);
    await git(dir, "checkout", "-q", "-b", "feature");
    await git(dir, "commit", "-q", "--allow-empty", "-m", "from the fork");
    await git(dir, "push", "-q", "origin", "feature");
    expect((await mallory.rest.repos.getBranch({ ...fork, branch: "feature" })).data.name).toBe("feature");
    await expect(
      git(dir, "push", "-q", w.forge.cloneUrl("acme/blueprints", malloryPat), "HEAD:refs/heads/feature"),
    ).rejects.toThrow(/denied to mallory/);
    expect(w.forge.permissionOf("acme/blueprints", "mallory")).toBe("read");
  });

  it("opens a pull request into the base whose head is the fork, and the base's installation hears it", async () => {
    const head = await git(dir, "rev-parse", "HEAD");
    const { data: pr } = await mallory.rest.pulls.create({
      ...base,
      title: "from a fork",
      head: "mallory:feature",
      base: "main",
    });
    expect(pr).toMatchObject({
      head: {
        label: "mallory:feature",
        ref: "feature",
        sha: head,
        repo: { full_name: "mallory/blueprints", fork: true },
      },
      base: { ref: "main", repo: { full_name: "acme/blueprints", fork: false } },
      commits: 1,
      author_association: "NONE",
    });
    await w.forge.webhooks.idle();
    const [opened] = w.forge.webhooks.find("pull_request", "opened");
    expect(opened?.installationId).toBe(w.installationId);
    expect(opened?.payload).toMatchObject({
      repository: { full_name: "acme/blueprints" },
      pull_request: { head: { repo: { full_name: "mallory/blueprints", fork: true } } },
    });
    // The base keeps the head as GitHub does, so it can be fetched and merged from the base.
    const refs = await w.octokit.rest.git.listMatchingRefs({ ...base, ref: "pull/" });
    expect(refs.data.map((r) => [r.ref, r.object.sha])).toEqual([[`refs/pull/${pr.number}/head`, head]]);
    const listed = await w.octokit.rest.pulls.list({ ...base, head: "mallory:feature" });
    expect(listed.data.map((p) => p.number)).toEqual([pr.number]);
  });

  it("a push to the fork's branch synchronizes the base's pull request, from the base repository", async () => {
    await git(dir, "commit", "-q", "--allow-empty", "-m", "second");
    await git(dir, "push", "-q", "origin", "feature");
    const head = await git(dir, "rev-parse", "HEAD");
    await w.forge.webhooks.idle();
    const sync = w.forge.webhooks.find("pull_request", "synchronize").at(-1);
    expect(sync?.installationId).toBe(w.installationId);
    expect(sync?.payload).toMatchObject({
      after: head,
      repository: { full_name: "acme/blueprints" },
      pull_request: { head: { sha: head, repo: { full_name: "mallory/blueprints" } } },
    });
    const pr = (await w.octokit.rest.pulls.list(base)).data[0]!;
    expect(pr.head.sha).toBe(head);
    const commits = await w.octokit.rest.pulls.listCommits({ ...base, pull_number: pr.number });
    expect(commits.data).toHaveLength(2);
  });

  it("the fork's author has no say on the base: cannot merge, label or push refs there", async () => {
    const pr = (await w.octokit.rest.pulls.list(base)).data[0]!;
    await expect(mallory.rest.pulls.merge({ ...base, pull_number: pr.number })).rejects.toMatchObject({
      status: 403,
    });
    await expect(
      mallory.rest.git.createRef({ ...base, ref: "refs/heads/drafts/app/x", sha: pr.head.sha }),
    ).rejects.toMatchObject({ status: 403 });
  });

  it("the app's installation token can read the public fork but never write to it", async () => {
    expect((await w.octokit.rest.repos.get(fork)).data.fork).toBe(true);
    const main = (await w.octokit.rest.repos.getBranch({ ...fork, branch: "main" })).data.commit.sha;
    await expect(
      w.octokit.rest.git.createRef({ ...fork, ref: "refs/heads/bot", sha: main }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(w.octokit.rest.issues.create({ ...fork, title: "dashboard" })).rejects.toMatchObject({
      status: 403,
    });
    await expect(
      git(dir, "push", "-q", w.forge.cloneUrl("mallory/blueprints", w.token), "HEAD:refs/heads/bot"),
    ).rejects.toThrow(/denied/);
  });

  it("a writer of the base merges the fork's pull request with the fork's commits", async () => {
    const pr = (await w.octokit.rest.pulls.list(base)).data[0]!;
    const { data } = await w.octokit.rest.pulls.merge({ ...base, pull_number: pr.number, sha: pr.head.sha });
    expect(data.merged).toBe(true);
    const main = (await w.octokit.rest.repos.getBranch({ ...base, branch: "main" })).data.commit;
    expect(main.parents.map((p) => p.sha)).toContain(pr.head.sha);
    expect(w.forge.errors).toEqual([]);
  });
});

describe("forge repository creation: POST /orgs/{org}/repos and /user/repos as GitHub answers them", () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(async () => {
    await w.cleanup();
  });

  it("creates a user's repository, public unless asked otherwise, with the creator as admin", async () => {
    const { pat } = w.forge.createUser("dana", { pat: true });
    const dana = client(w.forge, pat!);
    const { status, data } = await dana.rest.repos.createForAuthenticatedUser({
      name: "notes",
      auto_init: true,
    });
    expect(status).toBe(201);
    expect(data).toMatchObject({
      full_name: "dana/notes",
      private: false,
      fork: false,
      owner: { login: "dana" },
      permissions: { admin: true },
    });
    const hidden = await dana.rest.repos.createForAuthenticatedUser({ name: "diary", private: true });
    expect(hidden.data.private).toBe(true);
    await expect(dana.rest.repos.createForAuthenticatedUser({ name: "notes" })).rejects.toMatchObject({
      status: 422,
      response: { data: { errors: [{ field: "name", message: "name already exists on this account" }] } },
    });
  });

  it("creates an organization's repository for its admins only; an installation needs administration permission", async () => {
    const { pat } = w.forge.createUser("root", { pat: true });
    w.forge.setPermission("acme/blueprints", "root", "admin");
    const { pat: outsider } = w.forge.createUser("eve", { pat: true });
    const { data } = await client(w.forge, pat!).rest.repos.createInOrg({ org: "acme", name: "deploy" });
    expect(data).toMatchObject({ full_name: "acme/deploy", owner: { login: "acme" } });
    await expect(
      client(w.forge, outsider!).rest.repos.createInOrg({ org: "acme", name: "x" }),
    ).rejects.toMatchObject({
      status: 403,
    });
    await expect(w.octokit.rest.repos.createInOrg({ org: "acme", name: "y" })).rejects.toMatchObject({
      status: 403,
      response: { data: { message: "Resource not accessible by integration" } },
    });
  });
});
