import { createHash } from "node:crypto";
import { GitHubError, MergeRefused } from "../../src/github/errors.js";
import type {
  CheckRunInput,
  CheckRunState,
  CommitAuthor,
  CommitInfo,
  FileEntry,
  HistoryCommit,
  IssueComment,
  Permission,
  PullRequest,
  PushResult,
  RepoId,
  RepoPort,
  Review,
} from "../../src/github/port.js";
import { differingPaths } from "../../src/jobs/packages.js";
import { type FileTree, subtree } from "../../src/kpt/tree.js";
import type { CheckAnnotation } from "../../src/lifecycle/check-run.js";
import { annotateMessage, annotationForBranch } from "../../src/lifecycle/kpt-trailer.js";
import type { RefInfo } from "../../src/lifecycle/refs.js";

interface Commit {
  sha: string;
  tree: FileTree;
  parents: string[];
  message: string;
  author: CommitAuthor;
  /** The committer date. */
  time?: Date;
}

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  /** Who wrote it; absent: the bot (its replies and summaries). */
  author?: string;
  reactions: string[];
  /** When it was written and last edited (ISO 8601, as GitHub's); `addComment` sets both to now. */
  createdAt: string;
  updatedAt: string;
}

export interface FakeCheckRun extends CheckRunState {
  title?: string;
  summary?: string;
  annotations: CheckAnnotation[];
  /** How many calls wrote it (create + updates). */
  writes: number;
}

/**
 * RepoPort over plain maps: commits with whole-repository trees, refs, pull requests, reviews,
 * comments, check runs and permissions. Behaves as GitHub and git do where the jobs depend on it:
 * pushes without force refuse a non-fast-forward, merges refuse a moved head, tags never move.
 * `calls` records every port call, for tests that count them; `beforePush` lets a test race a push.
 */
export class FakeRepo implements RepoPort {
  readonly id: RepoId;
  readonly commits = new Map<string, Commit>();
  readonly refs = new Map<string, string>();
  readonly pulls = new Map<number, PullRequest>();
  readonly reviews = new Map<number, Review[]>();
  readonly comments: FakeComment[] = [];
  readonly checkRuns: FakeCheckRun[] = [];
  /** Commit statuses, oldest first (the latest of a context on a commit counts). */
  readonly statuses: { sha: string; context: string; state: "pending" | "success" | "failure" | "error" }[] =
    [];
  readonly permissions = new Map<string, Permission>();
  readonly deletedBranches: string[] = [];
  readonly issues: { number: number; title: string; body: string; labels: string[] }[] = [];
  readonly calls: string[] = [];
  defaultBranch = "main";
  beforePush?: (branch: string) => void;
  /** What GitHub answers the next merges instead of merging (branch protection, a merge method not allowed). */
  refuseMerge?: MergeRefused;
  private nextId = 1;
  private counter = 0;

  constructor(full = "acme/blueprints") {
    const [owner, repo] = full.split("/") as [string, string];
    this.id = { owner, repo };
  }

  // ---- test helpers ----

  /** Commits files (text) onto `branch` (whole-repository content when `replace`, else merged in). */
  commit(branch: string, files: Record<string, string | null>, message = "edit", replace = false): string {
    const parent = this.refs.get(`refs/heads/${branch}`);
    const tree: FileTree = replace || !parent ? new Map() : new Map(this.commitOf(parent).tree);
    for (const [path, text] of Object.entries(files)) {
      if (text === null) tree.delete(path);
      else tree.set(path, Buffer.from(text));
    }
    const sha = this.addCommit(tree, parent ? [parent] : [], message, { name: "alice", email: "a@x" });
    this.refs.set(`refs/heads/${branch}`, sha);
    return sha;
  }

  /** Creates `branch` at the commit `from` (a branch name or SHA) points at. */
  branch(branch: string, from: string): string {
    const sha = this.resolve(from);
    this.refs.set(`refs/heads/${branch}`, sha);
    return sha;
  }

