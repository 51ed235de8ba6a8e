import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, Workdir, type World, world } from "./helpers.js";

const repo = { owner: "acme", repo: "blueprints" };

describe("forge pulls: open, synchronize, merge like GitHub", () => {
  let w: World;
  let wd: Workdir;
  beforeAll(async () => {
    w = await world();
    wd = await Workdir.clone(w, "acme/blueprints");
  });
  afterAll(async () => {
    await w.cleanup();
  });

  it("opens a pull request, refuses a duplicate with GitHub's message, lists with filters", async () => {
    await wd.commit("drafts/app/v1", { "app/Kptfile": "kind: Kptfile\n" });
    const { data: pr } = await w.octokit.rest.pulls.create({
      ...repo,
      title: "app v1",
      head: "drafts/app/v1",
      base: "main",
    });
    expect(pr).toMatchObject({
      number: 1,
      state: "open",
      mergeable: true,
      merged: false,
      commits: 1,
      changed_files: 1,
    });
    await expect(
      w.octokit.rest.pulls.create({ ...repo, title: "again", head: "drafts/app/v1", base: "main" }),
    ).rejects.toMatchObject({
      status: 422,
      response: {
        data: {
          message: "Validation Failed",
          errors: [
            {
              resource: "PullRequest",
              code: "custom",
              message: "A pull request already exists for acme:drafts/app/v1.",
            },
          ],
        },
      },
    });
    await expect(
      w.octokit.rest.pulls.create({ ...repo, title: "x", head: "nope", base: "main" }),
    ).rejects.toMatchObject({
      status: 422,
    });
    const open = await w.octokit.rest.pulls.list({ ...repo, head: "acme:drafts/app/v1" });
    expect(open.data.map((p) => p.number)).toEqual([1]);
    expect((await w.octokit.rest.pulls.list({ ...repo, state: "closed" })).data).toEqual([]);
    await w.forge.webhooks.idle();
    expect(w.forge.webhooks.find("pull_request", "opened")).toHaveLength(1);
  });

  it("of requests for one branch's pull request made at once, one opens it and the rest are refused", async () => {
    // two fan-out runs for one downstream may ask together: GitHub opens one, as the bot relies on
    await wd.commit("drafts/app/together", { "app/Kptfile": "kind: Kptfile\nmetadata: {name: t}\n" });
    // git answers slowly (a busy disk): every request is in flight at once while it does
    const git = w.forge.core.git;
    const revList = git.revList.bind(git);
    git.revList = async (...args: Parameters<typeof revList>) => {
      await new Promise((r) => setTimeout(r, 50));
      return revList(...args);
    };
    const results = await Promise.allSettled(
      [1, 2, 3, 4].map((n) =>
        w.octokit.rest.pulls.create({
          ...repo,
          title: `try ${n}`,
          head: "drafts/app/together",
          base: "main",
        }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected"))
      expect((r as PromiseRejectedResult).reason).toMatchObject({ status: 422 });
    git.revList = revList;
    const open = await w.octokit.rest.pulls.list({ ...repo, head: "acme:drafts/app/together" });
    expect(open.data).toHaveLength(1);
  });

  it("sends pull_request.synchronize when the head branch is pushed", async () => {
    const before = (await w.octokit.rest.pulls.get({ ...repo, pull_number: 1 })).data.head.sha;
    const after = await wd.commit("drafts/app/v1", { "app/cm.yaml": "kind: ConfigMap\n" });
    const { data: c } = await w.octokit.rest.git.getCommit({ ...repo, commit_sha: after });
    const { data: viaRest } = await w.octokit.rest.git.createCommit({
      ...repo,
      message: "bot",
      tree: c.tree.sha,
      parents: [after],
    });
    await w.octokit.rest.git.updateRef({ ...repo, ref: "heads/drafts/app/v1", sha: viaRest.sha });
    await wd.commit("drafts/app/v1", { "app/cm.yaml": "kind: ConfigMap\nmetadata: {name: x}\n" });
    const head = (await w.octokit.rest.pulls.get({ ...repo, pull_number: 1 })).data.head.sha;
    await w.forge.webhooks.idle();
    const all = w.forge.webhooks
      .find("pull_request", "synchronize")
      .map((d) => [d.payload.before, d.payload.after]);
    expect(all).toEqual([
      [before, after],
      [after, viaRest.sha],
      [viaRest.sha, head],
    ]);
    const { data: files } = await w.octokit.rest.pulls.listFiles({ ...repo, pull_number: 1 });
    expect(files.map((f) => [f.filename, f.status])).toEqual([
      ["app/Kptfile", "added"],
      ["app/cm.yaml", "added"],
    ]);
  });

  it("refuses a merge naming a stale head sha (409), merges with the right one", async () => {
    const { data: pr } = await w.octokit.rest.pulls.get({ ...repo, pull_number: 1 });
    await expect(
      w.octokit.rest.pulls.merge({ ...repo, pull_number: 1, sha: "0".repeat(40) }),
    ).rejects.toMatchObject({
      status: 409,
      response: { data: { message: "Head branch was modified. Review and try the merge again." } },
    });
    const { data: merged } = await w.octokit.rest.pulls.merge({
      ...repo,
      pull_number: 1,
      sha: pr.head.sha,
      merge_method: "merge",
    });
    expect(merged).toMatchObject({ merged: true, message: "Pull Request successfully merged" });
    const { data: after } = await w.octokit.rest.pulls.get({ ...repo, pull_number: 1 });
    expect(after).toMatchObject({ state: "closed", merged: true, merge_commit_sha: merged.sha });
    const main = (await w.octokit.rest.git.getRef({ ...repo, ref: "heads/main" })).data.object.sha;
    expect(main).toBe(merged.sha);
    const commit = (await w.octokit.rest.git.getCommit({ ...repo, commit_sha: merged.sha })).data;
    expect(commit.parents.map((p) => p.sha)).toEqual([pr.base.sha, pr.head.sha]);
    await w.forge.webhooks.idle();
    const closed = w.forge.webhooks.find("pull_request", "closed");
    expect(closed.map((d) => (d.payload.pull_request as { merged: boolean }).merged)).toEqual([true]);
    expect(w.forge.webhooks.find("push").at(-1)?.payload).toMatchObject({
      ref: "refs/heads/main",
      after: merged.sha,
    });
    await expect(w.octokit.rest.pulls.merge({ ...repo, pull_number: 1 })).rejects.toMatchObject({
      status: 405,
    });
  });

  it("merges a pull request once when two merges of it arrive at the same moment (the other is refused, 405)", async () => {
    await wd.commit("drafts/twice/v1", { "twice/Kptfile": "kind: Kptfile\n" });
    const { data: pr } = await w.octokit.rest.pulls.create({
      ...repo,
      title: "twice",
      head: "drafts/twice/v1",
      base: "main",
    });
    const results = await Promise.allSettled(
      [1, 2].map(() => w.octokit.rest.pulls.merge({ ...repo, pull_number: pr.number, sha: pr.head.sha })),
    );
    const merged = results.filter((r) => r.status === "fulfilled");
    expect(merged).toHaveLength(1);
    expect(results.find((r) => r.status === "rejected")).toMatchObject({ reason: { status: 405 } });
    const main = (await w.octokit.rest.git.getRef({ ...repo, ref: "heads/main" })).data.object.sha;
    const commit = (await w.octokit.rest.git.getCommit({ ...repo, commit_sha: main })).data;
    expect(commit.parents.map((p) => p.sha)).toContain(pr.head.sha);
    expect((await w.octokit.rest.pulls.get({ ...repo, pull_number: pr.number })).data.merge_commit_sha).toBe(
      main,
    );
  });

  it("reports a conflicting pull request as not mergeable and refuses to merge it (405)", async () => {
    await wd.commit("main", { "README.md": "main side\n" });
    await wd.commit("drafts/conflict", { "README.md": "branch side\n" }, { from: "origin/main~1" });
    const { data: pr } = await w.octokit.rest.pulls.create({
      ...repo,
      title: "conflict",
      head: "drafts/conflict",
      base: "main",
    });
    expect(pr.mergeable).toBe(false);
    expect(pr.mergeable_state).toBe("dirty");
    await expect(w.octokit.rest.pulls.merge({ ...repo, pull_number: pr.number })).rejects.toMatchObject({
      status: 405,
      response: { data: { message: "Pull Request is not mergeable" } },
    });
    await w.octokit.rest.pulls.update({ ...repo, pull_number: pr.number, state: "closed" });
    await w.forge.webhooks.idle();
    expect(w.forge.webhooks.find("pull_request", "closed").at(-1)?.payload.pull_request).toMatchObject({
      merged: false,
    });
  });

  it("squash-merges into one commit with the title and number", async () => {
    await wd.commit("drafts/squash", { "b/one": "1\n" });
    await wd.commit("drafts/squash", { "b/two": "2\n" });
    const { data: pr } = await w.octokit.rest.pulls.create({
      ...repo,
      title: "two files",
      head: "drafts/squash",
      base: "main",
    });
    const { data: m } = await w.octokit.rest.pulls.merge({
      ...repo,
      pull_number: pr.number,
      merge_method: "squash",
    });
    const { data: c } = await w.octokit.rest.git.getCommit({ ...repo, commit_sha: m.sha });
    expect(c.parents).toHaveLength(1);
    expect(c.message).toBe(`two files (#${pr.number})`);
  });

  it("rebase-merges by replaying the commits, refuses drafts", async () => {
    await wd.commit("drafts/rebase", { "d/one": "1\n" });
    const tip = await wd.commit("drafts/rebase", { "d/two": "2\n" });
    const { data: draft } = await w.octokit.rest.pulls.create({
      ...repo,
      title: "wip",
      head: "drafts/rebase",
      base: "main",
      draft: true,
    });
    await expect(w.octokit.rest.pulls.merge({ ...repo, pull_number: draft.number })).rejects.toMatchObject({
      status: 405,
    });
    await w.octokit.rest.pulls.update({ ...repo, pull_number: draft.number, state: "closed" });
    await wd.commit("main", { "main-moved": "yes\n" });
    const { data: pr } = await w.octokit.rest.pulls.create({
      ...repo,
      title: "rebase",
      head: "drafts/rebase",
      base: "main",
    });
    const { data: m } = await w.octokit.rest.pulls.merge({
      ...repo,
      pull_number: pr.number,
      merge_method: "rebase",
    });
    expect(m.sha).not.toBe(tip);
    const { data: log } = await w.octokit.rest.repos.listCommits({ ...repo, sha: "main", per_page: 2 });
    expect(log.map((c) => c.commit.message)).toEqual(["change d/two", "change d/one"]);
    const { data: files } = await w.octokit.rest.repos.getContent({ ...repo, path: "" });
    expect(Array.isArray(files) && files.map((f) => f.name)).toEqual(
      expect.arrayContaining(["d", "main-moved"]),
    );
  });

  it("edits a pull request (edited with changes) and reviews it as a collaborator", async () => {
    await wd.commit("drafts/review", { "c/x": "x\n" });
    const { data: pr } = await w.octokit.rest.pulls.create({
      ...repo,
      title: "review me",
      head: "drafts/review",
      base: "main",
    });
    await w.octokit.rest.pulls.update({ ...repo, pull_number: pr.number, body: "new body" });
    const { pat } = w.forge.createUser("maintainer", { pat: true });
    w.forge.setPermission("acme/blueprints", "maintainer", "maintain");
    const user = client(w.forge, pat!);
    const { data: review } = await user.rest.pulls.createReview({
      ...repo,
      pull_number: pr.number,
      event: "APPROVE",
    });
    expect(review.state).toBe("APPROVED");
    await expect(
      w.octokit.rest.pulls.createReview({ ...repo, pull_number: pr.number, event: "APPROVE" }),
    ).rejects.toMatchObject({ status: 422 });
    const { data: reviews } = await w.octokit.rest.pulls.listReviews({ ...repo, pull_number: pr.number });
    expect(reviews.map((r) => [r.user?.login, r.state])).toEqual([["maintainer", "APPROVED"]]);
    await w.forge.webhooks.idle();
    const edited = w.forge.webhooks.find("pull_request", "edited").at(-1)!;
    expect(edited.payload.changes).toEqual({ body: { from: "" } });
    const submitted = w.forge.webhooks.find("pull_request_review", "submitted").at(-1)!;
    expect(submitted.payload).toMatchObject({
      review: { state: "approved" },
      sender: { login: "maintainer" },
    });
  });
});
