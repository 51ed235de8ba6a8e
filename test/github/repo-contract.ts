import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERMISSION_LEVELS } from "../../src/api/permission.js";
import { GitHubError, type MergeRefused } from "../../src/github/errors.js";
import type { Permission, RepoPort } from "../../src/github/port.js";
import { treeFromText } from "../../src/kpt/tree.js";

/** One implementation of the port under contract, over a repository whose `main` holds one commit. */
export interface ContractRepo {
  port: RepoPort;
  /** Gives `user` a permission on the repository (a collaborator, as a test sets one up). */
  permit(user: string, level: Exclude<Permission, "none">): Promise<void>;
  cleanup(): Promise<void>;
}

const AUTHOR = { name: "Contract Test", email: "contract@example.test" };

/**
 * What every RepoPort promises, as the jobs rely on it: the same calls, the same answers and the same
 * GitHubError kinds from the in-memory FakeRepo most job tests use and from the Octokit adapter over the
 * embedded forge (real HTTP and git). A difference here is the fake drifting from the real door.
 */
export function repoPortContract(name: string, make: () => Promise<ContractRepo>): void {
  describe(`RepoPort contract: ${name}`, () => {
    let repo: ContractRepo;
    let port: RepoPort;
    let main: string;
    let draft: string;
    let pull: number;

    beforeAll(async () => {
      repo = await make();
      port = repo.port;
      const refs = await port.listRefs();
      main = refs.find((r) => r.ref === "refs/heads/main")?.sha as string;
    });
    afterAll(async () => {
      await repo?.cleanup();
    });

    it("lists main and reads its tree", async () => {
      expect(main).toMatch(/^[0-9a-f]{40}$/);
      const { sha, tree } = await port.readTree("main");
      expect(sha).toBe(main);
      expect(tree.size).toBeGreaterThan(0);
    });

    it("commits a tree on a new branch, refuses a stale parent and an unchanged tree", async () => {
      const tree = treeFromText({ Kptfile: "kind: Kptfile\n", "cm.yaml": "a: 1\n" });
      const first = await port.commitTree({
        branch: "drafts/web/one",
        parent: main,
        dir: "apps/web",
        tree,
        message: "web: first",
        author: AUTHOR,
      });
      expect(first.ok).toBe(true);
      draft = first.ok ? first.sha : "";
      const read = await port.readTree("drafts/web/one", "apps/web");
      expect(read.sha).toBe(draft);
      expect([...read.tree.keys()].sort()).toEqual(["Kptfile", "cm.yaml"]);
      expect(
        await port.commitTree({
          branch: "drafts/web/one",
          parent: main,
          dir: "apps/web",
          tree: treeFromText({ Kptfile: "kind: Kptfile\n" }),
          message: "stale",
          author: AUTHOR,
        }),
      ).toEqual({ ok: false, reason: "non-fast-forward" });
      expect(
        await port.commitTree({
          branch: "drafts/web/one",
          parent: draft,
          dir: "apps/web",
          tree,
          message: "same",
          author: AUTHOR,
        }),
      ).toEqual({ ok: false, reason: "unchanged" });
    });

    it("replaces a branch only while it is at the commit it was told (force with lease)", async () => {
      const commit = (branch: string, parent: string, text: string, replaces?: string) =>
        port.commitTree({
          branch,
          parent,
          dir: "apps/lease",
          tree: treeFromText({ "cm.yaml": text }),
          message: text,
          author: AUTHOR,
          ...(replaces ? { replaces } : {}),
        });
      const first = await commit("lease", main, "a: 1\n");
      const second = first.ok ? await commit("lease", first.sha, "a: 2\n") : first;
      if (!first.ok || !second.ok) throw new Error("setup");
      // Rebuilt on main, replacing the branch's commits: refused while naming a head it is no longer at.
      expect(await commit("lease", main, "a: 3\n", first.sha)).toEqual({
        ok: false,
        reason: "non-fast-forward",
      });
      const replaced = await commit("lease", main, "a: 3\n", second.sha);
      expect(replaced.ok).toBe(true);
      expect((await port.listRefs()).find((r) => r.ref === "refs/heads/lease")?.sha).toBe(
        replaced.ok ? replaced.sha : "",
      );
      expect((await port.listCommits(main, "lease")).length).toBe(1);
    });

    it("reads files, sizes, changes and commits of the branch", async () => {
      expect(await port.getFile("apps/web/cm.yaml", "drafts/web/one")).toBe("a: 1\n");
      expect(await port.getFile("apps/web/absent.yaml", "drafts/web/one")).toBeUndefined();
      const listed = await port.listFiles("drafts/web/one", "apps/web");
      expect([...listed.files].sort((a, b) => (a.path < b.path ? -1 : 1))).toEqual([
        { path: "Kptfile", size: 14 },
        { path: "cm.yaml", size: 5 },
      ]);
      expect((await port.changedPaths("main", "drafts/web/one")).sort()).toEqual([
        "apps/web/Kptfile",
        "apps/web/cm.yaml",
      ]);
      expect(await port.listCommits("main", "drafts/web/one")).toEqual([{ sha: draft, author: AUTHOR }]);
      expect(await port.parentChange(draft, "apps/web")).toEqual({
        parent: main,
        paths: ["Kptfile", "cm.yaml"],
      });
      expect(await port.parentChange(draft, "apps/other")).toEqual({ parent: main, paths: [] });
      const root = await port.parentChange(main);
      expect(root.parent).toBeNull();
      expect(root.paths.length).toBeGreaterThan(0);
      const time = await port.commitTime(draft);
      expect(Number.isNaN(time.getTime())).toBe(false);
      expect(Math.abs(time.getTime() - Date.now())).toBeLessThan(3_600_000);
      // when each file of a directory was added: the draft's commit added both, at its time
      const added = await port.addedAt(draft, "apps/web");
      expect([...added.keys()].sort()).toEqual(["Kptfile", "cm.yaml"]);
      expect(added.get("cm.yaml")?.getTime()).toBe(time.getTime());
      // each package's last change: the draft's commit for apps/web; nothing after the draft itself
      const last = await port.lastChanges(draft, ["apps/web", "apps/absent"]);
      expect(last.get("apps/web")).toBe(draft);
      expect(last.has("apps/absent")).toBe(false);
      expect((await port.lastChanges(draft, ["apps/web"], main)).get("apps/web")).toBe(draft);
      expect((await port.lastChanges(draft, ["apps/web"], draft)).size).toBe(0);
    });

    it("opens a pull request and finds it by number, as open, and by its branch", async () => {
      const pr = await port.createPull({
        head: "drafts/web/one",
        base: "main",
        title: "web: one",
        body: "b",
      });
      pull = pr.number;
      expect(pr).toMatchObject({
        title: "web: one",
        body: "b",
        state: "open",
        merged: false,
        draft: false,
        headRef: "drafts/web/one",
        headSha: draft,
        baseRef: "main",
        labels: [],
        mergeCommitSha: null,
      });
      expect(await port.getPull(pull)).toMatchObject({ number: pull, headSha: draft, state: "open" });
      expect((await port.listOpenPulls()).map((p) => p.number)).toContain(pull);
      expect((await port.listPullsFrom("drafts/web/one")).map((p) => p.number)).toEqual([pull]);
      expect(await port.listPullsFrom("drafts/none")).toEqual([]);
      expect(await port.listReviews(pull)).toEqual([]);
    });

    it("says not-found for a pull request that does not exist", async () => {
      const err = await port.getPull(9999).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GitHubError);
      expect((err as GitHubError).kind).toBe("not-found");
    });

    it("edits a pull request and its labels", async () => {
      await port.updatePull(pull, { title: "web: one, edited" });
      await port.addLabels(pull, ["porchlight/a", "porchlight/b"]);
      await port.removeLabel(pull, "porchlight/a");
      await port.removeLabel(pull, "porchlight/never-set");
      const pr = await port.getPull(pull);
      expect(pr.title).toBe("web: one, edited");
      expect(pr.labels).toEqual(["porchlight/b"]);
    });

    it("keeps one comment per marker, and lists comments oldest first", async () => {
      const marker = "<!-- porchlight:contract -->";
      const a = await port.ensureComment(pull, marker, `${marker}\none`);
      expect(a.action).toBe("created");
      expect(await port.ensureComment(pull, marker, `${marker}\none`)).toEqual({
        id: a.id,
        action: "unchanged",
      });
      expect(await port.ensureComment(pull, marker, `${marker}\ntwo`)).toEqual({
        id: a.id,
        action: "updated",
      });
      const plain = await port.createComment(pull, "plain");
      expect(await port.findComment(pull, marker)).toEqual({ id: a.id, body: `${marker}\ntwo` });
      expect(await port.findComment(pull, "<!-- absent -->")).toBeUndefined();
      const listed = await port.listComments(pull);
      expect(listed.map((c) => [c.id, c.body])).toEqual([
        [a.id, `${marker}\ntwo`],
        [plain, "plain"],
      ]);
      await port.react(plain, "eyes");
    });

    it("creates a check run once per name and head, then updates it", async () => {
      const id = await port.upsertCheckRun({
        name: "porchlight/contract",
        headSha: draft,
        status: "in_progress",
      });
      const again = await port.upsertCheckRun({
        name: "porchlight/contract",
        headSha: draft,
        status: "completed",
        conclusion: "success",
        externalId: "tree-1",
        title: "ok",
        summary: "fine",
      });
      expect(again).toBe(id);
      const runs = (await port.listCheckRuns(draft)).filter((r) => r.name === "porchlight/contract");
      expect(runs).toEqual([
        {
          id,
          name: "porchlight/contract",
          headSha: draft,
          status: "completed",
          conclusion: "success",
          externalId: "tree-1",
        },
      ]);
    });

    it.each(PERMISSION_LEVELS.filter((level) => level !== "none"))(
      "answers a collaborator's permission %s as GitHub grants it",
      async (level) => {
        await repo.permit(`contract-${level}`, level);
        expect(await port.permissionOf(`contract-${level}`)).toBe(level);
      },
    );

    it("answers none for a stranger", async () => {
      expect(await port.permissionOf("contract-stranger")).toBe("none");
    });

    it("lists who may push: write, maintain and admin, not read or triage", async () => {
      for (const level of ["read", "triage", "write", "maintain", "admin"] as const)
        await repo.permit(`pusher-${level}`, level);
      const writers = (await port.writers()).filter((w) => w.startsWith("pusher-")).sort();
      expect(writers).toEqual(["pusher-admin", "pusher-maintain", "pusher-write"]);
    });

    it("merges only the head it was told, closing the pull request", async () => {
      const stale = await port.mergePull(pull, { sha: main, method: "merge" }).catch((e: unknown) => e);
      expect(stale).toBeInstanceOf(GitHubError);
      expect((stale as GitHubError).kind).toBe("conflict");
      const merged = await port.mergePull(pull, { sha: draft, method: "merge" });
      expect(merged).toMatch(/^[0-9a-f]{40}$/);
      expect(await port.getPull(pull)).toMatchObject({
        state: "closed",
        merged: true,
        mergeCommitSha: merged,
      });
      expect((await port.listOpenPulls()).map((p) => p.number)).not.toContain(pull);
      expect((await port.listRecentlyClosedPulls()).map((p) => p.number)).toContain(pull);
      // the merge commit names its pull request (how a revision's deletion finds the publish to mark)
      expect(
        (await port.listPullsOfCommit(merged))
          .filter((p) => p.merged)
          .map((p) => [p.number, p.mergeCommitSha]),
      ).toEqual([[pull, merged]]);
      expect((await port.readTree("main", "apps/web")).sha).toBe(merged);
      const again = await port.mergePull(pull, { sha: draft, method: "merge" }).catch((e: unknown) => e);
      expect((again as MergeRefused).refusal).toEqual({
        kind: "not-mergeable",
        github: "Pull Request is not mergeable",
      });
    });

    it("merges three proposals of one repository asked at once: each lands on the others, none refused", async () => {
      const base = (await port.listRefs()).find((r) => r.ref === "refs/heads/main")?.sha as string;
      const pulls = await Promise.all(
        ["a", "b", "c"].map(async (name) => {
          const made = await port.commitTree({
            branch: `drafts/at-once-${name}/one`,
            parent: base,
            dir: `apps/at-once-${name}`,
            tree: treeFromText({ Kptfile: "kind: Kptfile\n" }),
            message: `at-once-${name}`,
            author: AUTHOR,
          });
          if (!made.ok) throw new Error(`commit of ${name} refused`);
          const pr = await port.createPull({
            head: `drafts/at-once-${name}/one`,
            base: "main",
            title: name,
            body: "",
          });
          return { number: pr.number, sha: made.sha };
        }),
      );
      const merged = await Promise.all(
        pulls.map((p) => port.mergePull(p.number, { sha: p.sha, method: "merge" }).catch((e: unknown) => e)),
      );
      expect(merged.filter((m) => typeof m !== "string")).toEqual([]);
      const tree = (await port.readTree("main")).tree;
      for (const name of ["a", "b", "c"]) expect(tree.has(`apps/at-once-${name}/Kptfile`)).toBe(true);
    });

    it("creates a tag once, and deletes a branch, once or twice", async () => {
      expect(await port.createTag("apps/web/v1", draft)).toBe("created");
      expect(await port.createTag("apps/web/v1", main)).toBe("exists");
      await port.deleteBranch("drafts/web/one");
      await port.deleteBranch("drafts/web/one");
      const refs = (await port.listRefs()).map((r) => r.ref);
      expect(refs).toContain("refs/tags/apps/web/v1");
      expect(refs).not.toContain("refs/heads/drafts/web/one");
    });

    it("tags a publish and deletes its draft in one push: both, or the tag alone when the draft moved on, or neither when the number is taken", async () => {
      const branchOn = async (branch: string, file: string) => {
        const made = await port.commitTree({
          branch,
          parent: main,
          dir: "apps/web",
          tree: treeFromText({ Kptfile: "kind: Kptfile\n", [file]: "x\n" }),
          message: `web: ${file}`,
          author: AUTHOR,
        });
        if (!made.ok) throw new Error(`could not push ${branch}`);
        return made.sha;
      };
      const refs = async () => new Map((await port.listRefs()).map((r) => [r.ref, r.sha]));
      const two = await branchOn("drafts/web/two", "two.yaml");
      expect(await port.createTag("apps/web/v2", two, { branch: "drafts/web/two", at: two })).toBe("created");
      expect((await refs()).get("refs/tags/apps/web/v2")).toBe(two);
      expect((await refs()).has("refs/heads/drafts/web/two")).toBe(false);
      // the number taken by another commit: nothing happens, the draft stays
      const three = await branchOn("drafts/web/three", "three.yaml");
      expect(await port.createTag("apps/web/v2", three, { branch: "drafts/web/three", at: three })).toBe(
        "exists",
      );
      expect((await refs()).get("refs/tags/apps/web/v2")).toBe(two);
      expect((await refs()).get("refs/heads/drafts/web/three")).toBe(three);
      // the draft moved on since the merge that is tagged (new work): the tag alone, the draft stays
      expect(await port.createTag("apps/web/v3", three, { branch: "drafts/web/three", at: two })).toBe(
        "created",
      );
      expect((await refs()).get("refs/tags/apps/web/v3")).toBe(three);
      expect((await refs()).get("refs/heads/drafts/web/three")).toBe(three);
      await port.deleteBranch("drafts/web/three");
    });

    it("deletes a ref only while it points where it did: once deleted, then gone; moved, kept", async () => {
      expect(await port.createTag("apps/web/v9", draft)).toBe("created");
      expect(await port.deleteRefIf("refs/tags/apps/web/v9", main)).toBe("moved");
      expect((await port.listRefs()).map((r) => r.ref)).toContain("refs/tags/apps/web/v9");
      expect(await port.deleteRefIf("refs/tags/apps/web/v9", draft)).toBe("deleted");
      expect(await port.deleteRefIf("refs/tags/apps/web/v9", draft)).toBe("gone");
      expect((await port.listRefs()).map((r) => r.ref)).not.toContain("refs/tags/apps/web/v9");
    });

    it("keeps one open issue per marker and label", async () => {
      const input = {
        marker: "<!-- porchlight:dash -->",
        label: "porchlight/dashboard",
        title: "Dash",
        body: "<!-- porchlight:dash -->\n1",
      };
      expect(await port.findIssue(input)).toBeUndefined();
      const made = await port.ensureIssue(input);
      expect(made.action).toBe("created");
      expect(await port.findIssue(input)).toEqual({
        number: made.number,
        body: input.body,
        labels: [input.label],
      });
      expect(await port.ensureIssue(input)).toEqual({ number: made.number, action: "unchanged" });
      expect(await port.ensureIssue({ ...input, body: `${input.marker}\n2` })).toEqual({
        number: made.number,
        action: "updated",
      });
      expect(await port.findIssue({ label: input.label, marker: input.marker })).toEqual({
        number: made.number,
        body: `${input.marker}\n2`,
        labels: [input.label],
      });
      expect(
        await port.findIssue({ label: input.label, marker: "<!-- porchlight:other -->" }),
      ).toBeUndefined();
    });
  });
}