  openPull(head: string, opts: Partial<PullRequest> = {}): PullRequest {
    const number = this.nextId++;
    const pr: PullRequest = {
      number,
      title: `Propose ${head}`,
      body: "",
      state: "open",
      merged: false,
      draft: false,
      headRef: head,
      headSha: this.resolve(head),
      headRepo: `${this.id.owner}/${this.id.repo}`,
      baseRef: this.defaultBranch,
      baseSha: this.resolve(this.defaultBranch),
      labels: [],
      author: "alice",
      mergeCommitSha: null,
      url: `https://example.test/pull/${number}`,
      ...opts,
    };
    this.pulls.set(number, pr);
    return pr;
  }

  review(pr: number, user: string, state: Review["state"] = "APPROVED", commitId?: string): Review {
    const r: Review = {
      id: this.nextId++,
      user,
      state,
      commitId: commitId ?? this.livePull(pr).headSha,
    };
    this.reviews.set(pr, [...(this.reviews.get(pr) ?? []), r]);
    return r;
  }

  addComment(issue: number, body: string, author?: string): FakeComment {
    const at = `${new Date().toISOString().slice(0, 19)}Z`;
    const c: FakeComment = {
      id: this.nextId++,
      issue,
      body,
      reactions: [],
      createdAt: at,
      updatedAt: at,
      ...(author ? { author } : {}),
    };
    this.comments.push(c);
    return c;
  }

  files(ref: string, dir = ""): Record<string, string> {
    const tree = subtree(this.commitOf(this.resolve(ref)).tree, dir);
    return Object.fromEntries([...tree].sort().map(([k, v]) => [k, v.toString("utf8")]));
  }

  commitMessage(ref: string): string {
    return this.commitOf(this.resolve(ref)).message;
  }

  commitAuthor(ref: string): CommitAuthor {
    return this.commitOf(this.resolve(ref)).author;
  }

