import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type RpkgWorld, rpkgWorld } from "./world.js";

const R = "--repository=acme/blueprints";

/**
 * Porch's TestAuthor (pkg/externalrepo/git/git_test.go), its fixture (publishinfo-repository.tar) made
 * again here with plain git: who published a revision and when is the author of the tagged commit for a
 * revision on a tag, and of the newest commit whose `kpt:` line names the package for the revision on the
 * registered branch; a draft, and a package whose commits carry no `kpt:` line, have neither.
 */
describe("status.publishedBy and publishTimestamp, as Porch reads them", () => {
  let w: RpkgWorld;
  let clone: string;
  const git = async (env: Record<string, string>, ...args: string[]) =>
    (
      await promisify(execFile)("git", args, {
        cwd: clone,
        encoding: "utf8",
        env: { ...process.env, ...env },
      })
    ).stdout;
  /** A commit of `pkg` by `who` at `when` (both author and committer, as in Porch's fixture). */
  const commit = async (pkg: string, who: string, when: string, message: string, annotation?: object) => {
    mkdirSync(join(clone, pkg), { recursive: true });
    writeFileSync(
      join(clone, pkg, "Kptfile"),
      `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${pkg}\n`,
    );
    writeFileSync(join(clone, pkg, "step.txt"), `${message}\n`);
    const env = {
      GIT_AUTHOR_NAME: who,
      GIT_AUTHOR_EMAIL: who,
      GIT_AUTHOR_DATE: when,
      GIT_COMMITTER_NAME: who,
      GIT_COMMITTER_EMAIL: who,
      GIT_COMMITTER_DATE: when,
    };
    await git(env, "add", "-A");
    const trailer = annotation ? `\n\nkpt:${JSON.stringify(annotation)}\n` : "";
    await git(env, "commit", "-q", "-m", `${message}${trailer}`);
  };
  const status = async (name: string) => {
    const r = await w.rpkg(w.alice, ["get", name, R, "-o", "yaml"]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    return parse(r.stdout).status as Record<string, unknown>;
  };

  beforeAll(async () => {
    w = await rpkgWorld();
    clone = join(w.tmp, "publishinfo");
    await promisify(execFile)("git", ["clone", "-q", w.forge.cloneUrl("acme/blueprints", w.alice), clone]);
    const withAnno = "pkg-with-anno-author@example.com";
    await commit("pkg-with-anno", withAnno, "2022-08-26T22:44:15Z", "Intermediate commit: init", {
      package: "pkg-with-anno",
      revision: "v1",
      task: { type: "init", init: { description: "sample description" } },
    });
    await commit("pkg-with-anno", withAnno, "2022-08-26T22:46:44Z", "Intermediate commit: eval", {
      package: "pkg-with-anno",
      revision: "v1",
      task: { type: "eval", eval: { image: "render", config: null, match: {} } },
    });
    await commit("pkg-with-anno", withAnno, "2022-08-26T22:47:35Z", "Approve pkg-with-anno/v1", {
      package: "pkg-with-anno",
      revision: "v1",
    });
    await git({}, "tag", "pkg-with-anno/v1");
    const without = "pkg-without-anno-author@example.com";
    await commit(
      "pkg-without-anno",
      without,
      "2022-08-26T22:49:59Z",
      "Approval for package pkg-without-anno/v1",
    );
    await git({}, "tag", "pkg-without-anno/v1");
    await git({}, "checkout", "-q", "-b", "drafts/draft-pkg/v1");
    const drafter = "draft-pkg-author@example.com";
    await commit("draft-pkg", drafter, "2022-08-26T22:54:22Z", "Intermediate commit: init", {
      package: "draft-pkg",
      revision: "v1",
      task: { type: "init", init: { description: "sample description" } },
    });
    await git({}, "checkout", "-q", "main");
    // the branch's newest commit is another package's, and names none
    await commit(
      "some-pkg",
      "some-pkg-author@example.com",
      "2022-08-26T22:57:49Z",
      "Approval for some-pkg/v1",
    );
    await git(
      {},
      "push",
      "-q",
      "origin",
      "main",
      "drafts/draft-pkg/v1",
      "pkg-with-anno/v1",
      "pkg-without-anno/v1",
    );
  }, 60_000);

  afterAll(async () => {
    await w.stop();
  });

  it("a draft has neither", async () => {
    const s = await status("blueprints.draft-pkg.v1");
    expect(s.publishedBy).toBeUndefined();
    expect(s.publishTimestamp).toBeUndefined();
  });

  it("a revision on a tag: the tagged commit's author and date", async () => {
    expect(await status("blueprints.pkg-with-anno.v1")).toMatchObject({
      publishedBy: "pkg-with-anno-author@example.com",
      publishTimestamp: "2022-08-26T22:47:35Z",
    });
    // the tag alone tells it: no kpt: line needed
    expect(await status("blueprints.pkg-without-anno.v1")).toMatchObject({
      publishedBy: "pkg-without-anno-author@example.com",
      publishTimestamp: "2022-08-26T22:49:59Z",
    });
  });

  it("the registered branch's revision: the newest commit whose kpt: line names the package", async () => {
    expect(await status("blueprints.pkg-with-anno.main")).toMatchObject({
      publishedBy: "pkg-with-anno-author@example.com",
      publishTimestamp: "2022-08-26T22:47:35Z",
    });
  });

  it("the registered branch's revision with no kpt: line naming it has neither", async () => {
    const s = await status("blueprints.pkg-without-anno.main");
    expect(s.publishedBy).toBeUndefined();
    expect(s.publishTimestamp).toBeUndefined();
  });

  it("a revision porchlight publishes: the approval's merge commit, by the approver", async () => {
    expect((await w.rpkg(w.alice, ["init", "web", "--workspace=w1", R])).code).toBe(0);
    expect((await w.publish("acme/blueprints", "blueprints.web.w1")).code).toBe(0);
    const s = await status("blueprints.web.w1");
    const tag = await w
      .octokit(w.alice)
      .rest.git.getRef({ owner: "acme", repo: "blueprints", ref: "tags/web/v1" });
    const merged = await w.octokit(w.alice).rest.git.getCommit({
      owner: "acme",
      repo: "blueprints",
      commit_sha: tag.data.object.sha,
    });
    expect(s.publishedBy).toBe(merged.data.author.email);
    expect(s.publishTimestamp).toBe(merged.data.author.date.replace(/\.\d+Z$/, "Z"));
    // proposed for deletion, it is still published (Porch's LifecycleIsPublished), by the same person
    expect((await w.rpkg(w.alice, ["propose-delete", "blueprints.web.w1", R])).code).toBe(0);
    expect(await status("blueprints.web.w1")).toMatchObject({
      publishedBy: s.publishedBy,
      publishTimestamp: s.publishTimestamp,
    });
  });
});