  tags(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [ref, sha] of this.refs) if (ref.startsWith("refs/tags/")) out[ref.slice(10)] = sha;
    return out;
  }

  runsOn(sha: string, name?: string): FakeCheckRun[] {
    return this.checkRuns.filter((r) => r.headSha === sha && (name === undefined || r.name === name));
  }

  commentsOn(issue: number): FakeComment[] {
    return this.comments.filter((c) => c.issue === issue);
  }

  resolve(ref: string): string {
    if (this.commits.has(ref)) return ref;
    const sha = this.refs.get(ref) ?? this.refs.get(`refs/heads/${ref}`) ?? this.refs.get(`refs/tags/${ref}`);
    if (!sha) throw new GitHubError("not-found", `no ref ${ref}`, 404);
    return sha;
  }

  private commitOf(sha: string): Commit {
    const c = this.commits.get(sha);
    if (!c) throw new GitHubError("not-found", `no commit ${sha}`, 404);
    return c;
  }

  private addCommit(tree: FileTree, parents: string[], message: string, author: CommitAuthor): string {
    const sha = createHash("sha1")
      .update(`${this.counter++}\0${parents.join(",")}\0${message}`)
      .digest("hex");
    this.commits.set(sha, { sha, tree, parents, message, author, time: new Date() });
    return sha;
  }

  private ancestors(sha: string): Set<string> {
    const seen = new Set<string>();
    const stack = [sha];
    while (stack.length > 0) {
      const s = stack.pop() as string;
      if (seen.has(s)) continue;
      seen.add(s);
      stack.push(...this.commitOf(s).parents);
    }
    return seen;
  }

  private mergeBase(a: string, b: string): string | undefined {
    const ofA = this.ancestors(a);
    const stack = [b];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const s = stack.shift() as string;
      if (ofA.has(s)) return s;
      if (seen.has(s)) continue;
      seen.add(s);
      stack.push(...this.commitOf(s).parents);
    }
    return undefined;
  }

  private livePull(number: number): PullRequest {
    const pr = this.pulls.get(number);
    if (!pr) throw new GitHubError("not-found", `no pull request #${number}`, 404);
    if (pr.state === "open" && this.refs.has(`refs/heads/${pr.headRef}`)) {
      pr.headSha = this.resolve(`refs/heads/${pr.headRef}`);
      pr.baseSha = this.resolve(`refs/heads/${pr.baseRef}`);
    }
    return pr;
  }

  // ---- RepoPort ----

  async listRefs(): Promise<RefInfo[]> {
    this.calls.push("listRefs");
    return [...this.refs].map(([ref, sha]) => ({ ref, sha }));
  }

  async listFiles(ref: string, dir = ""): Promise<{ sha: string; files: FileEntry[] }> {
    this.calls.push("listFiles");
    const sha = this.resolve(ref);
    const files = [...subtree(this.commitOf(sha).tree, dir)].map(([path, bytes]) => ({
      path,
      size: bytes.length,
    }));
    return { sha, files };
  }

  async readTree(ref: string, dir = ""): Promise<{ sha: string; tree: FileTree }> {
    this.calls.push("readTree");
    const sha = this.resolve(ref);
    return { sha, tree: subtree(this.commitOf(sha).tree, dir) };
  }

  async changedPaths(base: string, head: string): Promise<string[]> {
    this.calls.push("changedPaths");
    const b = this.resolve(base);
    const h = this.resolve(head);
    return differingPaths(this.commitOf(this.mergeBase(b, h) ?? b).tree, this.commitOf(h).tree);
  }

  async parentChange(sha: string, dir = ""): Promise<{ parent: string | null; paths: string[] }> {
    this.calls.push("parentChange");
    const commit = this.commitOf(this.resolve(sha));
    const parent = commit.parents[0] ?? null;
    const from = parent ? subtree(this.commitOf(parent).tree, dir) : new Map<string, Buffer>();
    return { parent, paths: differingPaths(from, subtree(commit.tree, dir)) };
  }

  async commitTree(input: Parameters<RepoPort["commitTree"]>[0]): Promise<PushResult> {
    this.calls.push("commitTree");
    const base: FileTree = input.parent ? new Map(this.commitOf(input.parent).tree) : new Map();
    const prefix = input.dir === "" ? "" : `${input.dir}/`;
    for (const p of [...base.keys()]) if (p.startsWith(prefix)) base.delete(p);
    for (const [p, v] of input.tree) base.set(`${prefix}${p}`, v);
    if (input.parent) {
      const parentTree = this.commitOf(input.parent).tree;
      if (sameTree(parentTree, base)) return { ok: false, reason: "unchanged" };
    }
    this.beforePush?.(input.branch);
    const ref = `refs/heads/${input.branch}`;
    const current = this.refs.get(ref);
    const leased = input.replaces !== undefined && current === input.replaces;
    if (current && !leased && (!input.parent || !this.ancestors(input.parent).has(current))) {
      return { ok: false, reason: "non-fast-forward" };
    }
    const kpt = input.kpt === null ? undefined : (input.kpt ?? annotationForBranch(input.branch));
    const message = kpt ? annotateMessage(input.message, kpt) : input.message;
    const sha = this.addCommit(base, input.parent ? [input.parent] : [], message, input.author);
    if (input.exclusive && current === sha) return { ok: false, reason: "non-fast-forward" };
    this.refs.set(ref, sha);
    return { ok: true, sha };
  }

  async getPull(number: number): Promise<PullRequest> {
    this.calls.push("getPull");
    return { ...this.livePull(number), labels: [...this.livePull(number).labels] };
  }

  async listOpenPulls(): Promise<PullRequest[]> {
    this.calls.push("listOpenPulls");
    return [...this.pulls.keys()]
      .map((n) => this.livePull(n))
      .filter((p) => p.state === "open")
      .map((p) => ({ ...p, labels: [...p.labels] }));
  }

  async listPullsFrom(head: string): Promise<PullRequest[]> {
    this.calls.push("listPullsFrom");
    return [...this.pulls.keys()]
      .sort((a, b) => b - a)
      .map((n) => this.livePull(n))
      .filter((p) => p.headRef === head)
      .map((p) => ({ ...p, labels: [...p.labels] }));
  }

  async listRecentlyClosedPulls(): Promise<PullRequest[]> {
    this.calls.push("listRecentlyClosedPulls");
    return [...this.pulls.keys()]
      .sort((a, b) => b - a)
      .map((n) => this.livePull(n))
      .filter((p) => p.state === "closed")
      .slice(0, 100)
      .map((p) => ({ ...p, labels: [...p.labels] }));
  }

  async listPullsOfCommit(sha: string): Promise<PullRequest[]> {
    this.calls.push("listPullsOfCommit");
    return [...this.pulls.keys()]
      .map((n) => this.livePull(n))
      .filter((p) => p.headSha === sha || p.mergeCommitSha === sha)
      .map((p) => ({ ...p, labels: [...p.labels] }));
  }

  async createPull(input: Parameters<RepoPort["createPull"]>[0]): Promise<PullRequest> {
    this.calls.push("createPull");
    const pr = this.openPull(input.head, {
      title: input.title,
      body: input.body,
      baseRef: input.base,
      draft: Boolean(input.draft),
      author: "porchlight[bot]",
    });
    return { ...pr };
  }

  async updatePull(
    number: number,
    input: { title?: string; body?: string; state?: "open" | "closed" },
  ): Promise<void> {
    this.calls.push("updatePull");
    Object.assign(this.livePull(number), input);
  }

  async mergePull(
    number: number,
    input: { sha: string; method: "merge" | "squash" | "rebase"; title?: string; message?: string },
  ): Promise<string> {
    this.calls.push("mergePull");
    const pr = this.livePull(number);
    if (pr.state !== "open")
      throw new MergeRefused(`merging pull request #${number}: Pull Request is not mergeable (HTTP 405)`, {
        kind: "not-mergeable",
        github: "Pull Request is not mergeable",
      });
    if (this.refuseMerge) throw this.refuseMerge;
    if (pr.headSha !== input.sha) {
      throw new GitHubError("conflict", "Head branch was modified. Review and try the merge again.", 409);
    }
    const baseSha = this.resolve(`refs/heads/${pr.baseRef}`);
    const mb = this.mergeBase(baseSha, pr.headSha);
    const from = mb ? this.commitOf(mb).tree : new Map<string, Buffer>();
    const head = this.commitOf(pr.headSha).tree;
    const merged: FileTree = new Map(this.commitOf(baseSha).tree);
    for (const [p, v] of head) if (!from.get(p)?.equals(v)) merged.set(p, v);
    for (const p of from.keys()) if (!head.has(p)) merged.delete(p);
    const message = `${input.title ?? `Merge #${number}`}${input.message ? `\n\n${input.message}` : ""}`;
    const sha = this.addCommit(merged, [baseSha, pr.headSha], message, {
      name: "GitHub",
      email: "noreply@github.com",
    });
    this.refs.set(`refs/heads/${pr.baseRef}`, sha);
    Object.assign(pr, { state: "closed", merged: true, mergeCommitSha: sha });
    return sha;
  }

  async listReviews(number: number): Promise<Review[]> {
    this.calls.push("listReviews");
    return [...(this.reviews.get(number) ?? [])];
  }

  async addLabels(issue: number, labels: string[]): Promise<void> {
    this.calls.push("addLabels");
    const pr = this.livePull(issue);
    for (const l of labels) if (!pr.labels.includes(l)) pr.labels.push(l);
  }

  async removeLabel(issue: number, label: string): Promise<void> {
    this.calls.push("removeLabel");
    const pr = this.livePull(issue);
    pr.labels = pr.labels.filter((l) => l !== label);
  }

  async permissionOf(user: string): Promise<Permission> {
    this.calls.push("permissionOf");
    return this.permissions.get(user) ?? "none";
  }

  async writers(): Promise<string[]> {
    this.calls.push("writers");
    return [...this.permissions].flatMap(([user, level]) =>
      level === "write" || level === "maintain" || level === "admin" ? [user] : [],
    );
  }

  async ensureComment(
    issue: number,
    marker: string,
    body: string,
  ): Promise<{ id: number; action: "created" | "updated" | "unchanged" }> {
    this.calls.push("ensureComment");
    const mine = this.comments.find((c) => c.issue === issue && c.body.includes(marker));
    if (!mine) return { id: this.addComment(issue, body).id, action: "created" };
    if (mine.body === body) return { id: mine.id, action: "unchanged" };
    mine.body = body;
    return { id: mine.id, action: "updated" };
  }

  async createComment(issue: number, body: string): Promise<number> {
    this.calls.push("createComment");
    return this.addComment(issue, body).id;
  }

  async listComments(issue: number): Promise<IssueComment[]> {
    this.calls.push("listComments");
    return this.commentsOn(issue).map((c) => ({
      id: c.id,
      author: c.author ?? "porchlight[bot]",
      bot: c.author === undefined,
      body: c.body,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
    }));
  }

  async findComment(issue: number, marker: string): Promise<{ id: number; body: string } | undefined> {
    this.calls.push("findComment");
    const c = this.comments.find((x) => x.issue === issue && x.body.includes(marker));
    return c ? { id: c.id, body: c.body } : undefined;
  }

  async react(commentId: number, content: "eyes" | "+1" | "-1" | "rocket" | "confused"): Promise<void> {
    this.calls.push("react");
    const c = this.comments.find((x) => x.id === commentId);
    if (!c) throw new GitHubError("not-found", `no comment ${commentId}`, 404);
    if (!c.reactions.includes(content)) c.reactions.push(content);
  }

  async listCheckRuns(headSha: string): Promise<CheckRunState[]> {
    this.calls.push("listCheckRuns");
    return this.runsOn(headSha).map(({ id, name, headSha: h, status, conclusion, externalId }) => ({
      id,
      name,
      headSha: h,
      status,
      conclusion,
      externalId,
    }));
  }

  async listCommitStatuses(sha: string): Promise<CheckRunState[]> {
    this.calls.push("listCommitStatuses");
    const latest = new Map<string, (typeof this.statuses)[number]>();
    for (const s of this.statuses) if (s.sha === sha) latest.set(s.context, s);
    return [...latest.values()].map((s, i) => ({
      id: i + 1,
      name: s.context,
      headSha: sha,
      status: s.state === "pending" ? "in_progress" : "completed",
      conclusion: s.state === "pending" ? null : s.state === "success" ? "success" : "failure",
      externalId: null,
    }));
  }

  async upsertCheckRun(input: CheckRunInput): Promise<number> {
    this.calls.push("upsertCheckRun");
    let run = this.checkRuns.find((r) => r.name === input.name && r.headSha === input.headSha);
    if (!run) {
      run = {
        id: this.nextId++,
        name: input.name,
        headSha: input.headSha,
        status: input.status,
        conclusion: null,
        externalId: null,
        annotations: [],
        writes: 0,
      };
      this.checkRuns.push(run);
    } else {
      run.annotations = [];
    }
    run.status = input.status;
    run.conclusion = input.conclusion ?? null;
    run.externalId = input.externalId ?? run.externalId;
    if (input.title !== undefined) run.title = input.title;
    if (input.summary !== undefined) run.summary = input.summary;
    run.annotations.push(...(input.annotations ?? []));
    run.writes++;
    return run.id;
  }

  async createTag(
    name: string,
    sha: string,
    dropping?: { branch: string; at: string },
  ): Promise<"created" | "exists"> {
    this.calls.push("createTag");
    const ref = `refs/tags/${name}`;
    if (this.refs.has(ref)) return "exists";
    this.commitOf(sha);
    this.refs.set(ref, sha);
    // the branch goes in the same push, only while it is where the caller read it
    if (dropping && this.refs.get(`refs/heads/${dropping.branch}`) === dropping.at) {
      this.refs.delete(`refs/heads/${dropping.branch}`);
      this.deletedBranches.push(dropping.branch);
    }
    return "created";
  }

  async deleteRefIf(ref: string, sha: string): Promise<"deleted" | "gone" | "moved"> {
    this.calls.push("deleteRefIf");
    const now = this.refs.get(ref);
    if (now === undefined) return "gone";
    if (now !== sha) return "moved";
    this.refs.delete(ref);
    return "deleted";
  }

  async deleteBranch(name: string): Promise<void> {
    this.calls.push("deleteBranch");
    if (this.refs.delete(`refs/heads/${name}`)) this.deletedBranches.push(name);
  }

  async getFile(path: string, ref: string): Promise<string | undefined> {
    this.calls.push("getFile");
    return this.commitOf(this.resolve(ref)).tree.get(path)?.toString("utf8");
  }

  async listCommits(base: string, head: string): Promise<CommitInfo[]> {
    this.calls.push("listCommits");
    const inBase = this.ancestors(this.resolve(base));
    return [...this.ancestors(this.resolve(head))]
      .filter((s) => !inBase.has(s))
      .map((s) => ({ sha: s, author: this.commitOf(s).author }));
  }

  async commitMessages(shas: readonly string[]): Promise<Map<string, string>> {
    this.calls.push("commitMessages");
    return new Map(shas.map((sha) => [sha, this.commitOf(this.resolve(sha)).message]));
  }

  async history(head: string, limit: number): Promise<HistoryCommit[]> {
    this.calls.push("history");
    const all = [...this.ancestors(this.resolve(head))].map((s) => this.commitOf(s));
    // newest first: the order commits were made in (the counter in their sha), as committer dates give it
    const order = [...this.commits.keys()];
    all.sort((a, b) => order.indexOf(b.sha) - order.indexOf(a.sha));
    return all.slice(0, limit).map((c) => ({
      sha: c.sha,
      message: c.message,
      authorEmail: c.author.email,
      authorDate: c.time ?? new Date(0),
    }));
  }

  async commitTime(sha: string): Promise<Date> {
    this.calls.push("commitTime");
    return this.commitOf(this.resolve(sha)).time ?? new Date();
  }

  async addedAt(head: string, dir: string): Promise<Map<string, Date>> {
    this.calls.push("addedAt");
    const prefix = dir === "" ? "" : `${dir}/`;
    const out = new Map<string, Date>();
    // oldest first, so each path ends with its newest add
    const order = [...this.commits.keys()];
    const chain = [...this.ancestors(this.resolve(head))].sort((a, b) => order.indexOf(a) - order.indexOf(b));
    for (const sha of chain) {
      const c = this.commitOf(sha);
      const before = c.parents[0] ? this.commitOf(c.parents[0]).tree : new Map<string, Buffer>();
      for (const path of c.tree.keys())
        if (path.startsWith(prefix) && !before.has(path))
          out.set(path.slice(prefix.length), c.time ?? new Date());
    }
    return out;
  }

  async lastChanges(head: string, dirs: readonly string[], since?: string): Promise<Map<string, string>> {
    this.calls.push("lastChanges");
    // the first-parent line from head, down to `since` when it is on it (else the whole line)
    const line: string[] = [];
    for (let sha: string | undefined = this.resolve(head); sha; sha = this.commitOf(sha).parents[0])
      line.push(sha);
    const stop = since === undefined ? -1 : line.indexOf(since);
    const chain = stop >= 0 ? line.slice(0, stop) : line;
    const out = new Map<string, string>();
    for (const sha of chain) {
      const c = this.commitOf(sha);
      const before = c.parents[0] ? this.commitOf(c.parents[0]).tree : new Map<string, Buffer>();
      const changed = new Set([...c.tree.keys(), ...before.keys()]);
      for (const path of changed) {
        const a = c.tree.get(path);
        const b = before.get(path);
        if (a && b && a.equals(b)) continue;
        for (const dir of dirs) if (!out.has(dir) && path.startsWith(`${dir}/`)) out.set(dir, sha);
      }
    }
    return out;
  }

  async findIssue(input: { label: string; marker: string }) {
    this.calls.push("findIssue");
    const mine = this.issues.find((i) => i.labels.includes(input.label) && i.body.includes(input.marker));
    return mine ? { number: mine.number, body: mine.body, labels: [...mine.labels] } : undefined;
  }

  async ensureIssue(input: {
    marker: string;
    label: string;
    title: string;
    body: string;
  }): Promise<{ number: number; action: "created" | "updated" | "unchanged" }> {
    this.calls.push("ensureIssue");
    const mine = this.issues.find((i) => i.labels.includes(input.label) && i.body.includes(input.marker));
    if (!mine) {
      const number = this.nextId++;
      this.issues.push({ number, title: input.title, body: input.body, labels: [input.label] });
      return { number, action: "created" };
    }
    if (mine.body === input.body && mine.title === input.title)
      return { number: mine.number, action: "unchanged" };
    Object.assign(mine, { title: input.title, body: input.body });
    return { number: mine.number, action: "updated" };
  }
}

function sameTree(a: FileTree, b: FileTree): boolean {
  if (a.size !== b.size) return false;
  for (const [p, v] of a) if (!b.get(p)?.equals(v)) return false;
  return true;
}

/** A repository with `main` holding `files`. */
export function fakeRepoWith(files: Record<string, string>, full?: string): FakeRepo {
  const repo = new FakeRepo(full);
  repo.commit("main", files, "initial", true);
  return repo;
}
